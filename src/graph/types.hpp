#pragma once
// The value types of the lazy-tensor graph: element types, shapes and recording sites. All
// are fixed-size and trivially copyable, so that recording a node allocates nothing but the
// node itself (issue 31 item 6 measures the recording cost per op).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

namespace assay::graph {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = 0xffffffffu;
inline constexpr int kMaxRank = 8;

// core's DType has no integer or boolean type; masks and indices need them here.
enum class ElemType : std::uint8_t { f32, f16, bf16, i64, boolean };
std::string_view elem_name(ElemType t);  // "f32", "f16", "bf16", "i64", "bool"
std::size_t elem_size(ElemType t);
inline bool is_floating(ElemType t) { return t == ElemType::f32 || t == ElemType::f16 || t == ElemType::bf16; }

// A shape of rank <= kMaxRank held inline (no heap).
struct Shape {
  std::array<std::int64_t, kMaxRank> dims{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<std::int64_t> d);  // throws std::length_error above kMaxRank
  std::int64_t operator[](int i) const { return dims[static_cast<std::size_t>(i)]; }
  std::int64_t& operator[](int i) { return dims[static_cast<std::size_t>(i)]; }
  std::int64_t numel() const;
  // The product of all but the last `inner` dims (batches of a matmul or attention: not
  // numel / inner sizes, which may be 0).
  std::int64_t outer(int inner) const;
  void push_back(std::int64_t d) { dims[static_cast<std::size_t>(rank++)] = d; }
  bool operator==(const Shape& o) const;
};
std::string to_string(const Shape& s);  // "[2,3]"; a scalar is "[]"

// A list of dims (reduction dims, a permutation) held inline, from a braced list or a vector.
struct Dims {
  std::array<int, kMaxRank> v{};
  int n = 0;

  Dims() = default;
  Dims(std::initializer_list<int> d);     // NOLINT: throws std::length_error above kMaxRank
  Dims(const std::vector<int>& d);        // NOLINT
  int operator[](int i) const { return v[static_cast<std::size_t>(i)]; }
};

// Where an op was recorded: a C++ call site (std::source_location, taken as a default argument
// of every recording function), or a text that a front end passes (Python's "file.py:12"),
// interned by Graph::site() so that it lives as long as the graph.
struct Site {
  const char* file = "";
  const char* function = "";
  std::uint32_t line = 0;

  Site() = default;
  Site(std::source_location loc) : file(loc.file_name()), function(loc.function_name()), line(loc.line()) {}  // NOLINT
};
// "file:line" with the file's folders dropped, or the front end's text as given.
std::string to_string(const Site& s);

}  // namespace assay::graph
