// A compiled module's native code on the cpu device, per unit: built when a call first
// reaches it (or loaded from the disk cache), at the first tier of the plan (cpu_tiers.hpp);
// the units it can transfer control to next built ahead of need on the build pool; a unit
// that runs often rebuilt in the background at the plan's hot tier and swapped in (every tier
// compiles the same text, so a run may continue in either); or every unit built at once
// (build_all: `python -m wasmgpu compile`, Module(precompile=...)).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wasm/baseline/baseline_unit.hpp"
#include "wasm/compiler/build_progress.hpp"
#include "wasm/compiler/cpu_tiers.hpp"
#include "wasm/compiler/cpu_unit_build.hpp"
#include "wasm/compiler/unit_spans.hpp"
#include "wasm/instances/compiled_code.hpp"

namespace wavestack::wasm::compiler {

// A unit's library: 0 its code (compiled_run and its lane group entry), 1 its prefixes (built
// only when fuel first runs out inside one of its blocks).
inline constexpr int kUnitCode = 0;
inline constexpr int kUnitPrefixes = 1;

// Runs a unit is entered before it is rebuilt at the hot tier: a unit entered this often
// has paid for its rebuild several times over at the first tier's speed (graphviz.wasm's first
// render enters about a tenth of the units it reaches this often).
inline constexpr std::uint32_t kHotUnitRuns = 200;

class CpuUnitCode {
 public:
  // What the module provides: a unit's text after the preamble (device::compiled_cpu_unit_text,
  // with its lane groups or without, or the prefixes' text), its grouped runs (lane_group_runs),
  // and the units its blocks can continue in (branch targets, direct callees' entries). The fast
  // tier builds units without lane groups (their machinery was 30% of a unit's build; its code
  // gains nothing from overlapping instances). `baseline`: the unit compiled by the baseline
  // compiler (its code is the process's for good: units are kept per key, like linked objects).
  //
  // `span`: the units the optimising tiers (those with lane groups) build together with
  // `unit` (unit_spans.hpp; [unit, unit + 1) for one alone), and `span_text` the code text of
  // a span of several (with its lane groups): one object serves all of its units.
  struct Source {
    std::function<std::string(std::uint32_t unit, int kind, bool lane_groups)> text;
    std::function<UnitSpan(std::uint32_t unit)> span;
    std::function<std::string(UnitSpan span)> span_text;
    std::function<std::vector<std::pair<std::uint32_t, std::uint32_t>>(std::uint32_t unit)> grouped_runs;
    std::function<std::vector<std::uint32_t>(std::uint32_t unit)> successors;
    std::function<std::unique_ptr<baseline::BaselineUnit>(std::uint32_t unit)> baseline;
  };

  // `code_key`: what identifies the module's units' texts (cache keys); `owner`: kept alive by
  // background builds while they run (a build queued after it is gone is dropped); `progress`:
  // told of every unit a call makes ready, and of build_all's (it outlives this).
  // `blocks`: the layout's block count.
  CpuUnitCode(std::uint32_t units, std::uint32_t blocks, std::string code_key, Source source,
              std::weak_ptr<const void> owner, BuildProgress& progress);

  // The unit's entry point of `kind`, built or loaded now if it is not yet (thread-safe; the
  // thread that needs it builds it, others wait; different units build in parallel).
  [[nodiscard]] void* entry(std::uint32_t unit, int kind);
  // The unit's lane group entry (null without grouped runs), after entry(unit, kUnitCode).
  [[nodiscard]] void* group_entry(std::uint32_t unit) const;
  // Whether block `block` of the unit is in one of its grouped runs, after entry(unit, kUnitCode).
  [[nodiscard]] bool grouped(std::uint32_t unit, std::uint32_t block) const;
  [[nodiscard]] bool has_lane_groups() const { return has_lane_groups_.load(std::memory_order_acquire); }
  // The baseline unit behind the unit's code now, or null when it has other code or none yet
  // (lock-free: a run going on from unit to unit asks at every crossing).
  [[nodiscard]] const baseline::BaselineUnit* baseline_of(std::uint32_t unit) const {
    return slots_[kUnitCode][unit].baseline.load(std::memory_order_acquire);
  }
  // How a baseline run of this module goes on from unit to unit (baseline_linked_run): block by
  // block id from one table of the baseline units' blocks published now, so that a crossing
  // reads one entry and the block (not the layout, the unit's slot and the unit).
  [[nodiscard]] const baseline::UnitLinks& links() const { return links_; }

  // Counts `runs` entries of the unit; past kHotUnitRuns the plan's hot tier (if any) is built in
  // the background. Cheap: a relaxed add, nothing once the rebuild is asked for.
  void note_runs(std::uint32_t unit, std::uint32_t runs);

  // Builds every unit's code (not its prefixes) at `tier` (the plan's best when nullopt), on
  // the build pool and this thread, reporting progress; units already at that tier or better
  // are skipped, and cached ones loaded. Throws what a build throws, after the others finish.
  void build_all(std::optional<CpuTier> tier);

  // The plan this module builds with (read from the environment at the first build).
  [[nodiscard]] CpuTierPlan plan();

  struct Counters {
    double demand_seconds = 0.0;         // builds and waits on a calling thread (text generation included)
    double codegen_seconds = 0.0;        // of those, generating texts
    double background_seconds = 0.0;     // builds on the pool
    std::uint64_t units_built = 0;       // first-tier code built or loaded on demand
    std::uint64_t units_from_cache = 0;  // of those, loaded
    std::uint64_t units_ahead = 0;       // built or loaded ahead of need
    std::uint64_t units_hot = 0;         // rebuilt at the hot tier and swapped in
    std::uint64_t units_precompiled = 0;
  };
  [[nodiscard]] Counters counters() const;

 private:
  enum class Why : std::uint8_t { kDemand, kAhead, kHot, kAll };
  struct Slot {
    std::atomic<void*> ready{nullptr};
    std::atomic<std::uint8_t> level{0};                            // 0 none, 1 first tier, 2 hot tier
    std::atomic<const baseline::BaselineUnit*> baseline{nullptr};  // kUnitCode's, when `ready` is one
    bool building = false;                                         // under mutex_
    std::uint64_t building_since = 0;                              // BuildPool::fork_generation() when building was set
    bool queued = false;                                           // an ahead-of-need build queued (under mutex_)
  };

  // Builds (or loads) `unit`'s `kind` at `tier` and publishes it at `level`, unless a build
  // of that level or better is published first. Called without the lock.
  void build(std::uint32_t unit, int kind, CpuTier tier, std::uint8_t level, Why why);
  // The first tier's build of `unit`'s `kind` by this thread, or a wait for the thread
  // building it; the lock is held on entry and exit.
  void build_first(std::unique_lock<std::mutex>& lock, std::uint32_t unit, int kind, Why why);
  // The units a build of `unit`'s `kind` at `tier` makes: its span at the optimising tiers.
  [[nodiscard]] UnitSpan span_of(std::uint32_t unit, int kind, CpuTier tier) const;
  // The cache key of the code of `span` (a unit's own key for a span of one).
  [[nodiscard]] std::string span_key(UnitSpan span, int kind) const;
  // The `kind` of `span` (span_of) at `tier` from the disk cache, else generated (its time in
  // `codegen_seconds`) and built. Called without the lock.
  BuiltUnit load_or_build(UnitSpan span, int kind, CpuTier tier, double& codegen_seconds);
  // Makes `built` the unit's code of `kind` at `level` (its grouped runs, known the first time),
  // unless it has as good code already (then false); the lock is held.
  bool publish_locked(std::uint32_t unit, int kind, const BuiltUnit& built, std::uint8_t level,
                      std::vector<std::pair<std::uint32_t, std::uint32_t>> runs);
  // publish_locked for every unit of `span` not being built by another thread (`runs`: each
  // unit's grouped runs, in span order); returns how many it made ready or better.
  std::uint32_t publish_span_locked(UnitSpan span, int kind, const BuiltUnit& built, std::uint8_t level,
                                    std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> runs);
  // Each unit's grouped runs of `span` (kind kUnitCode only; empty for prefixes).
  [[nodiscard]] std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> span_runs(UnitSpan span,
                                                                                            int kind) const;
  void queue_ahead(std::uint32_t unit);
  void queue_hot(std::uint32_t unit);
  [[nodiscard]] std::string unit_key(std::uint32_t unit, int kind) const;

  std::uint32_t units_;
  std::string code_key_;
  Source source_;
  std::weak_ptr<const void> owner_;
  BuildProgress& progress_;

  mutable std::mutex mutex_;
  std::condition_variable built_;
  // UnitLinks' `next`: block `block` where its unit's code is baseline code now (counted as an
  // entry of the unit toward its hot rebuild), else null.
  static const baseline::BaselineBlock* linked_next(void* self, std::uint32_t block);

  std::array<std::vector<Slot>, 2> slots_;
  // Per block id: the block of its unit's baseline code, while that is the unit's code, and
  // the unit (written before the block's first publication; the one line a crossing reads).
  struct LinkedBlock {
    std::atomic<const baseline::BaselineBlock*> block{nullptr};
    std::uint32_t unit = 0;
  };
  std::vector<LinkedBlock> linked_blocks_;
  baseline::UnitLinks links_{&CpuUnitCode::linked_next, this};
  std::vector<std::atomic<void*>> groups_;
  // Per unit: its grouped runs' block ids, written once before its first entry is published.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> grouped_runs_;
  std::vector<bool> grouped_known_;
  std::atomic<bool> has_lane_groups_{false};
  std::vector<std::atomic<std::uint32_t>> runs_;
  std::vector<std::atomic<bool>> hot_asked_;
  std::optional<CpuTierPlan> plan_;
  Counters counters_;
};

}  // namespace wavestack::wasm::compiler
