#pragma once
// Element types of workload tensors, and exact host conversions for the 16- and 8-bit
// floating types so that CPU builds (no CUDA headers) can make and read them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace assay {

// f8e4m3 is OCP FP8 E4M3 "fn" (CUDA's __nv_fp8_e4m3): bias 7, max finite 448, no infinities.
enum class DType { f32, f16, bf16, f8e4m3 };

std::string_view dtype_name(DType t);                 // "f32", "f16", "bf16", "f8e4m3"
// Also accepts fp32/fp16/float16/bfloat16 and fp8/e4m3/float8_e4m3fn.
std::optional<DType> parse_dtype(std::string_view s);
std::size_t dtype_size(DType t);

// IEEE binary16 and bfloat16 from float: round to nearest, ties to even; NaN stays NaN.
std::uint16_t float_to_f16_bits(float x);
float f16_bits_to_float(std::uint16_t h);
std::uint16_t float_to_bf16_bits(float x);
float bf16_bits_to_float(std::uint16_t b);
// FP8 E4M3 from float: round to nearest, ties to even; NaN stays NaN (0x7f, or 0xff when
// negative). There is no infinity to round to, so a magnitude above 448 (±inf included)
// saturates to ±448, as CUDA's __NV_SATFINITE conversion does.
std::uint8_t float_to_e4m3_bits(float x);
float e4m3_bits_to_float(std::uint8_t b);

// Reads element i of a buffer of type t as a double.
double load_as_double(DType t, const std::byte* data, std::size_t i);
// Stores x (rounded to type t) at element i.
void store_from_float(DType t, std::byte* data, std::size_t i, float x);

}  // namespace assay
