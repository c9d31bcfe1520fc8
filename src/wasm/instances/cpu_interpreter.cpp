#include "wasm/instances/cpu_interpreter.hpp"

#include "wasm/device/interpreter_layout.hpp"
#include "wasm/device/numerics.hpp"

namespace wavestack::wasm::device {
namespace {

// The buffers of the instance this thread is running. Device code reaches buffers only
// through the accessors below (GLSL: storage buffer arrays indexed from the instance's base).
thread_local CpuInstanceView current;

uint prog(uint i) {
  return current.program[i];
}
uint st_get(uint i) {
  return current.state[i];
}
void st_set(uint i, uint v) {
  current.state[i] = v;
}
uint mem_get(uint i) {
  return current.memory[i];
}
void mem_set(uint i, uint v) {
  current.memory[i] = v;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
// clang-format off
#include "wasm/device/instance_memory.glsl"
// clang-format on
#pragma GCC diagnostic pop

// clang-format off
#include "wasm/device/wasi_accessors.glsl"
// clang-format on

#include "wasm/device/wasi_library.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
// clang-format off
#include "wasm/device/instance_tables.glsl"
#include "wasm/device/frames.glsl"
#include "wasm/device/bulk.glsl"
#include "wasm/device/interpreter.glsl"
#include "wasm/device/interpreter_wasi.glsl"
// clang-format on
#pragma GCC diagnostic pop

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasm {

void cpu_begin_call(const CpuInstanceView& view, std::uint32_t function) {
  device::current = view;
  device::begin_call(function);
}

static_assert(CpuCallStart::kWords == device::S_CONTROL_WORDS);

CpuCallStart cpu_call_start(const std::uint32_t* program, std::uint32_t function, std::optional<std::uint64_t> fuel) {
  // The start runs on two scratch copies of the control words, one all zeros and one all
  // ones: a word it writes ends equal in both (nothing it writes depends on what was there),
  // a word it leaves alone differs. So the template follows frames.glsl's begin_call whatever
  // that writes, without a second list of its words here.
  std::array<std::array<std::uint32_t, CpuCallStart::kWords>, 2> scratch{};
  scratch[1].fill(0xFFFFFFFFu);
  for (auto& words : scratch) {
    words[device::S_FUEL_LIMITED] = fuel ? 1u : 0u;
    words[device::S_FUEL] = static_cast<std::uint32_t>(fuel.value_or(0));
    words[device::S_FUEL + 1] = static_cast<std::uint32_t>(fuel.value_or(0) >> 32);
    cpu_begin_call({program, words.data(), nullptr}, function);
  }
  CpuCallStart start;
  for (std::size_t w = 0; w < CpuCallStart::kWords; ++w) {
    const bool written = scratch[0][w] == scratch[1][w];
    start.words[w] = written ? scratch[0][w] : 0u;
    start.keep[w] = written ? 0u : 0xFFFFFFFFu;
  }
  return start;
}

bool cpu_float_environment_is_default() {
#if defined(WASM_HOST_IEEE)
  return device::host_ieee_environment_is_default();
#else
  return true;
#endif
}

std::uint32_t cpu_wasi_service(const CpuInstanceView& view) {
  device::current = view;
  return device::interp_wasi_service(0xFFFFFFFFu, device::interp_wasi_pending_id());
}

std::uint32_t cpu_run(const CpuInstanceView& view, std::uint32_t quantum, std::uint32_t budget) {
  device::current = view;
  // WASI calls are serviced as they come, within the same quantum (no loop limits here: a
  // resumable call runs to its end in one service).
  const auto executed = [&] {
    return std::uint64_t{view.state[device::S_EXECUTED]} | (std::uint64_t{view.state[device::S_EXECUTED + 1]} << 32);
  };
  const std::uint64_t start = executed();
  std::uint32_t status = device::interp_run(quantum, budget);
  while (status == device::STATUS_WASI) {
    status = cpu_wasi_service(view);
    const std::uint64_t used = executed() - start;
    if (status != device::STATUS_RUNNING || used >= quantum) break;
    status = device::interp_run(quantum - static_cast<std::uint32_t>(used), budget);
  }
  return status;
}

}  // namespace wavestack::wasm
