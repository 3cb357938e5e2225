#pragma once
// Private temporary folders, removed with everything in them.
//
// A worker that is killed (its case timed out, or it crashed) runs no destructor, so the folders
// its adapters made for their tensor files would stay in /tmp: each case's inputs, gigabytes at
// long sequences. The runner therefore makes one folder per worker, names it to the worker in
// ASSAY_CASE_SCRATCH, and removes it after the worker has ended, however it ended; the worker's
// own folders go inside it (temp_parent).
#include <filesystem>
#include <string>

namespace assay {

inline constexpr const char* kCaseScratchEnv = "ASSAY_CASE_SCRATCH";

// Where a temporary folder of this process goes: ASSAY_CASE_SCRATCH when it names a folder,
// else the system's temporary folder (TMPDIR, else /tmp).
std::filesystem::path temp_parent();

class TempDir {
 public:
  // A new folder `prefix` + 6 random characters under `parent` (mode 0700). Throws
  // InternalError naming the folder when it cannot be made.
  explicit TempDir(const std::string& prefix, const std::filesystem::path& parent = temp_parent());
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace assay
