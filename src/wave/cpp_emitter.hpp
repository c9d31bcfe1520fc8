// The WAVE IR as C++ for the native cpu device: one function (cpu_abi.hpp's KernelEntry) that
// runs a range of workgroups, each thread of a workgroup in turn, with the emulator's semantics
// through the helpers of cpu_preamble.cpp. Registers become local variables, structured control
// flow becomes C++'s; faults are returned as codes, never thrown (the code has no unwind tables).
#pragma once

#include <cstdint>
#include <string>

#include "wave/ir.hpp"

namespace wavestack::wave {

struct CppTarget {
  bool bounds_checks = true;  // false: loads and stores skip the index check (check_index stays)
};

// Whether the kernel runs in workgroup mode (shared arrays or barriers): a workgroup's lanes as
// loops between barriers, registers in per-lane arrays in the chunk's scratch memory.
[[nodiscard]] bool uses_workgroup_mode(const Module& module);
// The scratch bytes a chunk needs for workgroups of `group_threads` threads (0 outside
// workgroup mode): registers (8 bytes per lane each), lane states, shared arrays.
[[nodiscard]] uint64_t workgroup_scratch_bytes(const Module& module, uint32_t group_threads);

// The translation unit (to compile after cpu_preamble()). Throws UnsupportedOnCpu naming the
// first construct it cannot place (none of the verified IR the frontend builds; a guard).
[[nodiscard]] std::string emit_cpp(const Module& module, const CppTarget& target);

}  // namespace wavestack::wave
