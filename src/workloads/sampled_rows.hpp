#pragma once
// Helpers shared by the workloads: the rows an oracle checks, and parameter validation.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "workloads/workload.hpp"

namespace assay {

// All rows when sampled <= 0 or >= rows; else `sampled` rows evenly spread, first and last
// included, so that the edge tiles of both ends are covered.
std::vector<std::int64_t> pick_rows(std::int64_t rows, std::int64_t sampled);

// The value of a required parameter in [lo, hi]; InputError naming the workload and parameter.
std::int64_t require_param(const Params& p, const char* workload, const char* name, std::int64_t lo, std::int64_t hi);
void reject_unknown_params(const Params& p, const char* workload, std::initializer_list<const char*> known);
// Throws InputError when any rows x cols tensor of `dtype` would overflow 2^62 bytes.
void checked_bytes(const char* workload, std::initializer_list<std::pair<std::int64_t, std::int64_t>> shapes,
                   DType dtype);

}  // namespace assay
