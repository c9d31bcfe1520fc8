// What instance sets need of a compiled module (execution="compiled"): the program image's
// compiled form (jump tables instead of instruction records, block ids instead of pcs) and
// each unit's native code, produced lazily. src/wasm/compiler implements it (that library
// depends on this one, so the instance sets see only this interface).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wavestack::wasm {

// One unit's entry point on the cpu device: compiled_run over one instance's buffers.
using CpuUnitFunction = std::uint32_t (*)(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory,
                                          std::uint32_t quantum, std::uint32_t budget);

// A unit's lane group entry on the cpu device (compiled_lane_group.hpp): runs
// lane_group_size() instances, states[k] and memories[k], all at the start of a call or all
// at one block, together while they keep to the same blocks of a loop, then each alone for
// the rest of its quantum, as
// the unit's CpuUnitFunction would; statuses[k] receives what that would have returned. It
// returns the instances that ran together (lane_group_size() or 0).
using CpuUnitGroupFunction = std::uint32_t (*)(const std::uint32_t* program, std::uint32_t* const* states,
                                               std::uint32_t* const* memories, std::uint32_t quantum,
                                               std::uint32_t budget, std::uint32_t* statuses);

// A unit's prefixes on the cpu device (compiled_run_prefix): run when the unit's run loop
// returned STATUS_COMPILED_PREFIX.
using CpuPrefixFunction = std::uint32_t (*)(const std::uint32_t* program, std::uint32_t* state, std::uint32_t* memory);

// Work done producing code, cumulative over the module's life (the Python layer reports
// per-call differences).
struct CompileCounters {
  double codegen_seconds = 0.0;  // generating unit sources
  double compile_seconds = 0.0;  // native compilation (the host compiler, or shader + pipeline)
  std::uint64_t units_generated = 0;
  std::uint64_t units_compiled = 0;    // native builds (cache misses included)
  std::uint64_t units_from_cache = 0;  // of those, loaded from the disk cache
  // The cpu device's builds beside the calls (on the build pool): units built ahead of need,
  // hot units rebuilt at a better tier, units built by a precompile, and the pool's time.
  std::uint64_t units_built_ahead = 0;
  std::uint64_t units_rebuilt_hot = 0;
  std::uint64_t units_precompiled = 0;
  double background_seconds = 0.0;
};

class CompiledCode {
 public:
  CompiledCode() = default;
  CompiledCode(const CompiledCode&) = delete;
  CompiledCode& operator=(const CompiledCode&) = delete;
  virtual ~CompiledCode() = default;

  // The program image's code section: jump-table entries, 4 words each
  // (0, target block id, arity, height).
  [[nodiscard]] virtual const std::vector<std::uint32_t>& jump_table_words() const = 0;
  // The block a call of defined function `defined` starts at (the function table's F_CODE).
  [[nodiscard]] virtual std::uint32_t function_entry(std::uint32_t defined) const = 0;
  // The id of the host's ENTRY record (H_ENTRY_PC): one past the last block.
  [[nodiscard]] virtual std::uint32_t entry_id() const = 0;
  [[nodiscard]] virtual std::uint32_t unit_count() const = 0;
  // The unit running block `id`; for the ENTRY id, the unit of function `callee`'s entry
  // (any unit for an imported callee).
  [[nodiscard]] virtual std::uint32_t unit_of(std::uint32_t id, std::uint32_t callee) const = 0;

  // The unit's native code on the cpu device, built on first use (thread-safe). Throws
  // std::runtime_error when no C++ compiler is found or the build fails.
  [[nodiscard]] virtual CpuUnitFunction cpu_unit(std::uint32_t unit) = 0;
  // Runs the unit's code (cpu_unit's) over one instance's buffers; where that is baseline code,
  // the run goes on into the next units itself while theirs is baseline code too, so it may
  // stop in another unit than `unit`.
  [[nodiscard]] virtual std::uint32_t cpu_run(std::uint32_t unit, const std::uint32_t* program, std::uint32_t* state,
                                              std::uint32_t* memory, std::uint32_t quantum, std::uint32_t budget) = 0;
  // The unit's lane group entry for calls of function `callee` (from the same library as
  // cpu_unit), or null when such a call would run no lane group; and the instances it takes.
  [[nodiscard]] virtual CpuUnitGroupFunction cpu_unit_group(std::uint32_t unit, std::uint32_t callee) = 0;
  // The same for instances continuing at block `block` of `unit`: null unless the block is in
  // a grouped run (a loop that outlasted a quantum).
  [[nodiscard]] virtual CpuUnitGroupFunction cpu_unit_group_at(std::uint32_t unit, std::uint32_t block) = 0;
  [[nodiscard]] virtual std::uint32_t lane_group_size() const = 0;
  // Whether a unit built so far has a grouped run (cheap: read on every step).
  [[nodiscard]] virtual bool has_lane_groups() const = 0;
  // The unit's prefixes, built on first use (only when fuel runs out inside one of its blocks).
  [[nodiscard]] virtual CpuPrefixFunction cpu_prefix(std::uint32_t unit) = 0;
  // `runs` instances entered the unit through a function pointer taken once (a step's entry
  // unit): counted like cpu_unit's own entries, toward rebuilding a hot unit.
  virtual void note_unit_runs(std::uint32_t unit, std::uint32_t runs) = 0;
  // The unit's complete Vulkan shader source, and its prefixes' shader, generated on first use
  // (thread-safe).
  [[nodiscard]] virtual std::string shader_source(std::uint32_t unit) = 0;
  [[nodiscard]] virtual std::string prefix_shader_source(std::uint32_t unit) = 0;
  // Vulkan instance sets add their pipeline builds here.
  virtual void add_compile_seconds(double seconds, bool from_cache) = 0;
  // A Vulkan instance set built a pipeline for a call: counted in the progress a long build
  // shows on stderr, as the cpu device's units are.
  virtual void note_pipeline_built() = 0;
  // The units whose blocks control can reach from `unit`'s blocks next (branch targets in other
  // units, direct callees' entries): what is worth building ahead of need.
  [[nodiscard]] virtual std::vector<std::uint32_t> successor_units(std::uint32_t unit) const = 0;
  // Runs `task` on the process's pool of builds ahead of need (the caller has decided that
  // building ahead is on: build_ahead_setting.hpp); false (and `task` never runs) once the pool
  // has stopped. `task` must catch what it throws.
  virtual bool submit_ahead(std::function<void()> task) = 0;
  // A Vulkan instance set's pipeline built ahead of need took `seconds` on the pool.
  virtual void note_built_ahead(double seconds) = 0;
  // A call dispatched a pipeline built ahead of need for the first time, which took `seconds`
  // (waiting for its build, and drivers that finish compiling at the first dispatch): counted
  // as the call's compilation, while the unit stays counted as built ahead.
  virtual void add_first_use_seconds(double seconds) = 0;

  [[nodiscard]] virtual CompileCounters counters() const = 0;
};

}  // namespace wavestack::wasm
