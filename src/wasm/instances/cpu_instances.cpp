#include "wasm/instances/cpu_instances.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>

#include "runtime/thread_pool.hpp"
#include "wasm/device/interpreter_layout.hpp"
#include "wasm/instances/cpu_interpreter.hpp"
#include "wasm/instances/instance_chunks.hpp"
#include "wasm/instances/lane_group_setting.hpp"
#include "wasm/instances/memory_blocks.hpp"
#include "wasm/load/host_modules.hpp"
#include "wasm/wasi/wasi_config.hpp"
#include "wasm/wasi/wasi_inspect.hpp"

namespace wavestack::wasm {

void InstanceSet::run_start(std::optional<std::uint32_t> start, const SpawnLimits& limits) {
  if (!start || count() == 0) return;
  begin_call(*start, {}, limits.start_fuel);
  // (nothing to consult between dispatches: a device may run as many in a row as it likes)
  while (step(limits.quantum, std::numeric_limits<std::uint32_t>::max()).running != 0) {
  }
  const CallOutcome result = outcome(0);
  for (std::uint32_t i = 0; i < count(); ++i) {
    if (result.status[i] != device::STATUS_RETURNED) throw InstantiationTrap(result.trap[i]);
  }
}

void InstanceSet::check_budget(std::uint64_t bytes, const SpawnLimits& limits, std::uint32_t count) {
  if (bytes <= limits.max_resident_bytes) return;
  throw ResourceLimit("max_resident_bytes: " + std::to_string(count) + " instances need " + std::to_string(bytes) +
                      " bytes (state, memory reservations and configuration), more than the budget of " +
                      std::to_string(limits.max_resident_bytes) +
                      " bytes; raise max_resident_bytes or lower count, memory_pages, table_elements or stack_size");
}
namespace dev = device;
namespace {

// How long one step may run quantum after quantum (instance_chunks.hpp): short enough that
// cancel, Ctrl-C and the progress line between steps stay prompt.
constexpr auto kStepTime = std::chrono::milliseconds(5);

std::size_t chunk_size(std::uint32_t count, std::uint32_t lanes) {
  return instances_per_task(count, runtime::ThreadPool::shared().size(), lanes);
}

std::size_t chunk_count(std::uint32_t count, std::uint32_t lanes = 0) {
  const std::size_t size = chunk_size(count, lanes);
  return (std::size_t{count} + size - 1) / size;
}

// body(chunk, begin, end) for every chunk of instances [begin, end) of [0, count), chunk by
// chunk over the pool. A template, so that the body is inlined into the chunk's loop
// (through std::function it was an indirect call per instance, a noticeable part of a short
// call's cost).
template <typename Body>
void for_each_chunk(std::uint32_t count, const Body& body, std::uint32_t lanes = 0) {
  const std::size_t size = chunk_size(count, lanes);
  runtime::ThreadPool::shared().parallel_for(chunk_count(count, lanes), [&](std::size_t chunk) {
    const std::size_t end = std::min<std::size_t>(count, (chunk + 1) * size);
    body(chunk, static_cast<std::uint32_t>(chunk * size), static_cast<std::uint32_t>(end));
  });
}

template <typename Body>
void for_each_instance(std::uint32_t count, const Body& body) {
  for_each_chunk(count, [&](std::size_t, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) body(i);
  });
}

// Both modes compute floats on the host's FPU where that is bit-identical, which holds only
// in the default environment; something in the process changing it must not go unnoticed.
// Checked on the thread that runs them before each chunk of instances (for_each_instance
// runs a chunk on one thread, and nothing else runs there in between): the check costs as
// much as a short call's whole run, so once per instance it was a third of the worker's time.
void check_float_environment() {
  if (!cpu_float_environment_is_default()) {
    throw std::runtime_error(
        "the cpu device needs the default floating-point environment (round to nearest even, no flush-to-zero "
        "or denormals-are-zero), and this thread's was changed");
  }
}

// Whether a unit's run ended the call (returned, trapped, out of fuel): a short call's common
// case, one run of one unit and nothing after it.
bool call_ended(std::uint32_t status) {
  return status != dev::STATUS_RUNNING && status < dev::STATUS_WASI;
}

std::uint64_t executed_of(const std::uint32_t* state) {
  return std::uint64_t{state[dev::S_EXECUTED]} | (std::uint64_t{state[dev::S_EXECUTED + 1]} << 32);
}

// An anonymous private mapping of `bytes`, reserved without committing: the kernel provides
// zero pages on first touch and counts nothing against the commit limit (MAP_NORESERVE), so a
// reservation costs only the pages the instances use. Null when the address space is refused.
std::uint32_t* map_zero_pages(std::size_t bytes) {
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return mapped == MAP_FAILED ? nullptr : static_cast<std::uint32_t*>(mapped);
}

// Hands every page of a mapping back (they read as zero pages again).
void release_pages(std::uint32_t* words, std::size_t count) {
  if (words != nullptr && madvise(words, count * 4, MADV_DONTNEED) != 0) std::memset(words, 0, count * 4);
}

// No word of a slice that every call writes (a memory's pages are the program's to touch).
constexpr std::size_t kNoTouchedWord = ~std::size_t{0};

// The bytes one instance's slice of `words` words commits once `runs` are written into its
// zero pages, plus the 4 KiB block holding word `touched` (one that every call writes, else
// kNoTouchedWord): the pages the runs' 4 KiB blocks cover, at most the slice itself. Slices of
// a size that is not a multiple of 4 KiB start anywhere in a page, so a run may cover one
// page more than its blocks.
std::uint64_t committed_slice_bytes(std::span<const WordRun> runs, std::size_t words, std::size_t touched) {
  constexpr std::size_t kBlockWords = 4096 / 4;
  const std::uint64_t straddle = words % kBlockWords == 0 ? 0 : 1;
  std::uint64_t blocks = 0;
  bool touched_in_runs = false;
  for (const WordRun& run : runs) {
    blocks += (run.count + kBlockWords - 1) / kBlockWords + straddle;
    touched_in_runs = touched_in_runs || (touched >= run.first && touched - run.first < run.count);
  }
  if (!touched_in_runs && touched < words) blocks += 1 + straddle;
  return std::min<std::uint64_t>(blocks * 4096, 4ull * words);
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : ~0ull;
}

}  // namespace

// How many instances ahead a pass fetches (prefetch_instance).
constexpr std::uint32_t kPrefetchAhead = 12;
// The memory lines a pass prefetches per instance (hot_lines_): enough for a few stack frames
// and small buffers; longer runs of lines are streams the hardware prefetcher follows.
constexpr std::size_t kMaxHotLines = 32;
constexpr std::size_t kCacheLineWords = 64 / 4;
// How much of instance 0's memory is compared to learn them: at most 1 MiB, and 64 words per
// instance of the call, so the scan stays a small part of any call's cost.
constexpr std::size_t kHotLineScanWords = (1u << 20) / 4;
constexpr std::size_t kHotLineScanWordsPerInstance = 64;

namespace {

// An instance's control words and the start of its value stack (at word `stack`).
void prefetch_state(const std::uint32_t* s, std::uint32_t stack) {
  __builtin_prefetch(s, 1);
  __builtin_prefetch(s + dev::S_CONTROL_WORDS - 1, 1);
  __builtin_prefetch(s + stack, 1);
}

}  // namespace

void CpuInstances::prefetch_instance(std::uint32_t i) const {
  if (i >= count_) return;
  prefetch_state(state_.get() + std::size_t{i} * state_stride_, image_.program[dev::H_STACK]);
}

std::uint32_t CpuInstances::state_stride(const InstanceImage& image) {
  return static_cast<std::uint32_t>((std::size_t{image.state_words} + kCacheLineWords - 1) / kCacheLineWords *
                                    kCacheLineWords);
}

CpuInstances::SliceBytes CpuInstances::committed_per_instance(const InstanceImage& image) {
  return {committed_slice_bytes(image.state_nonzero_runs, state_stride(image), image.program[dev::H_STACK]),
          committed_slice_bytes(image.memory_nonzero_runs, image.memory_words, kNoTouchedWord)};
}

std::uint64_t CpuInstances::estimate_bytes(const InstanceImage& image, std::uint32_t count) {
  const SliceBytes committed = committed_per_instance(image);
  return std::uint64_t{count} * (committed.state + committed.memory) + 4ull * image.program.size();
}

std::uint64_t CpuInstances::reserved_bytes(const InstanceImage& image, std::uint32_t count) {
  return 4ull * std::uint64_t{count} * (std::uint64_t{state_stride(image)} + image.memory_words);
}

CpuInstances::CpuInstances(const Module& module, std::uint32_t count, const ReserveOptions& options,
                           const SpawnLimits& limits, const runtime::ZeroedWords& wasi_region,
                           std::shared_ptr<CompiledCode> compiled)
    : count_(count),
      compiled_(std::move(compiled)),
      image_(build_instance_image(module, link_imports(module), options, wasi_region, compiled_.get())),
      state_stride_(state_stride(image_)),
      start_(module.start),
      limits_(limits) {
  for (std::size_t f = 0; f < module.function_types.size(); ++f) {
    params_.push_back(static_cast<std::uint32_t>(module.function_type(static_cast<std::uint32_t>(f)).params.size()));
    results_.push_back(static_cast<std::uint32_t>(module.function_type(static_cast<std::uint32_t>(f)).results.size()));
  }
  global_count_ = static_cast<std::uint32_t>(module.global_types.size());
  if (image_.instantiation_trap != 0) throw InstantiationTrap(image_.instantiation_trap);
  // Fail before allocating anything when the spawn exceeds its budget, this machine's memory or
  // the address space the device reserves, or asks for a batch no dispatch holds.
  if (limits.batch_size && *limits.batch_size > kMaxBatchInstances) {
    throw ResourceLimit("batch_size: the cpu device holds at most " + std::to_string(kMaxBatchInstances) +
                        " instances per batch (65,535 workgroups of 64, as a Vulkan dispatch), got " +
                        std::to_string(*limits.batch_size));
  }
  const std::uint64_t reserved = reserved_bytes(image_, count);
  if (reserved > kMaxReservedBytes) {
    throw ResourceLimit("memory_pages: " + std::to_string(count) + " instances reserve " + std::to_string(reserved) +
                        " bytes of address space (state " + std::to_string(4ull * state_stride_) + " + memory " +
                        std::to_string(4ull * image_.memory_words) +
                        " per instance), more than the cpu device reserves (" + std::to_string(kMaxReservedBytes) +
                        "); lower count, memory_pages or stack_size");
  }
  const std::uint64_t bytes = estimate_bytes(image_, count);
  check_budget(bytes, limits, count);
  const std::uint64_t available = physical_memory_bytes();
  if (bytes > available) {
    throw ResourceLimit("count: " + std::to_string(count) + " instances need " + std::to_string(bytes) +
                        " bytes, more than the cpu device's memory (" + std::to_string(available) +
                        "); lower count, memory_pages or stack_size");
  }
  state_total_words_ = std::size_t{count} * state_stride_;
  memory_total_words_ = std::size_t{count} * image_.memory_words;
  // A mapping whose slices are all committed whole anyway (small states) goes on transparent
  // huge pages (2 MiB): it commits nothing more, and a pass over 100,000 instances then misses
  // the TLB once per 2 MiB instead of once per instance or two (the worker's 19 instructions:
  // 13-21% less time per instance at 100,000; docs/PERFORMANCE.md).
  const SliceBytes committed = committed_per_instance(image_);
  const bool huge_states = committed.state >= 4ull * state_stride_;
  const bool huge_memories = committed.memory >= 4ull * image_.memory_words;
  for (auto [words, into, huge] : {std::tuple{state_total_words_, &state_, huge_states},
                                   std::tuple{memory_total_words_, &memory_, huge_memories}}) {
    if (words == 0) continue;
    std::uint32_t* mapped = map_zero_pages(words * 4);
    if (mapped == nullptr) {
      throw ResourceLimit("memory_pages: the operating system refused to reserve " + std::to_string(words * 4) +
                          " bytes of address space for " + std::to_string(count) +
                          " instances; lower count, memory_pages or stack_size");
    }
    // (Advice only: where the kernel has no huge page at hand it maps small ones.)
    if (huge) (void)madvise(mapped, words * 4, MADV_HUGEPAGE);
    *into = std::unique_ptr<std::uint32_t, Unmap>(mapped, Unmap{words * 4});
  }
  instantiate();
}

std::uint64_t CpuInstances::resident_bytes() const noexcept {
  return estimate_bytes(image_, count_);
}

void CpuInstances::Unmap::operator()(std::uint32_t* p) const noexcept {
  munmap(p, bytes);
}

void CpuInstances::instantiate() {
  if (instantiated_) {
    // reset(): every page back to the kernel, which maps zero pages again on the next access
    // (private anonymous memory), so the instances are as fresh as at spawn, grown pages included.
    release_pages(state_.get(), state_total_words_);
    release_pages(memory_.get(), memory_total_words_);
  }
  for_each_instance(count_, [&](std::uint32_t i) {
    // States and memories hold only zero pages here: writing only the blocks of the templates
    // that hold data leaves the rest untouched, so the kernel commits (and clears) only the
    // pages that hold data or that the program uses (the WASI region's block store, a large
    // value stack and most of a memory stay uncommitted).
    std::uint32_t* s = state(i);
    for (const WordRun& run : image_.state_nonzero_runs) {
      runtime::populate_for_writing(s + run.first, run.count * 4);
      std::memcpy(s + run.first, image_.state.data() + run.first, run.count * 4);
    }
    if (image_.wasi_words != 0) {
      set_wasi_instance(std::span(s + image_.wasi_offset, image_.wasi_words), limits_.first_instance + i);
    }
    if (std::uint32_t* m = memory(i); m != nullptr) {
      for (const WordRun& run : image_.memory_nonzero_runs) {
        runtime::populate_for_writing(m + run.first, run.count * 4);
        std::memcpy(m + run.first, image_.memory.data() + run.first, run.count * 4);
      }
    }
  });
  instantiated_ = true;
  run_start(start_, limits_);
}

void CpuInstances::reset() {
  pending_call_.reset();  // the fresh instances have no call to begin
  finished_ = CallOutcome{};
  instantiate();
}

void CpuInstances::begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                              std::optional<std::uint64_t> fuel) {
  const std::uint32_t params = params_.at(function);
  if (args.size() != std::size_t{count_} * params) throw std::invalid_argument("inputs: wrong number of values");
  if (params > image_.program[dev::H_STACK_SLOTS])
    throw std::invalid_argument("stack_size: too small for the arguments");
  settle_pending_call();  // (a call begun and never run still replaces the previous one's state)
  pending_call_ =
      PendingCall{function, params, {args.begin(), args.end()}, cpu_call_start(image_.program.data(), function, fuel)};
  finished_results_ = results_.at(function);
  finished_.status.assign(count_, 0);
  finished_.trap.assign(count_, 0);
  finished_.trap_index.assign(count_, 0);
  finished_.results.assign(std::size_t{count_} * finished_results_, 0);
  finished_.exit_state.assign(count_, 0);
  finished_.exit_code.assign(count_, 0);
  finished_executed_ = 0;
}

[[gnu::always_inline]] inline void CpuInstances::begin_one(const PendingCall& call, std::uint32_t instance,
                                                           std::uint32_t* state, std::uint32_t stack) {
  const std::uint32_t params = call.params;  // (a local: a store to the state may alias a uint32_t field)
  const std::uint64_t* args = call.args.data() + std::size_t{instance} * params;
  for (std::uint32_t k = 0; k < params; ++k) {
    state[stack + 2 * k] = static_cast<std::uint32_t>(args[k]);
    state[stack + 2 * k + 1] = static_cast<std::uint32_t>(args[k] >> 32);
  }
  call.start.apply(state);
}

void CpuInstances::settle_pending_call() {
  if (!pending_call_) return;
  const PendingCall call = std::move(*pending_call_);
  pending_call_.reset();
  const std::uint32_t stack = image_.program[dev::H_STACK];
  for_each_instance(count_, [&](std::uint32_t i) { begin_one(call, i, state(i), stack); });
}

[[gnu::always_inline]] inline void CpuInstances::read_outcome(std::uint32_t instance, const std::uint32_t* s,
                                                              std::uint32_t result_count, CallOutcome& into) const {
  if (image_.wasi_words != 0) {
    const WasiExit exit = wasi_exit_status(std::span(s + image_.wasi_offset, image_.wasi_words));
    into.exit_state[instance] = static_cast<std::uint32_t>(exit.kind);
    into.exit_code[instance] = exit.value;
  }
  into.status[instance] = s[dev::S_STATUS];
  into.trap[instance] = s[dev::S_TRAP];
  into.trap_index[instance] = s[dev::S_TRAP_INDEX];
  if (s[dev::S_STATUS] != dev::STATUS_RETURNED) return;
  const std::uint32_t* slots = s + image_.program[dev::H_STACK];
  std::uint64_t* results = into.results.data() + std::size_t{instance} * result_count;
  const auto slot = [&](std::size_t k) {
    return std::uint64_t{slots[2 * k]} | (std::uint64_t{slots[2 * k + 1]} << 32);
  };
  if (result_count == 1) {  // the common case, without the (vectorised) loop's set-up
    results[0] = slot(0);
    return;
  }
  for (std::size_t k = 0; k < result_count; ++k) {
    results[k] = slot(k);
  }
}

[[gnu::always_inline]] inline std::uint64_t CpuInstances::note_outcome(std::uint32_t instance, const std::uint32_t* s) {
  read_outcome(instance, s, finished_results_, finished_);
  return std::uint64_t{s[dev::S_EXECUTED]} | (std::uint64_t{s[dev::S_EXECUTED + 1]} << 32);
}

StepProgress CpuInstances::step(std::uint32_t quantum, std::uint32_t max_quanta) {
  // Loops need no bound here (no driver watchdog): the budget only keeps bulk chunks large.
  const auto budget = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{quantum} * 64, 1u << 30));
  const std::optional<PendingCall> call = std::move(pending_call_);
  pending_call_.reset();
  // batch_size: instances run batch after batch (each batch over the thread pool).
  const std::uint32_t batch = limits_.batch_size.value_or(count_ == 0 ? 1u : count_);
  // Lane groups (compiler/lane_group_codegen.hpp): their size when this step may form any.
  const std::uint32_t group_size = compiled_ ? compiled_->lane_group_size() : 0;
  const std::uint32_t step_lanes =
      group_size >= 2 && group_size <= std::min(count_, kMaxLaneGroup) && lane_groups_enabled_from_environment()
          ? group_size
          : 0;
  std::optional<EntryUnit> entry;
  if (call && compiled_) {
    const std::uint32_t unit = compiled_->unit_of(compiled_->entry_id(), call->function);
    entry = EntryUnit{call->function, unit, compiled_->cpu_unit(unit)};
    // Every instance enters it through the pointer taken here: count them toward a rebuild.
    compiled_->note_unit_runs(unit, count_);
    if (step_lanes != 0) {
      entry->group = compiled_->cpu_unit_group(unit, call->function);
      entry->lanes = step_lanes;
    }
  }
  // A later quantum looks for groups that form again only once some unit has a grouped run
  // (the check costs a few loads per instance).
  const std::uint32_t continue_lanes = !call && compiled_ && compiled_->has_lane_groups() ? step_lanes : 0;
  const bool noting = finished_.status.size() == count_;
  // What every instance of the pass uses, copied into each chunk's own locals: read through
  // `this` or the lambda's references, it was reloaded after every store to a state (a
  // uint32_t may alias the image's fields) and every run of a unit (an opaque call).
  struct Pass {
    const std::uint32_t* program;
    std::uint32_t stack;
    std::uint32_t* states;
    std::size_t state_words;
    std::uint32_t* memories;
    std::size_t memory_words;
    std::uint32_t quantum;
    std::uint32_t budget;
    const PendingCall* call;
    const EntryUnit* entry;
    std::uint32_t continue_lanes;       // a later quantum: the lanes of groups that form again (0: none)
    const std::uint32_t* noted_status;  // finished_.status while this call's outcomes are noted
    std::span<const std::uint32_t> hot_lines;
  };
  const Pass shared{image_.program.data(),
                    image_.program[dev::H_STACK],
                    state_.get(),
                    state_stride_,
                    memory_.get(),
                    image_.memory_words,
                    quantum,
                    budget,
                    call ? &*call : nullptr,
                    entry ? &*entry : nullptr,
                    continue_lanes,
                    noting ? finished_.status.data() : nullptr,
                    hot_lines_};
  // Each chunk's progress is summed by the task that runs it (no per-instance arrays), and
  // each instance's progress is read right after its run, while its state is in cache (a
  // pass over every state afterwards cost a cache miss per instance).
  struct ChunkProgress {
    std::uint32_t running = 0;
    std::uint64_t executed = 0;
    std::uint64_t noted_executed = 0;  // of the instances whose outcome it noted
    std::uint32_t grouped = 0;
    std::uint32_t quanta = 0;
  };
  // A task runs its instances quantum after quantum (each quantum exactly as a step of its own:
  // instances are independent) until about kStepRecords records or kStepTime have passed, so
  // that a call of few instances does not return to the host after every quantum: 2 instances
  // of 75 million instructions took 18,500 steps of 1.5 to 4 us of host and thread-pool work.
  const std::uint32_t quanta_per_step = std::min(max_quanta, quanta_for_step(quantum, count_));
  const std::uint32_t later_lanes = compiled_ && compiled_->has_lane_groups() ? step_lanes : 0;
  StepProgress progress;
  std::vector<ChunkProgress> chunks;
  for (std::uint32_t first = 0; first < count_; first += batch) {
    const std::uint32_t size = std::min(batch, count_ - first);
    chunks.assign(chunk_count(size, step_lanes), ChunkProgress{});
    for_each_chunk(
        size,
        [&](std::size_t chunk, std::uint32_t begin, std::uint32_t end) {
          check_float_environment();
          Pass pass = shared;
          const auto started = std::chrono::steady_clock::now();
          const std::uint32_t last = first + end;
          ChunkProgress part;
          const auto prefetch = [&](std::uint32_t i) {
            if (i + kPrefetchAhead < first + size) {
              prefetch_state(pass.states + std::size_t{i + kPrefetchAhead} * pass.state_words, pass.stack);
              const auto* ahead =
                  reinterpret_cast<const char*>(pass.memories + std::size_t{i + kPrefetchAhead} * pass.memory_words);
              for (const std::uint32_t line : pass.hot_lines) __builtin_prefetch(ahead + line, 1);
            }
          };
          // After instance i's run (`status`): the chunk's counts, and its outcome while in cache.
          const auto ran = [&](std::uint32_t i, std::uint32_t status) {
            const std::uint32_t* const s = pass.states + std::size_t{i} * pass.state_words;
            const bool running = status == dev::STATUS_RUNNING;
            // (a pending WASI call is serviced inside cpu_run, so STATUS_WASI never outlasts it)
            part.running += running ? 1 : 0;
            part.executed += executed_of(s);
            if (!running && pass.noted_status != nullptr && pass.noted_status[i] == 0 &&
                s[dev::S_STATUS] != dev::STATUS_IDLE) {
              part.noted_executed += note_outcome(i, s);
            }
          };
          // Instances i .. i + lanes as a lane group of `unit` (compiled mode): begun here when
          // `begun` is given, else continuing at one block; then each continues alone, as run_one.
          const auto run_group = [&](std::uint32_t i, std::uint32_t lanes, CpuUnitGroupFunction group,
                                     std::uint32_t unit, const PendingCall* begun) {
            std::array<std::uint32_t*, kMaxLaneGroup> states{};
            std::array<std::uint32_t*, kMaxLaneGroup> memories{};
            std::array<std::uint32_t, kMaxLaneGroup> statuses{};
            std::array<std::uint64_t, kMaxLaneGroup> starts{};
            for (std::uint32_t k = 0; k < lanes; ++k) {
              prefetch(i + k);
              states[k] = pass.states + std::size_t{i + k} * pass.state_words;
              memories[k] = pass.memories + std::size_t{i + k} * pass.memory_words;
              if (begun != nullptr) begin_one(*begun, i + k, states[k], pass.stack);
              starts[k] = begun != nullptr ? 0 : executed_of(states[k]);
            }
            part.grouped +=
                group(pass.program, states.data(), memories.data(), pass.quantum, pass.budget, statuses.data());
            for (std::uint32_t k = 0; k < lanes; ++k) {
              std::uint32_t status = statuses[k];
              if (!call_ended(status)) {
                const CpuInstanceView view{pass.program, states[k], memories[k]};
                status = continue_run(view, pass.quantum, pass.budget, unit, status, starts[k]);
              }
              ran(i + k, status);
            }
          };
          for (part.quanta = 1;; ++part.quanta) {
            part.running = 0;
            part.executed = 0;
            for (std::uint32_t i = first + begin; i < last;) {
              if (pass.entry != nullptr && pass.entry->group != nullptr && last - i >= pass.entry->lanes) {
                // The call begun right here, in a lane group of instances i.. at once.
                run_group(i, pass.entry->lanes, pass.entry->group, pass.entry->unit, pass.call);
                i += pass.entry->lanes;
                continue;
              }
              if (pass.continue_lanes != 0 && last - i >= pass.continue_lanes) {
                // A later quantum: instances i.. running at one block of a grouped loop (a loop that
                // outlasted the last quantum) form a group again.
                if (const auto [group, unit] = group_at_one_block(i, pass.continue_lanes); group != nullptr) {
                  run_group(i, pass.continue_lanes, group, unit, nullptr);
                  i += pass.continue_lanes;
                  continue;
                }
              }
              prefetch(i);
              std::uint32_t* const s = pass.states + std::size_t{i} * pass.state_words;
              std::uint32_t status = 0;
              if (pass.entry != nullptr) {
                // Compiled mode, the call begun right here: the state is run_one's case at the entry
                // (running at ENTRY, nothing executed yet), so its entry unit runs directly.
                begin_one(*pass.call, i, s, pass.stack);
                const CpuInstanceView view{pass.program, s, pass.memories + std::size_t{i} * pass.memory_words};
                status = pass.entry->run(pass.program, view.state, view.memory, pass.quantum, pass.budget);
                if (!call_ended(status)) {
                  status = continue_run(view, pass.quantum, pass.budget, pass.entry->unit, status, 0);
                }
              } else {
                if (pass.call != nullptr) begin_one(*pass.call, i, s, pass.stack);
                status = run_one(i, pass.quantum, pass.budget);
              }
              ran(i, status);
              ++i;
            }
            if (part.running == 0 || part.quanta >= quanta_per_step ||
                std::chrono::steady_clock::now() - started >= kStepTime) {
              break;
            }
            // The next quantum continues the call: nothing begins, groups may form again.
            pass.call = nullptr;
            pass.entry = nullptr;
            pass.continue_lanes = later_lanes;
          }
          chunks[chunk] = part;
        },
        step_lanes);
    for (const ChunkProgress& part : chunks) {
      progress.running += part.running;
      progress.executed += part.executed;
      progress.grouped += part.grouped;
      progress.quanta = std::max(progress.quanta, part.quanta);
      finished_executed_ += part.noted_executed;
    }
  }
  // A call's first step learns the lines its first instance wrote, for the passes of the next
  // call (the instances of a spawn mostly run alike; memory_blocks.hpp). (Passes prefetch only
  // with more than kPrefetchAhead instances.)
  if (call && count_ > kPrefetchAhead && memory_total_words_ != 0) {
    const std::size_t pages = state(0)[dev::S_PAGES];
    const std::vector<std::size_t> lines =
        differing_blocks(std::span<const std::uint32_t>(memory(0), pages * (65536 / 4)), image_.memory, kCacheLineWords,
                         kMaxHotLines, std::min(kHotLineScanWords, kHotLineScanWordsPerInstance * count_));
    hot_lines_.clear();
    for (const std::size_t line : lines) hot_lines_.push_back(static_cast<std::uint32_t>(line * kCacheLineWords * 4));
  }
  return progress;
}

// One quantum of instance i. Compiled mode runs unit after unit while control moves between
// them (each unit's run stops where a block of another unit is next) and the quantum lasts;
// a WASI call is made between runs, as the interpreter's cpu_run does.
std::uint32_t CpuInstances::run_one(std::uint32_t instance, std::uint32_t quantum, std::uint32_t budget,
                                    const EntryUnit* entry) {
  const CpuInstanceView view{image_.program.data(), state(instance), memory(instance)};
  if (!compiled_) return cpu_run(view, quantum, budget);
  if (view.state[dev::S_STATUS] != dev::STATUS_RUNNING) return view.state[dev::S_STATUS];
  const std::uint64_t start = executed_of(view.state);
  const bool at_entry = entry != nullptr && view.state[dev::S_PC] == view.program[dev::H_ENTRY_PC] &&
                        view.state[dev::S_CONT_FUNC] == entry->function;
  const std::uint32_t unit =
      at_entry ? entry->unit : compiled_->unit_of(view.state[dev::S_PC], view.state[dev::S_CONT_FUNC]);
  const std::uint32_t status = at_entry
                                   ? entry->run(view.program, view.state, view.memory, quantum, budget)
                                   : compiled_->cpu_run(unit, view.program, view.state, view.memory, quantum, budget);
  return call_ended(status) ? status : continue_run(view, quantum, budget, unit, status, start);
}

std::uint32_t CpuInstances::continue_run(const CpuInstanceView& view, std::uint32_t quantum, std::uint32_t budget,
                                         std::uint32_t unit, std::uint32_t status, std::uint64_t start) {
  while (true) {
    // Fuel runs out inside a block: its prefix, built apart (it runs at most once per call).
    // (Of the unit the run stopped in: a baseline run may have gone on into others.)
    if (status == dev::STATUS_COMPILED_PREFIX) {
      status = compiled_->cpu_prefix(compiled_->unit_of(view.state[dev::S_PC], view.state[dev::S_CONT_FUNC]))(
          view.program, view.state, view.memory);
    }
    if (status == dev::STATUS_WASI) status = cpu_wasi_service(view);
    if (status == dev::STATUS_COMPILED_ELSEWHERE) status = dev::STATUS_RUNNING;  // (unit_of chose this unit)
    const std::uint64_t used = executed_of(view.state) - start;
    if (status != dev::STATUS_RUNNING || used >= quantum) return status;
    // Still in the unit entered last: the quantum's iterations or the budget ended the run. (A
    // linked baseline run that went on into other units stops where the next unit's code is not
    // baseline code; `unit` is then another, unless it was rebuilt meanwhile: one step more.)
    const std::uint32_t next = compiled_->unit_of(view.state[dev::S_PC], view.state[dev::S_CONT_FUNC]);
    if (next == unit) return status;
    unit = next;
    status = compiled_->cpu_run(unit, view.program, view.state, view.memory, quantum - static_cast<std::uint32_t>(used),
                                budget);
    if (call_ended(status)) return status;
  }
}

std::pair<CpuUnitGroupFunction, std::uint32_t> CpuInstances::group_at_one_block(std::uint32_t first,
                                                                                std::uint32_t lanes) {
  const std::uint32_t* const lead = state(first);
  const std::uint32_t pc = lead[dev::S_PC];
  if (lead[dev::S_STATUS] != dev::STATUS_RUNNING || lead[dev::S_CONT] != 0 || pc == image_.program[dev::H_ENTRY_PC]) {
    return {nullptr, 0};
  }
  for (std::uint32_t k = 1; k < lanes; ++k) {
    const std::uint32_t* const s = state(first + k);
    if (s[dev::S_STATUS] != dev::STATUS_RUNNING || s[dev::S_PC] != pc || s[dev::S_CONT] != 0) return {nullptr, 0};
  }
  const std::uint32_t unit = compiled_->unit_of(pc, lead[dev::S_CONT_FUNC]);
  return {compiled_->cpu_unit_group_at(unit, pc), unit};
}

CallOutcome CpuInstances::outcome(std::uint32_t result_count) {
  settle_pending_call();
  CallOutcome result;
  const bool noted = result_count == finished_results_ && finished_.status.size() == count_;
  if (noted) {
    // Handed over, not copied: asked again, outcome() reads the states, which hold the same.
    result = std::move(finished_);
    finished_ = CallOutcome{};
    result.executed = finished_executed_;
  } else {
    result.status.resize(count_);
    result.trap.resize(count_);
    result.trap_index.resize(count_);
    result.results.resize(std::size_t{count_} * result_count);
    result.exit_state.resize(count_);
    result.exit_code.resize(count_);
  }
  for (std::uint32_t i = 0; i < count_; ++i) {
    if (noted && result.status[i] != 0) continue;
    prefetch_instance(i + kPrefetchAhead);
    const std::uint32_t* s = state_.get() + std::size_t{i} * state_stride_;
    read_outcome(i, s, result_count, result);
    result.executed += std::uint64_t{s[dev::S_EXECUTED]} | (std::uint64_t{s[dev::S_EXECUTED + 1]} << 32);
  }
  return result;
}

std::uint32_t CpuInstances::memory_size_bytes(std::uint32_t instance) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  return state_.get()[std::size_t{instance} * state_stride_ + dev::S_PAGES] * 65536u;
}

void CpuInstances::read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) {
  if (address + out.size() > memory_size_bytes(instance)) {
    throw std::out_of_range("address: " + std::to_string(address) + " + length " + std::to_string(out.size()) +
                            " is beyond the instance's memory (" + std::to_string(memory_size_bytes(instance)) +
                            " bytes)");
  }
  // An empty span may have a null data() (and a memoryless instance a null memory): memcpy's
  // pointers must not be null even for 0 bytes (UBSan found a read of length 0).
  if (out.empty()) return;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(memory(instance));
  std::memcpy(out.data(), bytes + address, out.size());
}

void CpuInstances::write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) {
  settle_pending_call();
  if (address + data.size() > memory_size_bytes(instance)) {
    throw std::out_of_range("address: " + std::to_string(address) + " + length " + std::to_string(data.size()) +
                            " is beyond the instance's memory (" + std::to_string(memory_size_bytes(instance)) +
                            " bytes)");
  }
  if (data.empty()) return;  // as in read_memory
  auto* bytes = reinterpret_cast<std::uint8_t*>(memory(instance));
  std::memcpy(bytes + address, data.data(), data.size());
}

}  // namespace wavestack::wasm

namespace wavestack::wasm {

std::uint64_t CpuInstances::global_value(std::uint32_t instance, std::uint32_t global) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  if (global >= global_count_) throw std::out_of_range("global: out of range");
  const std::uint32_t* s = state_.get() + std::size_t{instance} * state_stride_ + image_.globals_offset;
  return std::uint64_t{s[2 * global]} | (std::uint64_t{s[2 * global + 1]} << 32);
}

}  // namespace wavestack::wasm

namespace wavestack::wasm {

std::vector<std::uint32_t> CpuInstances::wasi_region(std::uint32_t instance) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  const std::uint32_t* region = state(instance) + image_.wasi_offset;
  return {region, region + image_.wasi_words};
}

void CpuInstances::read_wasi_region(std::uint32_t instance,
                                    const std::function<void(std::span<const std::uint32_t>)>& reader) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  reader(std::span<const std::uint32_t>(state(instance) + image_.wasi_offset, image_.wasi_words));
}

void CpuInstances::set_wasi_region(std::uint32_t instance, std::span<const std::uint32_t> region) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  if (region.size() != image_.wasi_words) throw std::invalid_argument("region: not this spawn's WASI region");
  std::copy(region.begin(), region.end(), state(instance) + image_.wasi_offset);
}

}  // namespace wavestack::wasm
