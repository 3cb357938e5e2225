#include <gtest/gtest.h>

#include <cmath>

#include "core/dtype.hpp"

using namespace assay;

TEST(DType, ParsesNamesAndAliases) {
  EXPECT_EQ(parse_dtype("f16"), DType::f16);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(parse_dtype("fp32"), DType::f32);
  EXPECT_FALSE(parse_dtype("f8").has_value());
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
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
