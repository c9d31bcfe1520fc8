// Lane groups: the cpu device's way to run several instances' loops at once on one core.
//
// A loop whose body is one chain of dependent operations (an f64 recurrence: a square root,
// a divide) runs at the chain's latency, however well it is compiled: the core's other
// execution units idle. A GPU hides that latency with its lanes; the cpu device does the same
// by running a group of kCpuLaneGroupSize instances that are at the same block through that
// block in turn, lane after lane, so the core's out-of-order window overlaps their chains.
//
// For each run of a unit (unit_codegen.cpp) that holds a loop of lane blocks
// (block_codegen.hpp: full blocks that stay in their frame) with long-latency instructions
// (floating-point arithmetic, integer division: loops without them keep a core busy alone and
// measured slower grouped), this generates, as C++ members of
// the unit's context (cpu device only; Vulkan shaders never include it):
//   struct lane_locals<B>                 the run's locals of one lane, as variables
//   lane_load<B>, lane_spill<B>           from and to the lane's frame
//   lane_block<ID>(r, credit, locals)     one lane block, the same lowering as its full block
//   lane_group<B>(lanes, regs, counts)    the group's loop: while every lane is at the same
//                                         lane block of the run, running and with the
//                                         block's records in its credit, each lane runs it
// and compiled_unit_group_step, which selects the group run of the block the lanes are at (or
// does nothing). The group stops as soon as the lanes' control differs or any one needs what
// only the single path does (a call, a return, a prefix, a yield); the caller then continues
// each lane alone (compiled_lane_group.hpp), so every lane's effects, fuel and traps are
// exactly its own run's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/module/program.hpp"

namespace wavestack::wasm::compiler {

// The lanes of a group: the cpu device's group entry (compiled_lane_group.hpp) takes this many
// instances. Four covers a chain's latency on current cores (an f64 divide or square root
// takes 13 to 20 cycles; the operations around it a few more each).
inline constexpr std::uint32_t kCpuLaneGroupSize = 4;

struct LaneGroupSource {
  // The unit's lane group runs and compiled_unit_group_step (which does nothing in a unit
  // without one).
  std::string text;
  // The block ids of each grouped run, [first, end): a call whose function's entry block is in
  // none of them would only find its lanes apart, so the host runs it alone.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
};
[[nodiscard]] LaneGroupSource generate_lane_groups(const Program& program, const Unit& unit);

// generate_lane_groups(program, unit).runs without generating any text (a unit loaded from the
// disk cache needs its grouped runs, not its source).
[[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> lane_group_runs(const Program& program,
                                                                                   const Unit& unit);

}  // namespace wavestack::wasm::compiler
