#include "graph/types.hpp"

#include <stdexcept>

namespace assay::graph {

std::string_view elem_name(ElemType t) {
  switch (t) {
    case ElemType::f32: return "f32";
    case ElemType::f16: return "f16";
    case ElemType::bf16: return "bf16";
    case ElemType::i64: return "i64";
    case ElemType::boolean: return "bool";
  }
  return "?";
}

std::size_t elem_size(ElemType t) {
  switch (t) {
    case ElemType::f32: return 4;
    case ElemType::f16:
    case ElemType::bf16: return 2;
    case ElemType::i64: return 8;
    case ElemType::boolean: return 1;
  }
  return 0;
}

Shape::Shape(std::initializer_list<std::int64_t> d) {
  if (d.size() > kMaxRank) throw std::length_error("shape of rank " + std::to_string(d.size()) + " (at most 8)");
  for (auto x : d) push_back(x);
}

Dims::Dims(std::initializer_list<int> d) {
  if (d.size() > kMaxRank) throw std::length_error("dim list of length " + std::to_string(d.size()) + " (at most 8)");
  for (int x : d) v[static_cast<std::size_t>(n++)] = x;
}

Dims::Dims(const std::vector<int>& d) {
  if (d.size() > kMaxRank) throw std::length_error("dim list of length " + std::to_string(d.size()) + " (at most 8)");
  for (int x : d) v[static_cast<std::size_t>(n++)] = x;
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= (*this)[i];
  return n;
}

std::int64_t Shape::outer(int inner) const {
  std::int64_t n = 1;
  for (int i = 0; i < rank - inner; ++i) n *= (*this)[i];
  return n;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if ((*this)[i] != o[i]) return false;
  return true;
}

std::string to_string(const Shape& s) {
  std::string out = "[";
  for (int i = 0; i < s.rank; ++i) (out += (i ? "," : "")) += std::to_string(s[i]);
  return out + "]";
}

std::string to_string(const Site& s) {
  std::string_view file = s.file;
  if (s.line == 0) return std::string(file.empty() ? "<unknown>" : file);
  if (const auto slash = file.rfind('/'); slash != std::string_view::npos) file.remove_prefix(slash + 1);
  return std::string(file) + ":" + std::to_string(s.line);
}

}  // namespace assay::graph
