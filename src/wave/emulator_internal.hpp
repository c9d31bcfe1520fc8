// Internals of the emulator shared by lowering, the instruction handlers and the scheduler.
//
// Lowered code is a flat array of LInstr. Compute instructions carry a handler chosen once
// per (opcode, type), which loops over the lanes of the wave; control instructions update
// the active-lane mask and a mask stack whose slots are fixed at lowering (structured
// control flow makes the stack depth at every instruction static).
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wave/emulator.hpp"

namespace wavestack::wave {

struct WaveCtx;
struct LInstr;
using Handler = void (*)(WaveCtx&, const LInstr&);

enum class Control : uint8_t {
  Compute,
  If,
  Else,
  EndIf,
  LoopBegin,
  Continuing,
  LoopEnd,
  Break,
  Continue,
  Return,
  Barrier,
  End,
};

struct LInstr {
  Handler fn = nullptr;
  Control kind = Control::Compute;
  uint32_t dst = 0, a = 0, b = 0, c = 0;
  uint32_t slot = 0;    // mask-stack slot (if: 1 slot; loop: break at slot, continue at slot + 1)
  uint32_t target = 0;  // jump target of control instructions
  uint32_t skip = 0;    // where to go when no lane is left active
  uint32_t mem = 0;     // memory slot: buffers first, then shared arrays
  uint32_t dim = 0;
  uint32_t line = 0;
  MemRef ref;  // for messages
  Value imm{};
};

struct LoweredCode {
  std::vector<LInstr> code;
  uint32_t stack_depth = 0;
  // Registers some path may read before writing them: zeroed at the start of every
  // workgroup so results never depend on which workgroup a thread ran before.
  std::vector<uint32_t> maybe_unset;
};

struct MemoryView {
  std::byte* data = nullptr;
  int64_t length = 0;
};

// Launch-wide facts every wave reads.
struct Geometry {
  uint32_t grid[3];
  uint32_t workgroup[3];
  uint32_t width;
  uint32_t group_threads;
  bool one_dimensional;          // workgroup (n, 1, 1): the local x index is the linear index
  uint32_t limit[3];             // threads with a global id at or past it are not launched
  const std::atomic<int>* stop;  // non-zero: stop the launch (never null)
};

struct WaveCtx {
  Value* regs = nullptr;      // register r, lane l at regs[r * width + l]
  uint64_t* stack = nullptr;  // mask stack
  MemoryView* mems = nullptr;
  const Geometry* geo = nullptr;
  const Module* module = nullptr;
  uint32_t width = 32;
  uint64_t all_lanes = 0;  // a full wave
  uint64_t launched = 0;   // lanes that exist in this wave
  uint64_t active = 0;
  uint64_t returned = 0;
  uint32_t wave_index = 0;
  uint32_t group[3] = {0, 0, 0};
  uint32_t pc = 0;
  uint32_t barrier_pc = 0;
};

// The lanes of register r: `width` values of its type, packed. A register is only ever
// accessed through its own type (and zeroed with memset), so the packed view is safe.
template <class T>
inline T* lanes(WaveCtx& w, uint32_t r) noexcept {
  return reinterpret_cast<T*>(w.regs + static_cast<size_t>(r) * w.width);
}

// Runs f(lane) for every active lane; the full-wave case is a plain counted loop.
template <class F>
inline void each_lane(const WaveCtx& w, F&& f) {
  if (w.active == w.all_lanes) {
    if (w.width == 32) {  // the default width: a constant trip count the compiler unrolls
      for (uint32_t lane = 0; lane < 32; ++lane) f(lane);
    } else {
      for (uint32_t lane = 0; lane < w.width; ++lane) f(lane);
    }
  } else {
    for (uint64_t bits = w.active; bits != 0; bits &= bits - 1) f(static_cast<uint32_t>(std::countr_zero(bits)));
  }
}

// Throws KernelError: "kernel 'k', line L: what (workgroup (x, y, z), wave w, lane l, local thread t)".
[[noreturn]] void fault(const WaveCtx& w, uint32_t line, uint32_t lane, const std::string& what);

// The handler of a compute statement (its types are looked up in the module).
[[nodiscard]] Handler select_handler(const Module& module, const Stmt& stmt);
// The handler of a math function of emulator_math.cpp (tanh ... copysign), or nullptr.
[[nodiscard]] Handler select_math_extra(const Module& module, const Stmt& stmt);

// The handler of check_index for an index type (emulator_check_index.cpp); null if not an integer.
[[nodiscard]] Handler select_check_index(ScalarType type);

[[nodiscard]] LoweredCode lower(const Module& module);

}  // namespace wavestack::wave
