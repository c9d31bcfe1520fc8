#include "wasm/compiler/cpu_unit_code.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <unordered_map>

#include "jit/jit_loader.hpp"
#include "runtime/disk_cache.hpp"
#include "wasm/baseline/block_compiler.hpp"
#include "wasm/compiler/build_pool.hpp"
#include "wasm/compiler/cpu_unit_build.hpp"
#include "wasm/device/compiled_glsl.hpp"

namespace wavestack::wasm::compiler {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Whether `tier`'s units have lane groups.
bool tier_has_lane_groups(CpuTier tier) {
  return tier == CpuTier::kOptimized || tier == CpuTier::kHost;
}

// Every baseline unit this process compiled, by its unit's key: a unit is compiled once per
// process however many modules of the same binary run it (its code is never freed, as linked
// objects' is not: cpu_unit_build.cpp's LinkedUnits).
class BaselineUnits {
 public:
  const baseline::BaselineUnit* find_or_add(const std::string& key,
                                            const std::function<std::unique_ptr<baseline::BaselineUnit>()>& compile) {
    {
      const std::lock_guard lock(mutex_);
      if (const auto found = units_.find(key); found != units_.end()) return found->second.get();
    }
    std::unique_ptr<baseline::BaselineUnit> compiled = compile();
    const std::lock_guard lock(mutex_);
    return units_.emplace(key, std::move(compiled)).first->second.get();  // two at once: the first
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<baseline::BaselineUnit>> units_;
};

BaselineUnits& baseline_units() {
  static auto* units = new BaselineUnits();  // never destroyed: its code outlives every module
  return *units;
}

UnitSymbols symbols_of(int kind, CpuTier tier) {
  if (kind != kUnitCode) return {device::kCompiledPrefixSymbol, nullptr};
  return {device::kCompiledUnitSymbol, tier_has_lane_groups(tier) ? device::kCompiledGroupSymbol : nullptr};
}

// The level a build at `tier` reaches in `plan`: 1 for its first tier, 2 for any better one.
std::uint8_t level_of(const CpuTierPlan& plan, CpuTier tier) {
  return tier == plan.first ? 1 : 2;
}

}  // namespace

CpuUnitCode::CpuUnitCode(std::uint32_t units, std::uint32_t blocks, std::string code_key, Source source,
                         std::weak_ptr<const void> owner, BuildProgress& progress)
    : units_(units),
      code_key_(std::move(code_key)),
      source_(std::move(source)),
      owner_(std::move(owner)),
      progress_(progress),
      groups_(units),
      grouped_runs_(units),
      grouped_known_(units, false),
      runs_(units),
      hot_asked_(units) {
  for (auto& slots : slots_) slots = std::vector<Slot>(units);
  linked_blocks_ = std::vector<LinkedBlock>(blocks);
}

const baseline::BaselineBlock* CpuUnitCode::linked_next(void* self, std::uint32_t block) {
  auto& code = *static_cast<CpuUnitCode*>(self);
  // (The host's ENTRY id is no block: the host makes its calls.)
  if (block >= code.linked_blocks_.size()) return nullptr;
  const LinkedBlock& linked = code.linked_blocks_[block];
  const baseline::BaselineBlock* next = linked.block.load(std::memory_order_acquire);
  // (note_runs' own first test, here: once the rebuild is asked for, nothing else to count.)
  if (next != nullptr && !code.hot_asked_[linked.unit].load(std::memory_order_relaxed)) code.note_runs(linked.unit, 1);
  return next;
}

CpuTierPlan CpuUnitCode::plan() {
  const std::lock_guard lock(mutex_);
  if (!plan_) plan_ = cpu_tier_plan_from_environment();
  return *plan_;
}

std::string CpuUnitCode::unit_key(std::uint32_t unit, int kind) const {
  return runtime::make_cache_key({"cpu-unit", code_key_, std::to_string(unit), std::to_string(kind)});
}

UnitSpan CpuUnitCode::span_of(std::uint32_t unit, int kind, CpuTier tier) const {
  if (kind != kUnitCode || !tier_has_lane_groups(tier) || !source_.span) return UnitSpan{unit, unit + 1};
  return source_.span(unit);
}

std::string CpuUnitCode::span_key(UnitSpan span, int kind) const {
  if (span.size() == 1) return unit_key(span.first, kind);
  return runtime::make_cache_key(
      {"cpu-unit-span", code_key_, std::to_string(span.first), std::to_string(span.end), std::to_string(kind)});
}

std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> CpuUnitCode::span_runs(UnitSpan span,
                                                                                         int kind) const {
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> runs(span.size());
  if (kind != kUnitCode) return runs;
  for (std::uint32_t unit = span.first; unit < span.end; ++unit) runs[unit - span.first] = source_.grouped_runs(unit);
  return runs;
}

void* CpuUnitCode::entry(std::uint32_t unit, int kind) {
  Slot& slot = slots_.at(kind).at(unit);
  if (void* ready = slot.ready.load(std::memory_order_acquire)) return ready;
  std::unique_lock lock(mutex_);
  build_first(lock, unit, kind, Why::kDemand);
  return slot.ready.load(std::memory_order_acquire);
}

void* CpuUnitCode::group_entry(std::uint32_t unit) const {
  return groups_.at(unit).load(std::memory_order_acquire);
}

bool CpuUnitCode::grouped(std::uint32_t unit, std::uint32_t block) const {
  const auto& runs = grouped_runs_.at(unit);
  return std::any_of(runs.begin(), runs.end(),
                     [&](const auto& run) { return block >= run.first && block < run.second; });
}

void CpuUnitCode::build_first(std::unique_lock<std::mutex>& lock, std::uint32_t unit, int kind, Why why) {
  Slot& slot = slots_[kind][unit];
  const auto start = Clock::now();
  // (A build by a thread of a parent process, before a fork, is never coming.)
  built_.wait(lock, [&] { return !slot.building || slot.building_since != BuildPool::fork_generation(); });
  if (slot.ready.load(std::memory_order_acquire) != nullptr) {
    if (why == Why::kDemand) counters_.demand_seconds += seconds_since(start);
    return;
  }
  if (!plan_) plan_ = cpu_tier_plan_from_environment();
  const CpuTierPlan plan = *plan_;
  slot.building = true;
  slot.building_since = BuildPool::fork_generation();
  lock.unlock();
  std::optional<BuiltUnit> built;
  std::uint8_t level = 1;
  double codegen = 0.0;
  UnitSpan span{unit, unit + 1};
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> runs;
  try {
    // A warm start takes the best code the cache holds: a hot unit's rebuild (its span's), else
    // the first tier's.
    if (kind == kUnitCode && plan.hot) {
      const UnitSpan hot_span = span_of(unit, kind, *plan.hot);
      built = load_cached_cpu_unit(*plan.hot, span_key(hot_span, kind), symbols_of(kind, *plan.hot));
      if (built) {
        level = 2;
        span = hot_span;
      }
    }
    if (!built) {
      const CpuTier tier = kind == kUnitCode ? plan.first : plan.prefixes;
      try {
        span = span_of(unit, kind, tier);
        built = load_or_build(span, kind, tier, codegen);
      } catch (const baseline::BaselineUnavailable&) {
        // No executable memory for baseline code here: the unit is built from its text instead.
        span = span_of(unit, kind, plan.prefixes);
        built = load_or_build(span, kind, plan.prefixes, codegen);
      }
    }
    runs = span_runs(span, kind);
  } catch (...) {
    lock.lock();
    slot.building = false;
    built_.notify_all();
    throw;
  }
  lock.lock();
  slot.building = false;
  // (Counted per unit: a span's build makes its other units ready too.)
  const std::uint32_t published = publish_span_locked(span, kind, *built, level, std::move(runs));
  const double seconds = seconds_since(start);
  if (why == Why::kDemand) {
    counters_.demand_seconds += seconds;
    counters_.codegen_seconds += codegen;
    counters_.units_built += published;
    if (built->from_cache) counters_.units_from_cache += published;
  } else {
    counters_.background_seconds += seconds;
    counters_.units_ahead += published;
  }
  built_.notify_all();
  if (kind == kUnitCode && why == Why::kDemand && plan.ahead) queue_ahead(unit);
  lock.unlock();
  progress_.note_unit(why == Why::kAhead);
  lock.lock();
}

BuiltUnit CpuUnitCode::load_or_build(UnitSpan span, int kind, CpuTier tier, double& codegen_seconds) {
  const std::string key = span_key(span, kind);
  if (tier == CpuTier::kBaseline) {
    if (kind != kUnitCode) throw std::logic_error("compiled mode: the baseline tier builds no prefixes");
    const auto compiling = Clock::now();
    BuiltUnit built;
    built.baseline = baseline_units().find_or_add(key, [&] { return source_.baseline(span.first); });
    built.entry = built.baseline->entry;
    codegen_seconds = seconds_since(compiling);
    return built;
  }
  // The default plan counts on the in-process compiler before loading it (cpu_tiers.cpp): where
  // its library then does not load, the host's compiler builds, as the plan without it would.
  if (cpu_tier_needs_jit(tier) && jit::cxx_jit() == nullptr) tier = CpuTier::kHost;
  if (auto cached = load_cached_cpu_unit(tier, key, symbols_of(kind, tier))) return *cached;
  const auto generating = Clock::now();
  const std::string text =
      span.size() == 1 ? source_.text(span.first, kind, tier_has_lane_groups(tier)) : source_.span_text(span);
  codegen_seconds = seconds_since(generating);
  return build_cpu_unit(tier, key, text, symbols_of(kind, tier));
}

bool CpuUnitCode::publish_locked(std::uint32_t unit, int kind, const BuiltUnit& built, std::uint8_t level,
                                 std::vector<std::pair<std::uint32_t, std::uint32_t>> runs) {
  Slot& slot = slots_[kind][unit];
  // (A unit of a span that a hot build has made better meanwhile keeps that code.)
  if (slot.ready.load(std::memory_order_relaxed) != nullptr && slot.level.load(std::memory_order_relaxed) >= level) {
    return false;
  }
  if (kind == kUnitCode) {
    // Written once, before the release below: readers that found the unit read it unlocked.
    if (!grouped_known_[unit]) {
      if (!runs.empty()) has_lane_groups_.store(true, std::memory_order_release);
      grouped_runs_[unit] = std::move(runs);
      grouped_known_[unit] = true;
    }
    groups_[unit].store(built.second, std::memory_order_release);
    if (level == 2) hot_asked_[unit].store(true, std::memory_order_relaxed);
    // (Cleared by a better tier's code: a linked baseline run then leaves for the host there.)
    if (const baseline::BaselineUnit* before = slot.baseline.load(std::memory_order_relaxed)) {
      for (std::size_t k = 0; k < before->blocks.size(); ++k) {
        linked_blocks_[before->first_block + k].block.store(nullptr, std::memory_order_relaxed);
      }
    }
    if (built.baseline != nullptr) {
      for (std::size_t k = 0; k < built.baseline->blocks.size(); ++k) {
        LinkedBlock& linked = linked_blocks_[built.baseline->first_block + k];
        linked.unit = unit;
        linked.block.store(&built.baseline->blocks[k], std::memory_order_release);
      }
    }
    slot.baseline.store(built.baseline, std::memory_order_release);
  }
  slot.level.store(level, std::memory_order_relaxed);
  slot.ready.store(built.entry, std::memory_order_release);
  return true;
}

std::uint32_t CpuUnitCode::publish_span_locked(UnitSpan span, int kind, const BuiltUnit& built, std::uint8_t level,
                                               std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> runs) {
  std::uint32_t published = 0;
  for (std::uint32_t unit = span.first; unit < span.end; ++unit) {
    // (A unit another thread is building gets that build: it is as good as this one's tier.)
    if (slots_[kind][unit].building) continue;
    published += publish_locked(unit, kind, built, level, std::move(runs[unit - span.first])) ? 1 : 0;
  }
  return published;
}

void CpuUnitCode::queue_ahead(std::uint32_t unit) {
  // Under the lock (build_first's caller holds it).
  for (const std::uint32_t next : source_.successors(unit)) {
    Slot& slot = slots_[kUnitCode].at(next);
    if (slot.queued || slot.building || slot.ready.load(std::memory_order_relaxed) != nullptr) continue;
    // (A slot queued before a fork stays queued in the child, which builds it on need.)
    slot.queued = true;
    BuildPool::shared(BuildPool::Priority::kAhead).submit(BuildPool::Priority::kAhead, [this, next, owner = owner_] {
      const auto alive = owner.lock();
      if (!alive) return;
      try {
        std::unique_lock lock(mutex_);
        if (slots_[kUnitCode][next].ready.load(std::memory_order_relaxed) != nullptr) return;
        build_first(lock, next, kUnitCode, Why::kAhead);
      } catch (const std::exception&) {
        // A unit that does not build fails where a call needs it, with the compiler's messages.
      }
    });
  }
}

void CpuUnitCode::note_runs(std::uint32_t unit, std::uint32_t runs) {
  std::atomic<bool>& asked = hot_asked_[unit];
  if (asked.load(std::memory_order_relaxed)) return;
  if (runs_[unit].fetch_add(runs, std::memory_order_relaxed) + runs < kHotUnitRuns) return;
  if (asked.exchange(true, std::memory_order_relaxed)) return;
  queue_hot(unit);
}

void CpuUnitCode::queue_hot(std::uint32_t unit) {
  std::optional<CpuTier> hot;
  {
    const std::lock_guard lock(mutex_);
    if (plan_) hot = plan_->hot;
  }
  if (!hot) return;
  BuildPool::shared(BuildPool::Priority::kHot)
      .submit(BuildPool::Priority::kHot, [this, unit, tier = *hot, owner = owner_] {
        const auto alive = owner.lock();
        if (!alive) return;
        try {
          build(unit, kUnitCode, tier, 2, Why::kHot);
        } catch (const std::exception&) {
          // The unit keeps its first tier's code, which is correct; only slower.
        }
      });
}

void CpuUnitCode::build(std::uint32_t unit, int kind, CpuTier tier, std::uint8_t level, Why why) {
  const UnitSpan span = span_of(unit, kind, tier);
  // Whether a unit of the span still has worse code than this build's.
  const auto below = [&] {
    for (std::uint32_t member = span.first; member < span.end; ++member) {
      if (slots_[kind].at(member).level.load(std::memory_order_relaxed) < level) return true;
    }
    return false;
  };
  if (!below()) return;
  const auto start = Clock::now();
  double codegen = 0.0;
  const BuiltUnit built = load_or_build(span, kind, tier, codegen);
  auto runs = span_runs(span, kind);
  const std::lock_guard lock(mutex_);
  if (!below()) return;
  publish_span_locked(span, kind, built, level, std::move(runs));
  counters_.background_seconds += why == Why::kAll ? 0.0 : seconds_since(start);
  if (why == Why::kHot) counters_.units_hot += span.size();
  if (why == Why::kAll) counters_.units_precompiled += span.size();
  built_.notify_all();
}

void CpuUnitCode::build_all(std::optional<CpuTier> tier) {
  const CpuTierPlan current = plan();
  const CpuTier target = tier ? *tier : current.hot.value_or(current.first);
  const std::uint8_t level = level_of(current, target);
  std::atomic<std::uint32_t> next{0};
  std::mutex done_mutex;
  std::condition_variable done_changed;
  std::uint32_t done = 0;
  std::uint32_t workers_running = 0;
  std::exception_ptr failure;
  // Every worker takes the next unit until none is left; this thread reports progress.
  auto work = [&](bool report) {
    while (true) {
      const std::uint32_t unit = next.fetch_add(1);
      if (unit >= units_) break;
      try {
        // A span's first unit builds it for all of its units.
        if (span_of(unit, kUnitCode, target).first == unit) build(unit, kUnitCode, target, level, Why::kAll);
      } catch (...) {
        const std::lock_guard lock(done_mutex);
        if (!failure) failure = std::current_exception();
      }
      std::uint32_t finished = 0;
      {
        const std::lock_guard lock(done_mutex);
        finished = ++done;
      }
      done_changed.notify_all();
      if (report) progress_.note_done(finished);
    }
  };
  progress_.begin_total(units_);
  BuildPool& pool = BuildPool::shared(BuildPool::Priority::kAhead);
  for (unsigned k = 0; k < pool.threads(); ++k) {
    {
      const std::lock_guard lock(done_mutex);
      ++workers_running;
    }
    const bool queued = pool.submit(BuildPool::Priority::kAhead, [&] {
      work(false);
      const std::lock_guard lock(done_mutex);
      --workers_running;
      done_changed.notify_all();
    });
    if (!queued) {
      const std::lock_guard lock(done_mutex);
      --workers_running;
    }
  }
  work(true);
  std::unique_lock lock(done_mutex);
  std::uint32_t reported = 0;
  while (true) {
    if (done != reported) {
      reported = done;
      lock.unlock();
      progress_.note_done(reported);
      lock.lock();
      continue;
    }
    if (workers_running == 0) break;
    done_changed.wait(lock);
  }
  lock.unlock();
  progress_.finish();
  if (failure) std::rethrow_exception(failure);
}

CpuUnitCode::Counters CpuUnitCode::counters() const {
  const std::lock_guard lock(mutex_);
  return counters_;
}

}  // namespace wavestack::wasm::compiler
