#include "workloads/sampled_rows.hpp"

#include <set>

#include "core/error.hpp"

namespace assay {

std::vector<std::int64_t> pick_rows(std::int64_t rows, std::int64_t sampled) {
  std::vector<std::int64_t> out;
  if (sampled <= 0 || sampled >= rows) {
    for (std::int64_t i = 0; i < rows; ++i) out.push_back(i);
    return out;
  }
  std::set<std::int64_t> picked;
  for (std::int64_t r = 0; r < sampled; ++r) picked.insert(sampled == 1 ? 0 : r * (rows - 1) / (sampled - 1));
  return {picked.begin(), picked.end()};
}

std::int64_t require_param(const Params& p, const char* workload, const char* name, std::int64_t lo, std::int64_t hi) {
  const auto it = p.find(name);
  if (it == p.end()) throw InputError(std::string(workload) + ": parameter '" + name + "' is missing");
  if (it->second < lo || it->second > hi)
    throw InputError(std::string(workload) + ": parameter '" + name + "' = " + std::to_string(it->second) +
                     " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return it->second;
}

void reject_unknown_params(const Params& p, const char* workload, std::initializer_list<const char*> known) {
  for (const auto& [key, value] : p) {
    bool ok = false;
    std::string list;
    for (const char* k : known) {
      ok = ok || key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!ok) throw InputError(std::string(workload) + ": unknown parameter '" + key + "' (" + workload + " takes " + list + ")");
  }
}

void checked_bytes(const char* workload, std::initializer_list<std::pair<std::int64_t, std::int64_t>> shapes,
                   DType dtype) {
  for (const auto& [r, c] : shapes) {
    std::uint64_t n, bytes;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(c), &n) ||
        __builtin_mul_overflow(n, dtype_size(dtype), &bytes) || bytes > (1ull << 62))
      throw InputError(std::string(workload) + ": a " + std::to_string(r) + " x " + std::to_string(c) +
                       " tensor overflows");
  }
}

}  // namespace assay
