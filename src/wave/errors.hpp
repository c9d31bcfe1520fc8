// Errors of the WAVE layer. IrError: a module that is malformed (builder misuse, a verifier
// finding, unparsable text). KernelError: a fault while a kernel runs on the emulator, with
// the kernel's source line, the workgroup and the lane in its message.
#pragma once

#include <stdexcept>
#include <string>

namespace wavestack::wave {

class IrError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KernelError : public std::runtime_error {
 public:
  KernelError(const std::string& message, uint32_t line) : std::runtime_error(message), line_(line) {}
  [[nodiscard]] uint32_t line() const noexcept { return line_; }

 private:
  uint32_t line_;
};

// The launch was stopped from outside (LaunchConfig::stop): Ctrl-C or a timeout. The caller
// that set the flag knows which and reports it; the message only names the kernel.
class LaunchStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A kernel uses a construct the native cpu device does not run yet (cpp_emitter.hpp). Python
// sees a NotImplementedError naming the construct; the emulator runs such kernels.
class UnsupportedOnCpu : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A launch ran past its time budget (`timeout=`). Python sees a TimeoutError.
class LaunchTimeout : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wavestack::wave
