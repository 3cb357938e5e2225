#pragma once
#include <filesystem>
#include <string_view>

namespace assay {

// Writes `content` to `path` so that readers see either the old file or the whole new one:
// a temporary file in the same folder, flushed to disk, then renamed over the target.
// Creates missing parent folders. Throws InternalError naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Whole file as a string; throws InputError naming the path when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace assay
