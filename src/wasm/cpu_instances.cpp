#include "wasm/cpu_instances.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "runtime/thread_pool.hpp"
#include "wasm/cpu_interpreter.hpp"
#include "wasm/device/interpreter_layout.hpp"
#include "wasm/host_modules.hpp"
#include "wasm/wasi_config.hpp"
#include "wasm/wasi_inspect.hpp"

namespace wavestack::wasm {

void InstanceSet::run_start(std::optional<std::uint32_t> start, const SpawnLimits& limits) {
  if (!start || count() == 0) return;
  begin_call(*start, {}, limits.start_fuel);
  while (step(limits.quantum).running != 0) {
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

// Instances per thread-pool task: large enough that scheduling costs nothing next to the
// work, small enough to balance uneven calls.
constexpr std::size_t kChunk = 64;

// A template, so that the body is inlined into the chunk's loop (through std::function it was
// an indirect call per instance, a noticeable part of a short call's cost).
template <typename Body>
void for_each_instance(std::uint32_t count, const Body& body) {
  const std::size_t chunks = (count + kChunk - 1) / kChunk;
  runtime::ThreadPool::shared().parallel_for(chunks, [&](std::size_t chunk) {
    const std::size_t end = std::min<std::size_t>(count, (chunk + 1) * kChunk);
    for (std::size_t i = chunk * kChunk; i < end; ++i) body(static_cast<std::uint32_t>(i));
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

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) : ~0ull;
}

}  // namespace

// How many instances ahead a pass fetches (prefetch_instance).
constexpr std::uint32_t kPrefetchAhead = 12;

void CpuInstances::prefetch_instance(std::uint32_t i) const {
  if (i >= count_) return;
  const std::uint32_t* s = state_.data() + std::size_t{i} * image_.state_words;
  __builtin_prefetch(s, 1);
  __builtin_prefetch(s + dev::S_CONTROL_WORDS - 1, 1);
  __builtin_prefetch(s + image_.program[dev::H_STACK], 1);
}

std::uint64_t CpuInstances::estimate_bytes(const InstanceImage& image, std::uint32_t count) {
  return 4ull * (std::uint64_t{count} * (std::uint64_t{image.state_words} + image.memory_words) + image.program.size());
}

CpuInstances::CpuInstances(const Module& module, std::uint32_t count, const ReserveOptions& options,
                           const SpawnLimits& limits, std::span<const std::uint32_t> wasi_region,
                           std::shared_ptr<CompiledCode> compiled)
    : count_(count),
      compiled_(std::move(compiled)),
      image_(build_instance_image(module, link_imports(module), options, wasi_region, compiled_.get())),
      start_(module.start),
      limits_(limits) {
  for (std::size_t f = 0; f < module.function_types.size(); ++f) {
    params_.push_back(static_cast<std::uint32_t>(module.function_type(static_cast<std::uint32_t>(f)).params.size()));
    results_.push_back(static_cast<std::uint32_t>(module.function_type(static_cast<std::uint32_t>(f)).results.size()));
  }
  global_count_ = static_cast<std::uint32_t>(module.global_types.size());
  if (image_.instantiation_trap != 0) throw InstantiationTrap(image_.instantiation_trap);
  // Fail before allocating anything when the spawn exceeds its budget or this machine's memory.
  const std::uint64_t bytes = estimate_bytes(image_, count);
  check_budget(bytes, limits, count);
  const std::uint64_t available = physical_memory_bytes();
  if (bytes > available) {
    throw ResourceLimit("count: " + std::to_string(count) + " instances need " + std::to_string(bytes) +
                        " bytes (state " + std::to_string(4ull * image_.state_words) + " + memory " +
                        std::to_string(4ull * image_.memory_words) +
                        " per instance), more than the cpu device's memory (" + std::to_string(available) +
                        "); lower count, memory_pages or stack_size");
  }
  state_.resize(std::size_t{count} * image_.state_words);
  memory_total_words_ = std::size_t{count} * image_.memory_words;
  if (memory_total_words_ != 0) {
    memory_.reset(static_cast<std::uint32_t*>(std::calloc(memory_total_words_, 4)));
    if (!memory_) throw std::bad_alloc();
  }
  instantiate();
}

std::uint64_t CpuInstances::resident_bytes() const noexcept {
  return 4ull * (state_.size() + memory_total_words_ + image_.program.size());
}

void CpuInstances::instantiate() {
  for_each_instance(count_, [&](std::uint32_t i) {
    std::uint32_t* m = memory(i);
    if (instantiated_ && m != nullptr) {  // pages grown since: zero them again
      const std::size_t used = std::size_t{state(i)[dev::S_PAGES]} * (65536 / 4);
      if (used > image_.memory.size()) std::memset(m + image_.memory.size(), 0, (used - image_.memory.size()) * 4);
    }
    std::memcpy(state(i), image_.state.data(), image_.state.size() * 4);
    if (image_.wasi_words != 0) set_wasi_instance(std::span(state(i) + image_.wasi_offset, image_.wasi_words), i);
    if (m != nullptr && !image_.memory.empty()) std::memcpy(m, image_.memory.data(), image_.memory.size() * 4);
  });
  instantiated_ = true;
  run_start(start_, limits_);
}

void CpuInstances::reset() {
  pending_call_.reset();  // the fresh instances have no call to begin
  finished_noted_.assign(count_, 0);
  instantiate();
}

void CpuInstances::begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                              std::optional<std::uint64_t> fuel) {
  const std::uint32_t params = params_.at(function);
  if (args.size() != std::size_t{count_} * params) throw std::invalid_argument("inputs: wrong number of values");
  if (params > image_.program[dev::H_STACK_SLOTS])
    throw std::invalid_argument("stack_size: too small for the arguments");
  settle_pending_call();  // (a call begun and never run still replaces the previous one's state)
  pending_call_ = PendingCall{function, params, {args.begin(), args.end()}, fuel};
  finished_results_ = results_.at(function);
  finished_.status.assign(count_, 0);
  finished_.trap.assign(count_, 0);
  finished_.trap_index.assign(count_, 0);
  finished_.results.assign(std::size_t{count_} * finished_results_, 0);
  finished_.exit_state.assign(count_, 0);
  finished_.exit_code.assign(count_, 0);
  finished_noted_.assign(count_, 0);
  finished_executed_.assign(count_, 0);
}

void CpuInstances::begin_one(const PendingCall& call, std::uint32_t instance) {
  std::uint32_t* s = state(instance);
  const std::uint32_t stack = image_.program[dev::H_STACK];
  for (std::uint32_t k = 0; k < call.params; ++k) {
    const std::uint64_t v = call.args[std::size_t{instance} * call.params + k];
    s[stack + 2 * k] = static_cast<std::uint32_t>(v);
    s[stack + 2 * k + 1] = static_cast<std::uint32_t>(v >> 32);
  }
  s[dev::S_FUEL_LIMITED] = call.fuel ? 1u : 0u;
  s[dev::S_FUEL] = static_cast<std::uint32_t>(call.fuel.value_or(0));
  s[dev::S_FUEL + 1] = static_cast<std::uint32_t>(call.fuel.value_or(0) >> 32);
  cpu_begin_call({image_.program.data(), s, memory(instance)}, call.function);
}

void CpuInstances::settle_pending_call() {
  if (!pending_call_) return;
  const PendingCall call = std::move(*pending_call_);
  pending_call_.reset();
  for_each_instance(count_, [&](std::uint32_t i) { begin_one(call, i); });
}

StepProgress CpuInstances::step(std::uint32_t quantum) {
  // Loops need no bound here (no driver watchdog): the budget only keeps bulk chunks large.
  const auto budget = static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{quantum} * 64, 1u << 30));
  // Each instance's progress is read right after its run, while its state is in cache (a
  // pass over every state afterwards cost a cache miss per instance).
  std::vector<std::uint8_t> running(count_, 0);
  std::vector<std::uint64_t> executed(count_, 0);
  const std::optional<PendingCall> call = std::move(pending_call_);
  pending_call_.reset();
  // batch_size: instances run batch after batch (each batch over the thread pool).
  const std::uint32_t batch = limits_.batch_size.value_or(count_ == 0 ? 1u : count_);
  std::optional<EntryUnit> entry;
  if (call && compiled_) {
    const std::uint32_t unit = compiled_->unit_of(compiled_->entry_id(), call->function);
    entry = EntryUnit{call->function, unit, compiled_->cpu_unit(unit)};
  }
  for (std::uint32_t first = 0; first < count_; first += batch) {
    const std::uint32_t size = std::min(batch, count_ - first);
    for_each_instance(size, [&](std::uint32_t k) {
      const std::uint32_t i = first + k;
      if (k % kChunk == 0) check_float_environment();
      if (k + kPrefetchAhead < size) prefetch_instance(i + kPrefetchAhead);
      if (call) begin_one(*call, i);
      running[i] = run_one(i, quantum, budget, entry ? &*entry : nullptr) == dev::STATUS_RUNNING ? 1 : 0;
      // (a pending WASI call is serviced inside cpu_run, so STATUS_WASI never outlasts it)
      const std::uint32_t* s = state(i);
      executed[i] = std::uint64_t{s[dev::S_EXECUTED]} | (std::uint64_t{s[dev::S_EXECUTED + 1]} << 32);
      if (running[i] == 0 && !finished_noted_.empty() && finished_noted_[i] == 0) note_outcome(i);
    });
  }
  StepProgress progress;
  progress.running = static_cast<std::uint32_t>(std::count(running.begin(), running.end(), std::uint8_t{1}));
  for (const std::uint64_t count : executed) progress.executed += count;
  return progress;
}

// One quantum of instance i. Compiled mode runs unit after unit while control moves between
// them (each unit's run stops where a block of another unit is next) and the quantum lasts;
// a WASI call is made between runs, as the interpreter's cpu_run does.
std::uint32_t CpuInstances::run_one(std::uint32_t instance, std::uint32_t quantum, std::uint32_t budget,
                                    const EntryUnit* entry) {
  const CpuInstanceView view{image_.program.data(), state(instance), memory(instance)};
  if (!compiled_) return cpu_run(view, quantum, budget);
  const auto executed = [&] {
    return std::uint64_t{view.state[dev::S_EXECUTED]} | (std::uint64_t{view.state[dev::S_EXECUTED + 1]} << 32);
  };
  const std::uint64_t start = executed();
  std::uint32_t status = view.state[dev::S_STATUS];
  while (status == dev::STATUS_RUNNING) {
    const bool at_entry = entry != nullptr && view.state[dev::S_PC] == view.program[dev::H_ENTRY_PC] &&
                          view.state[dev::S_CONT_FUNC] == entry->function;
    const std::uint32_t unit =
        at_entry ? entry->unit : compiled_->unit_of(view.state[dev::S_PC], view.state[dev::S_CONT_FUNC]);
    const CpuUnitFunction run = at_entry ? entry->run : compiled_->cpu_unit(unit);
    entry = nullptr;  // (only the call's first run starts at its entry)
    const std::uint64_t used = executed() - start;
    status = run(view.program, view.state, view.memory, quantum - static_cast<std::uint32_t>(used), budget);
    // Fuel runs out inside a block: its prefix, built apart (it runs at most once per call).
    if (status == dev::STATUS_COMPILED_PREFIX)
      status = compiled_->cpu_prefix(unit)(view.program, view.state, view.memory);
    if (status == dev::STATUS_WASI) status = cpu_wasi_service(view);
    if (status == dev::STATUS_COMPILED_ELSEWHERE) status = dev::STATUS_RUNNING;  // (unit_of chose this unit)
    if (status != dev::STATUS_RUNNING || executed() - start >= quantum) break;
    // Still running in the same unit: the quantum's iterations or the budget ended the run.
    if (compiled_->unit_of(view.state[dev::S_PC], view.state[dev::S_CONT_FUNC]) == unit) break;
  }
  return status;
}

void CpuInstances::read_outcome(std::uint32_t instance, std::uint32_t result_count, CallOutcome& into) const {
  const std::uint32_t* s = state_.data() + std::size_t{instance} * image_.state_words;
  if (image_.wasi_words != 0) {
    const WasiExit exit = wasi_exit_status(std::span(s + image_.wasi_offset, image_.wasi_words));
    into.exit_state[instance] = static_cast<std::uint32_t>(exit.kind);
    into.exit_code[instance] = exit.value;
  }
  into.status[instance] = s[dev::S_STATUS];
  into.trap[instance] = s[dev::S_TRAP];
  into.trap_index[instance] = s[dev::S_TRAP_INDEX];
  if (s[dev::S_STATUS] != dev::STATUS_RETURNED) return;
  const std::uint32_t stack = image_.program[dev::H_STACK];
  for (std::uint32_t k = 0; k < result_count; ++k) {
    into.results[std::size_t{instance} * result_count + k] =
        std::uint64_t{s[stack + 2 * k]} | (std::uint64_t{s[stack + 2 * k + 1]} << 32);
  }
}

void CpuInstances::note_outcome(std::uint32_t instance) {
  read_outcome(instance, finished_results_, finished_);
  const std::uint32_t* s = state(instance);
  finished_executed_[instance] = std::uint64_t{s[dev::S_EXECUTED]} | (std::uint64_t{s[dev::S_EXECUTED + 1]} << 32);
  finished_noted_[instance] = 1;
}

CallOutcome CpuInstances::outcome(std::uint32_t result_count) {
  settle_pending_call();
  CallOutcome result;
  const bool noted = result_count == finished_results_ && finished_noted_.size() == count_;
  if (noted) {
    result = finished_;  // a copy: outcome() may be asked again
  } else {
    result.status.resize(count_);
    result.trap.resize(count_);
    result.trap_index.resize(count_);
    result.results.resize(std::size_t{count_} * result_count);
    result.exit_state.resize(count_);
    result.exit_code.resize(count_);
  }
  for (std::uint32_t i = 0; i < count_; ++i) {
    if (noted && finished_noted_[i] != 0) {
      result.executed += finished_executed_[i];
      continue;
    }
    prefetch_instance(i + kPrefetchAhead);
    read_outcome(i, result_count, result);
    const std::uint32_t* s = state_.data() + std::size_t{i} * image_.state_words;
    result.executed += std::uint64_t{s[dev::S_EXECUTED]} | (std::uint64_t{s[dev::S_EXECUTED + 1]} << 32);
  }
  return result;
}

std::uint32_t CpuInstances::memory_size_bytes(std::uint32_t instance) {
  settle_pending_call();
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  return state_[std::size_t{instance} * image_.state_words + dev::S_PAGES] * 65536u;
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
  const std::uint32_t* s = state_.data() + std::size_t{instance} * image_.state_words + image_.globals_offset;
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

}  // namespace wavestack::wasm
