// The one exception type of the decomposition core. It carries cuDecomp's result code so the
// C API can return it and the Python package can raise cudecomp.CudecompError with it.
#pragma once

#include <stdexcept>
#include <string>

#include "cudecomp.h"

namespace wavestack::decomp {

class DecompError : public std::runtime_error {
 public:
  DecompError(cudecompResult_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudecompResult_t code() const noexcept { return code_; }

 private:
  cudecompResult_t code_;
};

// Bad argument: the message starts with the argument's name.
[[noreturn]] inline void invalid_argument(const std::string& argument, const std::string& why) {
  throw DecompError(CUDECOMP_RESULT_INVALID_USAGE, argument + ": " + why);
}

[[noreturn]] inline void not_supported(const std::string& what) {
  throw DecompError(CUDECOMP_RESULT_NOT_SUPPORTED, what);
}

// Checks the return code of an MPI call; the message names the call.
void check_mpi(int status, const char* call);

}  // namespace wavestack::decomp
