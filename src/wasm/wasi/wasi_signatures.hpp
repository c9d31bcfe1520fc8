// The 46 functions of wasi_snapshot_preview1: names, core wasm signatures, and how the device
// library's entry point for each is called (src/wasm/device/wasi_calls_*.glsl). One table for
// import validation at load and for the integrator's dispatch.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

inline constexpr std::string_view kWasiModule = "wasi_snapshot_preview1";

struct WasiSignature {
  std::uint32_t id;          // index in wasi_signatures()
  std::string_view name;     // the import name; the device entry point is wasi_<name>
  std::string_view params;   // one letter per parameter: 'i' = i32, 'I' = i64 (uvec2 on the device)
  std::string_view results;  // "i" (the errno), or "" for proc_exit
  bool takes_now;            // the entry point takes `uvec2 now` (the virtual clock) after them
  bool resumable;            // ... then `uint budget, INOUT(uint) progress` (may return WASI_AGAIN)
  bool advances_clock;       // poll_oneoff: `OUT(uvec2) advance_to` between `now` and `budget`
};

// All 46, in the order of the witx specification's module (ids 0..45).
[[nodiscard]] std::span<const WasiSignature> wasi_signatures();

// The entry for an import name, or nullptr when wasi_snapshot_preview1 has no such function.
[[nodiscard]] const WasiSignature* find_wasi_signature(std::string_view name);

// The core wasm function type of an entry.
[[nodiscard]] FuncType wasi_func_type(const WasiSignature& signature);

}  // namespace wavestack::wasm
