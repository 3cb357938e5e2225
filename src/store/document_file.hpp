// Reading results documents from files: plain JSON, or compressed with xz as the results of
// record under bench/results are (`*.json.xz`), so that `assay compare`, `sessions`, `merge` and
// `report` take a record as it is committed.
#pragma once

#include <filesystem>
#include <string>

#include "core/results.hpp"

namespace assay::store {

// The whole file as text; a file that starts with xz's magic bytes (whatever its name) is
// decompressed. Throws InputError naming the file when it cannot be read, is not a whole valid
// xz stream (truncated, corrupt) or decompresses to more than 1 GiB.
std::string read_document_text(const std::filesystem::path& path);

// Whether a file in a folder of results documents is one by its name: `*.json` or `*.json.xz`.
bool has_document_name(const std::filesystem::path& path);

// What makes two documents the same session (a file and its copy, or X.json beside the X.json.xz
// that `xz -dk` keeps): the whole document, not its host and start time, whose one-second
// resolution two sessions of `run --repeat` can share. Equal keys: the same session. The key is a
// digest of the serialised document (its length and two independent 64-bit hashes), not the text:
// a folder of multi-MB sessions is not held twice in memory.
std::string session_identity(const ResultsDocument& doc);

}  // namespace assay::store
