// One side of a comparison: the results documents (sessions) that a command-line argument
// names. The argument is a results file (JSON, or xz-compressed JSON as the records under
// bench/results), a folder of them (for instance the session folder of `assay run --repeat N`),
// or a tag or commit looked up in the history database.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/results.hpp"

namespace assay::store {

// The schema name of the combined summary that `--repeat` writes beside its sessions; folders
// skip files of this schema.
inline constexpr const char* kSessionsSchemaName = "assay.sessions";

// The results document in `text`, or nothing when it is a summary of sessions. The text is parsed
// once as a results document; only a document that fails is looked at as a summary. Throws the
// parser's InputError (naming `origin`) when it is neither.
std::optional<ResultsDocument> parse_document_or_summary(const std::string& text, const std::string& origin);

// The results documents directly in `dir` (store::has_document_name), in name order, with their
// paths; summaries of sessions skipped. Every loader of a folder reads it through this.
std::vector<std::pair<std::string, ResultsDocument>> documents_in_folder(const std::filesystem::path& dir);

struct RunSet {
  std::string label;   // the argument as given
  std::string origin;  // where the documents came from, for humans
  std::vector<ResultsDocument> sessions;
};

// Throws InputError (exit 3) with one line naming the argument when it cannot be resolved or a
// file is not a valid results document. Reads the history read-only.
RunSet load_run_set(const std::string& argument, const std::string& history_path);

}  // namespace assay::store
