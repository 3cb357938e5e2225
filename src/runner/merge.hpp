#pragma once
// Combines the results of the shards of one suite (`--shard i/n` on several hosts or
// devices) into one document.
#include <string>
#include <vector>

#include "core/results.hpp"

namespace assay::runner {

// Throws InputError when the documents come from different suites (suite hash), when a case
// appears twice, or when there is nothing to merge. Baseline ratios are recomputed.
ResultsDocument merge_documents(const std::vector<ResultsDocument>& docs, const std::vector<std::string>& origins,
                                const std::vector<std::string>& command_line);

// The results documents named by `inputs`: files, or folders whose *.json files are read.
std::vector<std::pair<std::string, ResultsDocument>> load_documents(const std::vector<std::string>& inputs);

}  // namespace assay::runner
