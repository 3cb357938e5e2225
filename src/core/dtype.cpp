#include "core/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace assay {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::f8e4m3: return "f8e4m3";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "f32" || s == "fp32" || s == "float32") return DType::f32;
  if (s == "f16" || s == "fp16" || s == "float16" || s == "half") return DType::f16;
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "f8e4m3" || s == "fp8" || s == "e4m3" || s == "float8_e4m3fn") return DType::f8e4m3;
  return std::nullopt;
}

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f16:
    case DType::bf16: return 2;
    case DType::f8e4m3: return 1;
  }
  return 0;
}

std::uint16_t float_to_f16_bits(float x) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t abs = f & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);  // NaN
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Subnormal half (or zero): scale so that the half's subnormal step (2^-24) is one unit,
    // then round to nearest even with the float unit's own rounding.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // * 2^24
    const auto mant = static_cast<std::uint32_t>(std::nearbyint(scaled));
    return static_cast<std::uint16_t>(sign | mant);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits to even.
  std::uint32_t h = abs - 0x38000000u;
  const std::uint32_t round_bit = 1u << 12;
  const std::uint32_t rest = h & 0x1fffu;
  h >>= 13;
  if (rest > round_bit || (rest == round_bit && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

float f16_bits_to_float(std::uint16_t hbits) {
  const std::uint32_t sign = (hbits & 0x8000u) << 16;
  const std::uint32_t exp = (hbits >> 10) & 0x1fu;
  const std::uint32_t mant = hbits & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint16_t float_to_bf16_bits(float x) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((f >> 16) | 0x40u);
  const std::uint32_t bias = 0x7fffu + ((f >> 16) & 1u);
  return static_cast<std::uint16_t>((f + bias) >> 16);
}

float bf16_bits_to_float(std::uint16_t b) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

std::uint8_t float_to_e4m3_bits(float x) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(x);
  const auto sign = static_cast<std::uint8_t>((f >> 24) & 0x80u);
  const std::uint32_t abs = f & 0x7fffffffu;
  if (abs > 0x7f800000u) return sign | 0x7fu;                  // NaN
  if (abs > 0x43e00000u) return sign | 0x7eu;                  // above 448: saturate
  if (abs < 0x3c800000u) {
    // Subnormal e4m3 (or zero), below 2^-6: the subnormal step 2^-9 as one unit, rounded to
    // even by the float unit; 8 units carry into the smallest normal code, as they should.
    const float scaled = std::bit_cast<float>(abs) * 512.0f;  // * 2^9
    return sign | static_cast<std::uint8_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent (127 -> 7) and round the 20 dropped mantissa bits to even.
  // At most 448 here, which is a code, so rounding never reaches the NaN code 0x7f.
  std::uint32_t bits = abs - (120u << 23);
  const std::uint32_t half = 1u << 19;
  const std::uint32_t rest = bits & 0xfffffu;
  bits >>= 20;
  if (rest > half || (rest == half && (bits & 1u))) ++bits;
  return sign | static_cast<std::uint8_t>(bits);
}

float e4m3_bits_to_float(std::uint8_t b) {
  const std::uint32_t sign = (b & 0x80u) << 24;
  const std::uint32_t exp = (b >> 3) & 0xfu;
  const std::uint32_t mant = b & 0x7u;
  if (exp == 15 && mant == 7) return std::bit_cast<float>(sign | 0x7fc00000u);  // the only NaN
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 0.001953125f;  // mant * 2^-9
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 120u) << 23) | (mant << 20));
}

double load_as_double(DType t, const std::byte* data, std::size_t i) {
  switch (t) {
    case DType::f32: {
      float v;
      std::memcpy(&v, data + i * 4, 4);
      return v;
    }
    case DType::f16: {
      std::uint16_t h;
      std::memcpy(&h, data + i * 2, 2);
      return f16_bits_to_float(h);
    }
    case DType::bf16: {
      std::uint16_t h;
      std::memcpy(&h, data + i * 2, 2);
      return bf16_bits_to_float(h);
    }
    case DType::f8e4m3: return e4m3_bits_to_float(static_cast<std::uint8_t>(data[i]));
  }
  return std::nan("");
}

void store_from_float(DType t, std::byte* data, std::size_t i, float x) {
  switch (t) {
    case DType::f32: std::memcpy(data + i * 4, &x, 4); return;
    case DType::f16: {
      const std::uint16_t h = float_to_f16_bits(x);
      std::memcpy(data + i * 2, &h, 2);
      return;
    }
    case DType::bf16: {
      const std::uint16_t h = float_to_bf16_bits(x);
      std::memcpy(data + i * 2, &h, 2);
      return;
    }
    case DType::f8e4m3: data[i] = static_cast<std::byte>(float_to_e4m3_bits(x)); return;
  }
}

}  // namespace assay
