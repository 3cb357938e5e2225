#include "core/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"

namespace assay {

namespace fs = std::filesystem;

fs::path temp_parent() {
  if (const char* s = std::getenv(kCaseScratchEnv); s && *s) {
    std::error_code ec;
    if (fs::is_directory(s, ec)) return s;
  }
  return fs::temp_directory_path();
}

TempDir::TempDir(const std::string& prefix, const fs::path& parent) {
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    throw InternalError("cannot create a temporary folder in " + parent.string() + ": " + std::strerror(errno));
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace assay
