// How the cpu device builds its units (WAVESTACK_WASM_CPU_TIERS): the tier every unit is first
// built at, and optionally the tier a unit is rebuilt at, in the background, once it is hot.
//   baseline   machine code straight from the blocks (src/wasm/baseline: microseconds per unit,
//              x86-64 only; never cached, never a hot tier)
//   fast       the in-process compiler, fast level (src/jit: milliseconds per unit)
//   optimized  the in-process compiler, LLVM's -O3
//   host       the host's C++ compiler, as a process per unit (cpu_toolchain.hpp)
// Written "first" or "first,hot" ("fast,host"). The default is the fastest start with the
// fastest code: "baseline,optimized" on x86-64 ("baseline,host" without the in-process
// compiler), elsewhere "fast,optimized" ("host" without it).
// (LLVM's -O3 code matched the host's GCC on bench/wasmgpu.py's workloads, within 10% either
// way and a third faster on fib, at about the same build time: docs/PERFORMANCE.md.)
// Every tier but the baseline compiles the same unit text, and the baseline runs the same
// device library around its blocks, so their results, fuel and traps are the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wavestack::wasm::compiler {

enum class CpuTier : std::uint8_t { kBaseline, kFast, kOptimized, kHost };

struct CpuTierPlan {
  CpuTier first = CpuTier::kHost;
  std::optional<CpuTier> hot;  // rebuilt at this tier once hot (never the same as first)
  // The tier a unit's prefixes are built at (compiled from text: the first tier, or for a
  // baseline plan the fast tier where the in-process compiler is available, else the host's).
  CpuTier prefixes = CpuTier::kHost;
  // Whether the units a built unit's blocks continue in are built ahead of need, on the build
  // pool (WAVESTACK_WASM_BUILD_AHEAD: "on", the default, or "off"; never for a baseline first tier).
  bool ahead = true;
};

[[nodiscard]] const char* cpu_tier_name(CpuTier tier);
[[nodiscard]] bool cpu_tier_is_in_process(CpuTier tier);
// Whether `tier` builds with the in-process C++ compiler (src/jit): fast and optimized.
[[nodiscard]] bool cpu_tier_needs_jit(CpuTier tier);

// `value`: the variable's text (null or empty: the default for `jit_available`). Throws
// runtime::InvalidArgument naming the variable for an unknown tier, a repeated one, more than
// two, or an in-process tier when `jit_available` is false (with `why_no_jit` as the reason).
[[nodiscard]] CpuTierPlan cpu_tier_plan(const char* value, bool jit_available, const std::string& why_no_jit = {});
// The plan from the environment, for this process's in-process compiler.
[[nodiscard]] CpuTierPlan cpu_tier_plan_from_environment();

}  // namespace wavestack::wasm::compiler
