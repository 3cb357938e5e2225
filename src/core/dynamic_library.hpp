#pragma once
// One entry point of a library opened with dlopen (cuBLAS, cuDNN: libraries assay loads at run
// time so that the binary starts where they are missing).
#include <dlfcn.h>

#include <string>

namespace assay {

// Sets `fn` to `name` in `lib`; where it is missing, the first such miss becomes `error`
// ("<file> lacks <name>"), which the caller reports as the library's unavailable reason.
template <class T>
void resolve_symbol(void* lib, T& fn, const char* name, const std::string& file, std::string& error) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
  if (!fn && error.empty()) error = file + " lacks " + name;
}

}  // namespace assay
