#pragma once
// Identities shared by every layer: the FNV-1a hash (suite hashes, per-case seeds) and the
// canonical "k=1,m=2,n=3" text of a parameter point (case ids, shapes in records and tables).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace assay {

inline std::uint64_t fnv1a64(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Parameters in name order, "name=value" joined by commas.
inline std::string params_string(const std::map<std::string, std::int64_t>& p) {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : ",") + k + "=" + std::to_string(v);
  return s;
}

}  // namespace assay
