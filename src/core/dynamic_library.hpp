#pragma once
// One entry point of a library opened with dlopen (cuBLAS, cuDNN: libraries assay loads at run
// time so that the binary starts where they are missing).
#include <dlfcn.h>

#include <string>

#include <initializer_list>

namespace assay {

// The first of `names` (sonames or paths) that dlopen opens (RTLD_NOW | RTLD_LOCAL); null when
// none does, with `error` = "<first name> not found: <dlerror>".
inline void* open_library(std::initializer_list<const char*> names, std::string& error) {
  for (const char* n : names)
    if (void* lib = dlopen(n, RTLD_NOW | RTLD_LOCAL)) return lib;
  const char* why = dlerror();
  error = std::string(*names.begin()) + " not found: " + (why ? why : "unknown dlopen error");
  return nullptr;
}

// Sets `fn` to `name` in `lib`; where it is missing, the first such miss becomes `error`
// ("<file> lacks <name>"), which the caller reports as the library's unavailable reason.
template <class T>
void resolve_symbol(void* lib, T& fn, const char* name, const std::string& file, std::string& error) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
  if (!fn && error.empty()) error = file + " lacks " + name;
}

}  // namespace assay
