// Reading results documents from files: plain JSON, or compressed with xz as the results of
// record under bench/results are (`*.json.xz`), so that `assay compare`, `sessions`, `merge` and
// `report` take a record as it is committed.
#pragma once

#include <filesystem>
#include <string>

namespace assay::store {

// The whole file as text; a file that starts with xz's magic bytes (whatever its name) is
// decompressed. Throws InputError naming the file when it cannot be read, is not a whole valid
// xz stream (truncated, corrupt) or decompresses to more than 1 GiB.
std::string read_document_text(const std::filesystem::path& path);

// Whether a file in a folder of results documents is one by its name: `*.json` or `*.json.xz`.
bool has_document_name(const std::filesystem::path& path);

}  // namespace assay::store
