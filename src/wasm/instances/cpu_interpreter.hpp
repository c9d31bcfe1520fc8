// The device interpreter compiled as C++ for the `cpu` device: the same .glsl files the
// Vulkan shader is built from, included after the prelude, with buffer accessors that read
// one instance's slices through plain pointers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace wavestack::wasm {

struct CpuInstanceView {
  const std::uint32_t* program = nullptr;
  std::uint32_t* state = nullptr;   // this instance's state slice
  std::uint32_t* memory = nullptr;  // this instance's memory slice
};

// Starts a call of `function`; its arguments are already in value-stack slots 0 .. params.
void cpu_begin_call(const CpuInstanceView& view, std::uint32_t function);

// What starting a call writes to an instance's control words besides its arguments: the fuel
// words and the device's begin_call (frames.glsl), which are the same for every instance of
// the call. Made once per call (cpu_call_start), applied per instance with a few vector
// operations instead of the device code's stores through the thread's current view.
struct CpuCallStart {
  static constexpr std::size_t kWords = 24;   // interpreter_layout.glsl's S_CONTROL_WORDS
  std::array<std::uint32_t, kWords> words{};  // the values written (0 where nothing is)
  std::array<std::uint32_t, kWords> keep{};   // all ones where nothing is written: kept as it was

  void apply(std::uint32_t* __restrict state) const {
    for (std::size_t w = 0; w < kWords; ++w) state[w] = (state[w] & keep[w]) | words[w];
  }
};

// The start of a call of `function` with `fuel` (nullopt: unlimited); the caller still writes
// the arguments. Exactly what cpu_begin_call does after the host wrote the fuel words.
[[nodiscard]] CpuCallStart cpu_call_start(const std::uint32_t* program, std::uint32_t function,
                                          std::optional<std::uint64_t> fuel);

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
