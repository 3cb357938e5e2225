#pragma once
// Errors carry the exit code that DESIGN.md assigns to their kind, so that every
// subcommand turns them into the same exit status and a single clear line.
#include <stdexcept>
#include <string>

namespace assay {

enum class ExitCode : int {
  ok = 0,
  check_failed = 1,  // a correctness check failed (or, later, a regression was found)
  skipped = 2,       // nothing could run here, e.g. no CUDA device
  bad_input = 3,     // bad usage or a bad input file
  internal = 4,      // an internal or infrastructure error
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Bad usage or bad input: the message names the file, line and field where it can.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message) : Error(ExitCode::bad_input, message) {}
};

class InternalError : public Error {
 public:
  explicit InternalError(const std::string& message) : Error(ExitCode::internal, message) {}
};

// A GPU fault that leaves the CUDA context unusable (illegal address, trap, illegal
// instruction): the case that caused it is `crashed`, and only a new process can use the GPU.
class DeviceFault : public InternalError {
 public:
  using InternalError::InternalError;
};

// The case (or the whole run) cannot run on this machine; not a failure of the user.
class SkipError : public Error {
 public:
  explicit SkipError(const std::string& message) : Error(ExitCode::skipped, message) {}
};

}  // namespace assay
