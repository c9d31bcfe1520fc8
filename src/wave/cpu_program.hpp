// A kernel on the native cpu device: its WAVE IR compiled to host machine code (cpp_emitter.hpp,
// cpu_kernel_build.hpp) and launched over runtime::ThreadPool, with the emulator's launch
// checks and KernelError messages. Workgroups run in contiguous chunks, a workgroup's threads
// in order; `deterministic` runs every workgroup in order on the calling thread.
#pragma once

#include <span>
#include <string>

#include "wave/cpu_abi.hpp"
#include "wave/emulator.hpp"

namespace wavestack::wave {

class CpuProgram {
 public:
  // Verifies and compiles (or loads the cached object). Throws UnsupportedOnCpu for a kernel
  // using what the cpu device does not run yet, std::runtime_error when there is no compiler.
  CpuProgram(Module module, bool bounds_checks);

  [[nodiscard]] const Module& module() const noexcept { return module_; }
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  [[nodiscard]] bool from_cache() const noexcept { return from_cache_; }
  [[nodiscard]] double compile_seconds() const noexcept { return compile_seconds_; }

  // As Program::launch: checks first (InvalidArgument), buffers updated in place, faults
  // raise KernelError, the stop flag LaunchStopped (checked between workgroups and at loop
  // back-edges).
  void launch(std::span<const Argument> arguments, const LaunchConfig& config) const;

 private:
  Module module_;
  std::string source_;
  cpu_abi::KernelEntry entry_ = nullptr;
  bool from_cache_ = false;
  double compile_seconds_ = 0;
};

}  // namespace wavestack::wave
