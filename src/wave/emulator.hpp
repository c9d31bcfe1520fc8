// The WAVE emulator: runs a Module on the CPU, one whole wave per instruction.
//
// Program lowers the statement tree once into linear code with explicit mask operations;
// launch() runs the workgroups spread over runtime::ThreadPool (or in order on the calling
// thread when deterministic). Faults (out-of-bounds access, divergent barrier, deadlock,
// integer division by zero) throw KernelError with the kernel line, workgroup and lane.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

#include "wave/ir.hpp"

namespace wavestack::wave {

struct LaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};       // workgroups per dimension
  std::array<uint32_t, 3> workgroup{1, 1, 1};  // threads per workgroup per dimension
  uint32_t wave_width = 32;                    // lanes per wave: a power of two, 1..64
  bool deterministic = false;                  // one thread, workgroups in order
  // Threads whose global id reaches limit[d] in any dimension are not launched: they take no
  // part in barriers or wave operations (the padding of the last workgroup of `dim=n`).
  std::array<uint32_t, 3> limit{UINT32_MAX, UINT32_MAX, UINT32_MAX};
  // Polled between scheduling steps and at every loop back-edge: non-zero stops the launch
  // with LaunchStopped (Ctrl-C, a timeout). nullptr: never stopped.
  const std::atomic<int>* stop = nullptr;
};

struct BufferArgument {
  void* data = nullptr;
  int64_t length = 0;  // elements
  ScalarType element = ScalarType::F32;
};

struct Argument {
  bool is_buffer = false;
  BufferArgument buffer;
  Value scalar{};  // read through the parameter's declared type
};

// Checks every argument and the configuration against `module` (InvalidArgument naming the
// culprit): what every device's launch checks before it runs anything.
void check_launch(const Module& module, std::span<const Argument> arguments, const LaunchConfig& config);

struct LoweredCode;

class Program {
 public:
  explicit Program(Module module);
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  [[nodiscard]] const Module& module() const noexcept { return module_; }
  // Checks every argument and the configuration (InvalidArgument naming the culprit) before
  // running anything; buffers are read and written in place.
  void launch(std::span<const Argument> arguments, const LaunchConfig& config) const;

 private:
  Module module_;
  std::unique_ptr<LoweredCode> code_;
};

}  // namespace wavestack::wave
