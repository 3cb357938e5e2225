// Reading results documents from files: plain JSON, or compressed with xz as the results of
// record under bench/results are (`*.json.xz`), so that `assay compare`, `sessions`, `merge` and
// `report` take a record as it is committed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/results.hpp"

namespace assay::store {

// The schema name of the combined summary that `run --repeat` and `sessions` write beside the
// sessions; folders of results documents skip files of this schema, whatever their name.
inline constexpr const char* kSessionsSchemaName = "assay.sessions";

// The whole file as text; a file that starts with xz's magic bytes (whatever its name) is
// decompressed. Throws InputError naming the file when it cannot be read, is not a whole valid
// xz stream (truncated, corrupt) or decompresses to more than 1 GiB.
std::string read_document_text(const std::filesystem::path& path);

// Whether a file in a folder of results documents is one by its name: `*.json` or `*.json.xz`.
bool has_document_name(const std::filesystem::path& path);

// What makes two documents the same session (a file and its copy, or X.json beside the X.json.xz
// that `xz -dk` keeps): the whole document, not its host and start time, whose one-second
// resolution two sessions of `run --repeat` can share. Equal keys: the same session.
std::string session_identity(const ResultsDocument& doc);

// The results document in `text`, or nothing when it is a summary of sessions. The text is parsed
// once as a results document; only a document that fails is looked at as a summary. Throws the
// parser's InputError (naming `origin`) when it is neither.
std::optional<ResultsDocument> parse_document_or_summary(const std::string& text, const std::string& origin);

// The results documents directly in `dir` (by has_document_name), in name order, with their
// paths; summaries of sessions skipped. Every loader of a folder reads it through this.
std::vector<std::pair<std::string, ResultsDocument>> documents_in_folder(const std::filesystem::path& dir);

}  // namespace assay::store
