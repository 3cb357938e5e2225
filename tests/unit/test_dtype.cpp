#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/dtype.hpp"

using namespace assay;

TEST(DType, ParsesNamesAndAliases) {
  EXPECT_EQ(parse_dtype("f16"), DType::f16);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  EXPECT_FALSE(parse_dtype("f8").has_value());
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
  for (const char* s : {"f8e4m3", "fp8", "e4m3", "float8_e4m3fn"}) EXPECT_EQ(parse_dtype(s), DType::f8e4m3) << s;
  EXPECT_FALSE(parse_dtype("e5m2").has_value());
  EXPECT_EQ(dtype_name(DType::f8e4m3), "f8e4m3");
  EXPECT_EQ(dtype_size(DType::f8e4m3), 1u);
}

TEST(DType, HalfKnownBitPatterns) {
  EXPECT_EQ(float_to_f16_bits(1.0f), 0x3c00);
  EXPECT_EQ(float_to_f16_bits(-2.0f), 0xc000);
  EXPECT_EQ(float_to_f16_bits(65504.0f), 0x7bff);          // largest finite
  EXPECT_EQ(float_to_f16_bits(65520.0f), 0x7c00);          // rounds to inf
  EXPECT_EQ(float_to_f16_bits(5.9604644775390625e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_f16_bits(1.0f + 1.0f / 2048), 0x3c00);      // tie -> even (down)
  EXPECT_EQ(float_to_f16_bits(1.0f + 3.0f / 2048), 0x3c02);      // tie -> even (up)
  EXPECT_TRUE(std::isnan(f16_bits_to_float(0xffff)));
  EXPECT_EQ(f16_bits_to_float(0x3555), 0.333251953125f);
}

TEST(DType, Bf16KnownBitPatterns) {
  EXPECT_EQ(float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16_bits(1.0f + 1.0f / 256), 0x3f80);  // tie -> even
  EXPECT_EQ(float_to_bf16_bits(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(0xffff)));
  EXPECT_EQ(bf16_bits_to_float(0xc040), -3.0f);
}

TEST(DType, RoundTripEveryHalf) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = f16_bits_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_f16_bits(f), h) << h;
  }
}

TEST(DType, E4m3KnownBitPatterns) {
  EXPECT_EQ(e4m3_bits_to_float(0x38), 1.0f);
  EXPECT_EQ(e4m3_bits_to_float(0x7e), 448.0f);           // largest finite
  EXPECT_EQ(e4m3_bits_to_float(0xfe), -448.0f);
  EXPECT_EQ(e4m3_bits_to_float(0x08), 0.015625f);        // smallest normal, 2^-6
  EXPECT_EQ(e4m3_bits_to_float(0x07), 0.013671875f);     // largest subnormal, 7 * 2^-9
  EXPECT_EQ(e4m3_bits_to_float(0x01), 0.001953125f);     // smallest subnormal, 2^-9
  EXPECT_EQ(e4m3_bits_to_float(0x78), 256.0f);           // exponent 15 holds numbers, not infinity
  EXPECT_TRUE(std::signbit(e4m3_bits_to_float(0x80)));
  EXPECT_EQ(e4m3_bits_to_float(0x80), 0.0f);
  EXPECT_EQ(float_to_e4m3_bits(-0.0f), 0x80);
  EXPECT_EQ(float_to_e4m3_bits(-1.75f), 0xbe);
}

// Every code decodes and encodes back to itself (NaN codes included: the sign is kept).
TEST(DType, E4m3RoundTripEveryCode) {
  int nans = 0;
  for (std::uint32_t b = 0; b < 256; ++b) {
    const float f = e4m3_bits_to_float(static_cast<std::uint8_t>(b));
    nans += std::isnan(f);
    EXPECT_EQ(float_to_e4m3_bits(f), b) << b;
  }
  EXPECT_EQ(nans, 2);  // 0x7f and 0xff only
}

// Around the midpoint of every pair of neighbouring codes: below it rounds down, above it up,
// on it to the even code (the one with a 0 low mantissa bit). Covers the subnormal steps, the
// subnormal-to-normal boundary and every binade.
TEST(DType, E4m3RoundsToNearestEvenAtEveryMidpoint) {
  for (std::uint8_t b = 0; b < 0x7e; ++b) {
    const float lo = e4m3_bits_to_float(b), hi = e4m3_bits_to_float(static_cast<std::uint8_t>(b + 1));
    const float mid = lo + (hi - lo) / 2;  // exact in float
    const std::uint8_t even = (b & 1) ? static_cast<std::uint8_t>(b + 1) : b;
    for (float sign : {1.0f, -1.0f}) {
      const std::uint8_t s = sign < 0 ? 0x80 : 0;
      EXPECT_EQ(float_to_e4m3_bits(sign * mid), s | even) << mid;
      EXPECT_EQ(float_to_e4m3_bits(sign * std::nextafter(mid, 0.0f)), s | b) << mid;
      EXPECT_EQ(float_to_e4m3_bits(sign * std::nextafter(mid, 1e9f)), s | (b + 1)) << mid;
    }
  }
  EXPECT_EQ(float_to_e4m3_bits(1.0625f), 0x38);   // tie between 1 and 1.125 -> even (down)
  EXPECT_EQ(float_to_e4m3_bits(1.1875f), 0x3a);   // tie between 1.125 and 1.25 -> even (up)
  EXPECT_EQ(float_to_e4m3_bits(0.0009765625f), 0x00);  // 2^-10, half the smallest subnormal -> 0
  EXPECT_EQ(float_to_e4m3_bits(0.0146484375f), 0x08);  // 7.5 * 2^-9 -> the smallest normal
  EXPECT_EQ(float_to_e4m3_bits(1e-30f), 0x00);
  EXPECT_EQ(float_to_e4m3_bits(-1e-30f), 0x80);
}

TEST(DType, E4m3SaturatesAndKeepsNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {448.0f, 449.0f, 464.0f, 480.0f, 1e30f, inf}) {
    EXPECT_EQ(float_to_e4m3_bits(x), 0x7e) << x;
    EXPECT_EQ(float_to_e4m3_bits(-x), 0xfe) << x;
  }
  EXPECT_EQ(float_to_e4m3_bits(std::nanf("")), 0x7f);
  EXPECT_EQ(float_to_e4m3_bits(-std::nanf("")), 0xff);
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3_bits_to_float(0xff)));
}

TEST(DType, E4m3LoadsAndStoresThroughTheBufferHelpers) {
  std::vector<std::byte> buf(3);
  store_from_float(DType::f8e4m3, buf.data(), 1, -0.3f);  // nearest: -0.3125 (0xaa)
  EXPECT_EQ(buf[1], std::byte{0xaa});
  EXPECT_EQ(load_as_double(DType::f8e4m3, buf.data(), 1), -0.3125);
  EXPECT_EQ(buf[0], std::byte{0});
  EXPECT_EQ(buf[2], std::byte{0});
}
