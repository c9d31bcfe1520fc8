// The device interpreter compiled as C++ for the `cpu` device: the same .glsl files the
// Vulkan shader is built from, included after the prelude, with buffer accessors that read
// one instance's slices through plain pointers.
#pragma once

#include <cstdint>

namespace wavestack::wasm {

struct CpuInstanceView {
  const std::uint32_t* program = nullptr;
  std::uint32_t* state = nullptr;   // this instance's state slice
  std::uint32_t* memory = nullptr;  // this instance's memory slice
};

// Starts a call of `function`; its arguments are already in value-stack slots 0 .. params.
void cpu_begin_call(const CpuInstanceView& view, std::uint32_t function);

// Runs at most `quantum` records and about `budget` units of loop work of the current call;
// returns the instance's status.
std::uint32_t cpu_run(const CpuInstanceView& view, std::uint32_t quantum, std::uint32_t budget);

// Whether this thread's floating-point environment is the default one the host IEEE fast path
// needs (round to nearest even, subnormals kept: no FTZ/DAZ). Always true with soft floats.
[[nodiscard]] bool cpu_float_environment_is_default();

// Makes the instance's pending WASI call (STATUS_WASI) to its end; returns the new status.
// Compiled mode calls this between its units' runs, as cpu_run does between quanta.
std::uint32_t cpu_wasi_service(const CpuInstanceView& view);

}  // namespace wavestack::wasm
