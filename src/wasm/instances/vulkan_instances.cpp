#include "wasm/instances/vulkan_instances.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>

#include "wasm/device/compiled_glsl.hpp"
#include "wasm/device/interpreter_layout.hpp"
#include "wasm/device/wasi_layout.hpp"
#include "wasm/instances/build_ahead_setting.hpp"
#include "wasm/load/host_modules.hpp"

namespace wavestack::wasm {
namespace dev = device;

namespace {
constexpr std::uint32_t kWorkgroup = 64;
// status, trap, trap index, executed (2), pages, WASI exit state and code, pending WASI
// function, pc, partial call's callee (interpreter_vulkan_outcome.glsl)
constexpr std::uint32_t kOutcomeWords = 11;
constexpr std::uint32_t kOutcomePc = 9;
constexpr std::uint32_t kOutcomeCallee = 10;
constexpr std::uint32_t kNoWord = 0xFFFFFFFFu;
// Per dispatch and invocation: template words copied. The run loop's records and loop work per
// dispatch depend on the device (dispatch_limits.hpp).
constexpr std::uint32_t kInstantiateWords = 16384;
// Dispatch sequences (run_sequence): the most dispatches of one submission, each counting the
// instances it leaves running in a word of its own after the group's outcomes (kSequenceWords
// of them), and the time below which the next step's sequence doubles (above it, halves), as the
// cpu device bounds a step by time: cancel, stops and progress between steps stay prompt.
constexpr std::uint32_t kSequenceWords = 64;
// A group's summary after a step, in the same words (interpreter_vulkan_outcome.glsl): two
// counts, the set of pending WASI functions (2 words), then a set of up to 60 x 32 block ids;
// compiled mode reads a module with more blocks whole.
constexpr std::uint32_t kSummaryWords = kSequenceWords;
constexpr std::uint32_t kSummaryWasiWord = 2;
constexpr std::uint32_t kSummaryBlockWord = 4;
constexpr std::uint32_t kSummaryBlocks = 32 * (kSummaryWords - kSummaryBlockWord);
constexpr auto kSequenceTime = std::chrono::milliseconds(10);
}  // namespace

// Layout of the shaders' push constant block (interpreter_vulkan_bindings.glsl).
struct VulkanInstances::Push {
  std::uint32_t count = 0;
  std::uint32_t quantum = 0;
  std::uint32_t function = 0;
  std::uint32_t state_stride = 0;
  std::uint32_t memory_stride = 0;
  std::uint32_t io_stride = 0;
  std::uint32_t params = 0;
  std::uint32_t results = 0;
  std::uint32_t fuel_lo = 0;
  std::uint32_t fuel_hi = 0;
  std::uint32_t fuel_limited = 0;
  std::uint32_t begin = 0;
  std::uint32_t budget = 0;
  std::uint32_t range_begin = 0;
  std::uint32_t range_end = 0;
  std::uint32_t template_memory_words = 0;
  std::uint32_t instance_base = 0;       // first_instance + the group's first instance (WASI nonces)
  std::uint32_t wasi_instance_word = 0;  // state word of the WASI instance index, or kNoWord
  std::uint32_t running_word = kNoWord;  // dispatch sequences: this dispatch's running count
  std::uint32_t skip_word = kNoWord;     // and the previous one's (0: nothing left to run)
  std::uint32_t args_word = 0;           // the group's first io word of arguments
  std::uint32_t summary_word = kNoWord;  // a step's last dispatch: where it sums the group up
  std::uint32_t summary_blocks = 0;      // and whether with the running instances' next blocks
  std::uint32_t page_table_word = 0;     // paged memory: the state word of the fault word
};
static_assert(sizeof(VulkanInstances::Push) == VulkanDevice::kPushBytes, "the shader's push constant block");

namespace {

std::span<const std::byte> bytes_of(const auto& values) {
  return std::as_bytes(std::span(values));
}

}  // namespace

VulkanInstances::VulkanInstances(const Module& module, std::uint32_t count, const ReserveOptions& options,
                                 const SpawnLimits& limits, const runtime::DeviceInfo& device,
                                 const runtime::ZeroedWords& wasi_region, std::shared_ptr<CompiledCode> compiled)
    : count_(count),
      image_(build_instance_image(module, link_imports(module), options, wasi_region, compiled.get())),
      start_(module.start),
      limits_(limits),
      compiled_(std::move(compiled)),
      imported_functions_(module.imported_functions) {
  std::uint32_t max_params = 0;
  std::uint32_t max_results = 0;
  for (std::size_t f = 0; f < module.function_types.size(); ++f) {
    const FuncType& type = module.function_type(static_cast<std::uint32_t>(f));
    params_.push_back(static_cast<std::uint32_t>(type.params.size()));
    results_.push_back(static_cast<std::uint32_t>(type.results.size()));
    max_params = std::max(max_params, params_.back());
    max_results = std::max(max_results, results_.back());
  }
  global_count_ = static_cast<std::uint32_t>(module.global_types.size());
  io_stride_ = kOutcomeWords + 2 * max_results;
  // A group's io buffer: every instance's outcome, the sequences' counters, then the call's
  // arguments packed (2 words a parameter), so that a call uploads its arguments and nothing else.
  const std::uint32_t io_words = io_stride_ + 2 * max_params;
  if (image_.instantiation_trap != 0) throw InstantiationTrap(image_.instantiation_trap);
  // Software adapters (lavapipe) compile most of a pipeline at its first dispatch, on the
  // device's one queue: building ahead there moves only glslang and the create step off the call
  // and measured no faster, while builds of units a run never reaches take the cores the calls
  // (and llvmpipe's own threads) use. So there only when asked for (`on`); elsewhere unless `off`.
  // Read here so that a bad value fails the spawn, before any work.
  build_ahead_ = compiled_ != nullptr && build_ahead_enabled_from_environment(!device.is_software);

  const SpawnBytes total = plan_groups(count, io_words, device);
  check_budget(total.committed, limits, count);
  if (device.limits.device_local_memory_bytes != 0 && total.allocated > device.limits.device_local_memory_bytes) {
    throw ResourceLimit("count: " + std::to_string(count) + " instances need " + std::to_string(total.allocated) +
                        " bytes, more than " + device.name + "'s memory (" +
                        std::to_string(device.limits.device_local_memory_bytes) +
                        "); lower count, memory_pages or stack_size");
  }

  device_ = VulkanDevice::shared(device);
  if (compiled_) {
    unit_pipelines_.resize(compiled_->unit_count());
    queued_ahead_.resize(compiled_->unit_count());
    prefix_pipelines_.resize(compiled_->unit_count());
  }
  {
    std::lock_guard lock(device_->mutex);
    TransferTally tally(device_->context, transfers_);
    if (!compiled_) static_cast<void>(device_->interpreter(paged_));  // before any allocation can fail late
    auto& context = device_->context;
    program_ = context.allocate(4 * image_.program.size());
    context.upload(program_, bytes_of(image_.program));
    // An instance's state (and page table), then its memory unless paged (vulkan_instantiate_main.glsl):
    // zero, then the blocks that hold data (the state's tens of MiB are mostly zero).
    const std::uint64_t tail = paged_ ? pool_layout_.state_suffix.size() : image_.memory.size();
    template_ = context.allocate(4 * (template_state_words() + tail));
    context.fill_zero(template_);
    const auto upload_runs = [&](const std::uint32_t* words, const std::vector<WordRun>& runs, std::uint64_t at) {
      for (const WordRun& run : runs) {
        context.upload(template_, std::as_bytes(std::span(words + run.first, run.count)), 4 * (at + run.first));
      }
    };
    upload_runs(image_.state.data(), image_.state_nonzero_runs, 0);
    if (paged_) {
      context.upload(template_, bytes_of(pool_layout_.state_suffix), 4ull * image_.state_words);
    } else {
      upload_runs(image_.memory.data(), image_.memory_nonzero_runs, template_state_words());
    }
    resident_bytes_ = program_.size() + template_.size();
    for (std::uint32_t first = 0; first < count; first += per_group_) {
      Group group;
      group.first = first;
      group.count = std::min(per_group_, count - first);
      group.state = context.allocate(4ull * group.count * state_stride_);
      group.io = context.allocate(4ull * (std::uint64_t{group.count} * io_words + kSequenceWords));
      context.fill_zero(group.state);
      if (paged_) {
        // Only the fixed frames are written: the rest is copied into before it is read.
        const std::uint32_t frames = pool_layout_.first_free_frame() + group.count * pool_frames_per_instance_;
        group.memory = context.allocate(std::uint64_t{kFrameBytes} * frames);
        context.upload(group.memory, bytes_of(pool_fixed_frames(pool_layout_, frames)));
      } else {
        group.memory = context.allocate(std::max<std::uint64_t>(4, 4ull * group.count * image_.memory_words));
        context.fill_zero(group.memory);
      }
      resident_bytes_ += group.state.size() + group.memory.size() + group.io.size();
      groups_.push_back(std::move(group));
    }
  }
  instantiate(false);  // fresh buffers are zero
}

VulkanInstances::SpawnBytes VulkanInstances::plan_groups(std::uint32_t count, std::uint32_t io_words,
                                                         const runtime::DeviceInfo& device) {
  const std::uint64_t range =
      std::min<std::uint64_t>(device.limits.max_storage_buffer_range, device.limits.max_buffer_size);
  const std::uint64_t device_memory = device.limits.device_local_memory_bytes;
  const std::uint64_t instances = std::max<std::uint64_t>(count, 1);
  // Dense memory, each instance's reserved pages in its own slice, unless the budget, the
  // device or its buffer range cannot hold them: then paged memory (decision 0014).
  const std::uint64_t dense = 4ull * (image_.program.size() + image_.state_words + image_.memory.size() +
                                      instances * (image_.state_words + io_words + image_.memory_words));
  paged_ =
      image_.memory_words != 0 && (paged_memory_forced() || 4ull * image_.memory_words > range ||
                                   dense > limits_.max_resident_bytes || (device_memory != 0 && dense > device_memory));
  state_stride_ = image_.state_words;
  if (paged_) {
    pool_layout_ = page_pool_layout(image_);
    state_stride_ += static_cast<std::uint32_t>(pool_layout_.state_suffix.size());
  }
  // Whole quads (the shaders read aligned quads of control words, and slots as 64-bit words).
  state_stride_ = (state_stride_ + 3U) & ~3U;
  const std::uint32_t memory_slice = paged_ ? 0u : image_.memory_words;
  const std::uint64_t widest = 4ull * std::max({state_stride_, memory_slice, io_words});
  if (widest > range) {
    const std::string beyond = ", more than " + device.name + "'s storage buffer range (" + std::to_string(range) +
                               " bytes, one instance's slice of a buffer); lower ";
    if (4ull * memory_slice == widest) {
      throw ResourceLimit("memory_pages: one instance's memory needs " + std::to_string(widest) + " bytes" + beyond +
                          "memory_pages");
    }
    // The state: its value stack (stack_size) and WASI region (storage_size, max_files and the
    // files embedded in it) are nearly all of it.
    const std::uint64_t stack = 8ull * image_.program[dev::H_STACK_SLOTS];
    const std::uint64_t wasi = 4ull * image_.wasi_words;
    throw ResourceLimit((wasi > stack ? "storage_size / stack_size" : "stack_size / storage_size") +
                        std::string(": one instance's state needs ") + std::to_string(widest) + " bytes (value stack " +
                        std::to_string(stack) + ", WASI region " + std::to_string(wasi) +
                        " for storage_size, max_files and the embedded files)" + beyond +
                        (wasi > stack ? "storage_size or stack_size" : "stack_size or storage_size"));
  }
  // The program and the template (the state and its paged suffix, or the memory).
  const std::uint64_t shared_bytes = 4ull * (image_.program.size() + template_state_words() +
                                             (paged_ ? pool_layout_.state_suffix.size() : image_.memory.size()));
  const std::uint64_t first_frame = pool_layout_.first_free_frame();
  // Frames of a pool one buffer can hold beside its fixed frames.
  const std::uint64_t free_frames = std::max<std::uint64_t>(range / kFrameBytes, first_frame) - first_frame;
  if (paged_) {
    // A group's pool holds, per instance, what the budget leaves after every instance's state,
    // table and io (at least kPoolFloorFrames, at most its reservation), within the device's memory.
    const std::uint64_t committed = shared_bytes + 4ull * instances * (state_stride_ + io_words);
    const std::uint64_t left = limits_.max_resident_bytes > committed ? limits_.max_resident_bytes - committed : 0;
    std::uint64_t share = std::max<std::uint64_t>(left / kFrameBytes / instances, kPoolFloorFrames);
    if (device_memory != 0) {
      share = std::min(share, device_memory > committed ? (device_memory - committed) / kFrameBytes / instances : 0);
    }
    share = std::min(share, free_frames);  // (and one instance's share within one buffer)
    pool_frames_per_instance_ =
        static_cast<std::uint32_t>(std::clamp<std::uint64_t>(share, 1, pool_layout_.table_entries));
  }
  // A group (batch) is one dispatch: within the buffer range and the workgroup count limit.
  const std::uint64_t max_invocations = std::uint64_t{device.limits.max_workgroup_count[0]} * kWorkgroup;
  // (the io buffer also holds the dispatch sequences' counters after the instances' words)
  const std::uint64_t io_batch =
      range > 4ull * kSequenceWords ? (range - 4ull * kSequenceWords) / (4ull * io_words) : 0;
  std::uint64_t device_batch = std::min<std::uint64_t>({range / widest, io_batch, max_invocations});
  if (paged_) {
    device_batch = std::min<std::uint64_t>(device_batch, free_frames / pool_frames_per_instance_);
    if (device_batch == 0) {
      throw ResourceLimit("memory_pages: the module's initial data (" + std::to_string(first_frame) +
                          " frames of 4 KiB) fills " + device.name + "'s storage buffer range");
    }
  }
  if (limits_.batch_size && *limits_.batch_size > device_batch) {
    throw ResourceLimit("batch_size: " + device.name + " holds at most " + std::to_string(device_batch) +
                        " instances of this module per batch (buffer range and workgroup count), got " +
                        std::to_string(*limits_.batch_size));
  }
  per_group_ = static_cast<std::uint32_t>(
      std::max<std::uint64_t>(1, std::min<std::uint64_t>({count, device_batch, limits_.batch_size.value_or(count)})));
  // What the allocations add up to (a group's memory buffer is at least one word); a pool
  // counts toward the budget only with its fixed frames.
  SpawnBytes total{shared_bytes, shared_bytes};
  for (std::uint32_t first = 0; first < count; first += per_group_) {
    const std::uint64_t n = std::min(per_group_, count - first);
    const std::uint64_t group_bytes = 4ull * (n * (state_stride_ + io_words) + kSequenceWords);
    if (paged_) {
      total.committed += group_bytes + kFrameBytes * first_frame;
      total.allocated += group_bytes + kFrameBytes * (first_frame + n * pool_frames_per_instance_);
    } else {
      const std::uint64_t bytes = group_bytes + std::max<std::uint64_t>(4, 4ull * n * image_.memory_words);
      total.committed += bytes;
      total.allocated += bytes;
    }
  }
  // The groups' fixed frames were not known when the share was: give the pools less if only
  // the share keeps the spawn from fitting the device.
  if (paged_ && device_memory != 0 && total.allocated > device_memory &&
      total.committed + kFrameBytes * instances <= device_memory) {
    pool_frames_per_instance_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        pool_frames_per_instance_, (device_memory - total.committed) / kFrameBytes / instances));
    total.allocated = total.committed + kFrameBytes * instances * pool_frames_per_instance_;
  }
  return total;
}

VulkanInstances::~VulkanInstances() {
  if (!device_) return;
  std::lock_guard lock(device_->mutex);
  groups_.clear();
  program_ = {};
  template_ = {};
}

// The buffers of the shaders' bindings 0..4 (interpreter_vulkan_bindings.glsl) for the group.
std::array<runtime::DeviceBuffer*, 5> VulkanInstances::bindings(Group& group) {
  return {&program_, &group.state, &group.memory, &template_, &group.io};
}

void VulkanInstances::dispatch(Group& group, const Push& push, const runtime::ComputePipeline& pipeline) {
  const auto buffers = bindings(group);
  device_->context.dispatch(pipeline, buffers, std::as_bytes(std::span(&push, 1)),
                            {(group.count + kWorkgroup - 1) / kWorkgroup, 1, 1});
}

// Generated and built when an instance first needs it (unless a build ahead of need got there
// first), counted in the module's compile counters.
const runtime::ComputePipeline& VulkanInstances::unit_pipeline(std::uint32_t unit, bool prefix) {
  SharedPipeline& pipeline = (prefix ? prefix_pipelines_ : unit_pipelines_).at(unit);
  if (pipeline) return *pipeline;
  const runtime::ComputePipeline& built =
      built_pipeline(pipeline, prefix ? compiled_->prefix_shader_source(unit) : compiled_->shader_source(unit));
  if (!prefix) build_successors_ahead(unit);
  return built;
}

void VulkanInstances::build_successors_ahead(std::uint32_t unit) {
  if (!build_ahead_) return;
  for (const std::uint32_t next : compiled_->successor_units(unit)) {
    if (unit_pipelines_.at(next) || queued_ahead_.at(next)) continue;
    const std::weak_ptr<CompiledCode> code = compiled_;
    const bool queued = compiled_->submit_ahead([code, next, device = device_, paged = paged_] {
      try {
        const std::shared_ptr<CompiledCode> alive = code.lock();
        if (!alive) return;  // the module is gone
        device->build_unit_ahead(alive->shader_source(next), paged,
                                 [&alive](double seconds) { alive->note_built_ahead(seconds); });
      } catch (const std::exception&) {
        // A unit that does not build fails where a call needs it, with the driver's message.
      }
    });
    if (!queued) return;  // building ahead is off (or the process is exiting)
    queued_ahead_.at(next) = true;
  }
}

const runtime::ComputePipeline& VulkanInstances::entry_pipeline() {
  if (entry_pipeline_) return *entry_pipeline_;
  return built_pipeline(entry_pipeline_, device::compiled_entry_shader_source());
}

const runtime::ComputePipeline& VulkanInstances::outcome_pipeline() {
  if (outcome_pipeline_) return *outcome_pipeline_;
  return built_pipeline(outcome_pipeline_, device::compiled_outcome_shader_source());
}

const runtime::ComputePipeline& VulkanInstances::built_pipeline(SharedPipeline& pipeline, const std::string& source) {
  if (!pipeline) {
    const auto begin = std::chrono::steady_clock::now();
    PipelineBuild build;
    pipeline = device_->unit(source, paged_, build);
    if (build.first_use) {
      // Some drivers (lavapipe) finish compiling at the first dispatch: one in which no
      // invocation does anything (count 0) makes that part of the build, not of the run. The
      // time counted is the call's: the build or the wait for one ahead of need, then this.
      dispatch(groups_.front(), Push{}, *pipeline);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      if (build.built) {
        compiled_->add_compile_seconds(seconds, build.spirv_from_cache);
        compiled_->note_pipeline_built();
      } else {
        compiled_->add_first_use_seconds(seconds);
      }
    }
  }
  return *pipeline;
}

// Downloads the group's io words and counts what they say: instances still running (a
// pending WASI call included) and records executed.
void VulkanInstances::read_outcome(Group& group) {
  group.outcome.resize(std::size_t{group.count} * io_stride_);
  device_->context.download(group.io, std::as_writable_bytes(std::span(group.outcome)));
  group.outcome_stale = false;
  group.next_blocks.clear();
  group.running = 0;
  group.wasi_pending.clear();
  group.executed = 0;
  for (std::uint32_t i = 0; i < group.count; ++i) {
    const std::uint32_t* w = group.outcome.data() + std::size_t{i} * io_stride_;
    if (w[0] == dev::STATUS_RUNNING || w[0] == dev::STATUS_WASI || w[0] == dev::STATUS_COMPILED_PREFIX) ++group.running;
    if (w[0] == dev::STATUS_WASI) group.wasi_pending.insert(w[8]);
    group.executed += std::uint64_t{w[3]} | (std::uint64_t{w[4]} << 32);
  }
}

void VulkanInstances::instantiate(bool clear_memory) {
  {
    std::lock_guard lock(device_->mutex);
    TransferTally tally(device_->context, transfers_);
    const auto memory_words = paged_ ? 0u : static_cast<std::uint32_t>(image_.memory.size());
    const std::vector<WordRun> ranges = instantiate_ranges(memory_words);
    for (Group& group : groups_) {
      // Pages grown since the last instantiation must read as zero again: dense memory is
      // cleared, paged memory's tables are copied afresh and its pool's frames given back.
      if (clear_memory && paged_) {
        const std::uint32_t first_free = pool_layout_.first_free_frame();
        device_->context.upload(group.memory, std::as_bytes(std::span(&first_free, 1)), 4 * kPoolNextFrameWord);
      } else if (clear_memory) {
        device_->context.fill_zero(group.memory);
      }
      if (clear_memory) device_->context.fill_zero(group.state);
      // The buffers are zero now: only the template's words that may not be are copied.
      for (const WordRun& range : ranges) {
        for (std::size_t begin = range.first; begin < range.first + range.count; begin += kInstantiateWords) {
          Push push;
          push.count = group.count;
          set_layout(push);
          push.range_begin = static_cast<std::uint32_t>(begin);
          push.range_end = static_cast<std::uint32_t>(std::min(range.first + range.count, begin + kInstantiateWords));
          push.template_memory_words = memory_words;
          push.instance_base = limits_.first_instance + group.first;
          push.wasi_instance_word = image_.wasi_words != 0 ? image_.wasi_offset + dev::WASI_H_INSTANCE : kNoWord;
          dispatch(group, push, device_->instantiation());
        }
      }
    }
  }
  run_start(start_, limits_);
}

// The template's words before its memory (vulkan_instantiate_main.glsl reads it at the state
// stride) or before paged memory's suffix (which follows the state as in an instance).
std::uint64_t VulkanInstances::template_state_words() const {
  return paged_ ? image_.state_words : state_stride_;
}

std::vector<WordRun> VulkanInstances::instantiate_ranges(std::uint32_t memory_words) const {
  std::vector<WordRun> ranges;  // memory's words first, then the state's: the state, which holds
                                // the memory's size, is copied last
  if (memory_words != 0) ranges = image_.memory_nonzero_runs;
  for (const WordRun& run : image_.state_nonzero_runs) ranges.push_back({memory_words + run.first, run.count});
  if (image_.wasi_words != 0) ranges.push_back({memory_words + image_.wasi_offset + dev::WASI_H_INSTANCE, 1});
  if (paged_) {
    ranges.push_back({memory_words + image_.state_words, static_cast<std::uint32_t>(pool_layout_.state_suffix.size())});
  }
  return ranges;
}

void VulkanInstances::reset() {
  instantiate(true);
}

void VulkanInstances::begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                                 std::optional<std::uint64_t> fuel) {
  const std::uint32_t params = params_.at(function);
  if (args.size() != std::size_t{count_} * params) throw std::invalid_argument("inputs: wrong number of values");
  if (params > image_.program[dev::H_STACK_SLOTS]) {
    throw std::invalid_argument("stack_size: too small for the arguments");
  }
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  if (params != 0) {
    for (Group& group : groups_) {
      const auto slots = args.subspan(std::size_t{group.first} * params, std::size_t{group.count} * params);
      std::vector<std::uint32_t> words(2 * slots.size());
      for (std::size_t j = 0; j < slots.size(); ++j) {
        words[2 * j] = static_cast<std::uint32_t>(slots[j]);
        words[2 * j + 1] = static_cast<std::uint32_t>(slots[j] >> 32);
      }
      device_->context.upload(group.io, bytes_of(words), 4ull * args_word(group));
    }
  }
  // The call starts with the first dispatch (one dispatch fewer per call).
  function_ = function;
  result_count_ = results_.at(function);
  fuel_ = fuel;
  begin_pending_ = true;
  sequence_ = 1;
  for (Group& group : groups_) {
    group.running = group.count;
    group.executed = 0;
  }
}

std::uint32_t VulkanInstances::args_word(const Group& group) const {
  return group.count * io_stride_ + kSequenceWords;
}

// Where a dispatch finds each instance's state, memory (or page table) and io words.
void VulkanInstances::set_layout(Push& push) const {
  push.state_stride = state_stride_;
  push.memory_stride = paged_ ? 0 : image_.memory_words;
  push.page_table_word = image_.state_words;
  push.io_stride = io_stride_;
}

VulkanInstances::Push VulkanInstances::run_push(const Group& group, std::uint32_t quantum) const {
  Push push;
  push.count = group.count;
  const DispatchLimits dispatch = dispatch_for(device_->dispatch_limits, quantum);
  push.quantum = dispatch.records;
  push.budget = dispatch.work;
  push.function = function_;
  set_layout(push);
  push.params = params_.at(function_);
  push.args_word = args_word(group);
  push.results = result_count_;
  push.begin = begin_pending_ ? 1u : 0u;
  push.fuel_limited = fuel_ ? 1u : 0u;
  push.fuel_lo = static_cast<std::uint32_t>(fuel_.value_or(0));
  push.fuel_hi = static_cast<std::uint32_t>(fuel_.value_or(0) >> 32);
  return push;
}

std::optional<std::uint32_t> VulkanInstances::callee_unit(std::uint32_t callee) const {
  if (callee < imported_functions_) return std::nullopt;
  return compiled_->unit_of(compiled_->entry_id(), callee);
}

std::vector<std::uint32_t> VulkanInstances::next_units(const Group& group, bool& host_call) const {
  std::set<std::uint32_t> units;
  std::optional<std::uint32_t> callee;
  // After the host's call, its callee's entry block: dispatched in the same step.
  const auto enter = [&](std::uint32_t function) {
    host_call = true;
    callee = callee_unit(function);
  };
  host_call = false;
  if (begin_pending_) {
    enter(function_);
  } else if (group.outcome_stale) {  // a summary: its blocks (none while every instance waits for WASI)
    for (const std::uint32_t block : group.next_blocks) units.insert(compiled_->unit_of(block, 0));
  } else {
    for (std::uint32_t i = 0; i < group.count; ++i) {
      const std::uint32_t* w = group.outcome.data() + std::size_t{i} * io_stride_;
      if (w[0] != dev::STATUS_RUNNING) continue;
      if (w[kOutcomePc] == compiled_->entry_id()) {
        enter(w[kOutcomeCallee]);  // (the call's function: the same for every instance)
      } else {
        units.insert(compiled_->unit_of(w[kOutcomePc], 0));
      }
    }
  }
  std::vector<std::uint32_t> order;
  if (callee) order.push_back(*callee);
  for (const std::uint32_t unit : units) {
    if (unit != callee) order.push_back(unit);
  }
  return order;
}

// Instances stopped before a block that fuel cannot finish run its prefix (at most once per
// call each), one dispatch of the prefix shader per unit holding such a block.
void VulkanInstances::run_prefixes(Group& group, const Push& push) {
  std::set<std::uint32_t> units;
  for (std::uint32_t i = 0; i < group.count; ++i) {
    const std::uint32_t* w = group.outcome.data() + std::size_t{i} * io_stride_;
    if (w[0] == dev::STATUS_COMPILED_PREFIX) units.insert(compiled_->unit_of(w[kOutcomePc], w[kOutcomeCallee]));
  }
  if (units.empty()) return;
  for (const std::uint32_t unit : units) dispatch(group, push, unit_pipeline(unit, true));
  read_outcome(group);
}

// The WASI service makes the calls the run stopped at, one pipeline per function called.
void VulkanInstances::service_wasi(Group& group, const Push& push) {
  if (group.wasi_pending.empty()) return;
  std::vector<const runtime::ComputePipeline*> services;
  for (const std::uint32_t id : group.wasi_pending) services.push_back(&device_->wasi_service(id, paged_));
  dispatch_each(group, push, services);
}

// The pipelines' dispatches one after another in one submission (the first starts the call
// when push.begin), the last summing the group up where its steps are summarised (the summary's
// words cleared first and read back in the same submission: read_summary), else every outcome
// read after them.
void VulkanInstances::dispatch_each(Group& group, Push push,
                                    std::span<const runtime::ComputePipeline* const> pipelines) {
  const bool summary = summarised(group);
  std::vector<Push> pushes(pipelines.size(), push);
  for (std::size_t k = 1; k < pushes.size(); ++k) pushes[k].begin = 0;
  const auto buffers = bindings(group);
  const std::array<std::uint32_t, 3> workgroups{(group.count + kWorkgroup - 1) / kWorkgroup, 1, 1};
  if (!summary) {
    device_->context.dispatch_sequence(pipelines, buffers, bytes_of(pushes), workgroups, {}, {}, {});
    read_outcome(group);
    return;
  }
  pushes.back().summary_word = group.count * io_stride_;  // the sequences' counter words
  pushes.back().summary_blocks = compiled_ ? 1 : 0;
  const runtime::BufferSlice slice{&group.io, 4ull * pushes.back().summary_word, 4ull * kSummaryWords};
  std::array<std::uint32_t, kSummaryWords> words{};
  device_->context.dispatch_sequence(pipelines, buffers, bytes_of(pushes), workgroups, slice, slice,
                                     std::as_writable_bytes(std::span(words)));
  read_summary(group, words);
}

// Whether the group's steps end in a summary (interpreter_vulkan_outcome.glsl) rather than a
// read of every outcome: where the outcomes are more words, and in compiled mode where the
// module's blocks fit the summary's set.
bool VulkanInstances::summarised(const Group& group) const {
  if (std::uint64_t{group.count} * io_stride_ <= kSummaryWords) return false;
  return !compiled_ || compiled_->entry_id() <= kSummaryBlocks;
}

// While instances run and none needs the host's look (a prefix, a partly entered call, a block
// or WASI function outside the sets), the summary says all the next step needs: how many run,
// the WASI functions to service, the blocks to continue at. Otherwise, or when the group has
// finished, every outcome is read.
void VulkanInstances::read_summary(Group& group, std::span<const std::uint32_t> words) {
  if (words[0] == 0 || words[1] != 0) {
    read_outcome(group);
    return;
  }
  group.running = words[0];
  group.outcome_stale = true;
  group.wasi_pending.clear();
  group.next_blocks.clear();
  const auto each_bit = [&](std::uint32_t first, std::uint32_t end, auto&& take) {
    for (std::uint32_t w = first; w < end; ++w) {
      for (std::uint32_t bits = words[w]; bits != 0; bits &= bits - 1) {
        take(32 * (w - first) + static_cast<std::uint32_t>(std::countr_zero(bits)));
      }
    }
  };
  each_bit(kSummaryWasiWord, kSummaryBlockWord, [&](std::uint32_t id) { group.wasi_pending.insert(id); });
  if (compiled_) {
    each_bit(kSummaryBlockWord, kSummaryWords, [&](std::uint32_t block) { group.next_blocks.push_back(block); });
  }
}

// One dispatch per unit the group's instances continue in, after the host's call where one
// is to be made, then the outcome shader's (summarising), all in one submission.
void VulkanInstances::run_units(Group& group, Push push) {
  bool host_call = false;
  const std::vector<std::uint32_t> next = next_units(group, host_call);
  std::vector<const runtime::ComputePipeline*> units;
  if (host_call) units.push_back(&entry_pipeline());  // first: its instances go on in a unit below
  for (const std::uint32_t unit : next) units.push_back(&unit_pipeline(unit));
  units.push_back(&outcome_pipeline());  // the outcome words the runs left to it
  dispatch_each(group, push, units);
  push.begin = 0;
  if (group.outcome_stale) return;  // (a summary: no instance waits for a prefix)
  run_prefixes(group, push);
}

// Up to `length` interpreter dispatches of the group in one submission; between them the device
// decides whether to go on (a dispatch after one that left nothing running returns at once),
// and the host reads one running count per dispatch instead of every instance's outcome, then
// the outcomes once the group has finished. Returns the dispatches that had instances to run.
std::uint32_t VulkanInstances::run_sequence(Group& group, const Push& push, std::uint32_t length) {
  const std::uint32_t counters = group.count * io_stride_;  // the first word after the outcomes
  std::vector<Push> pushes(length, push);
  for (std::uint32_t i = 0; i < length; ++i) {
    pushes[i].running_word = counters + i;
    pushes[i].skip_word = i == 0 ? kNoWord : counters + i - 1;
    if (i != 0) pushes[i].begin = 0;
  }
  std::vector<std::uint32_t> running(length);
  const auto buffers = bindings(group);
  const runtime::BufferSlice slice{&group.io, 4ull * counters, 4ull * length};
  device_->context.dispatch_sequence(device_->interpreter(paged_), buffers, bytes_of(pushes),
                                     {(group.count + kWorkgroup - 1) / kWorkgroup, 1, 1}, length, slice, slice,
                                     std::as_writable_bytes(std::span(running)));
  std::uint32_t ran = 1;  // the first had (it runs only for a group with instances running)
  while (ran < length && running[ran - 1] != 0) ++ran;
  group.running = running.back();
  if (group.running == 0) read_outcome(group);
  return ran;
}

// One dispatch per group, or in compiled mode one per unit its instances continue in: each
// instance runs only in its own unit's shader (the others leave at once), and one that
// reaches a unit dispatched later in the same step runs on there. The interpreter without
// WASI (whose host needs no instance's outcome to go on) runs dispatch sequences instead when
// the caller allows several dispatches per step: the instructions executed are then counted
// when a group finishes, not after every dispatch.
StepProgress VulkanInstances::step(std::uint32_t quantum, std::uint32_t max_quanta) {
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  StepProgress progress;
  const bool sequences = !compiled_ && image_.wasi_words == 0 && max_quanta > 1;
  const std::uint32_t length = std::min(sequence_, max_quanta);
  const auto started = std::chrono::steady_clock::now();
  for (Group& group : groups_) {
    if (group.running == 0) {
      progress.executed += group.executed;
      continue;
    }
    Push push = run_push(group, quantum);
    if (sequences) {
      progress.quanta = std::max(progress.quanta, run_sequence(group, push, length));
    } else if (compiled_) {
      run_units(group, push);
    } else if (image_.wasi_words != 0) {
      // (a cancel callback without WASI reads every outcome after each dispatch, as the
      // original does)
      const runtime::ComputePipeline* interpreter = &device_->interpreter(paged_);
      dispatch_each(group, push, std::span(&interpreter, 1));
    } else {
      dispatch(group, push, device_->interpreter(paged_));
      read_outcome(group);
    }
    if (!sequences) service_wasi(group, push);
    progress.running += group.running;
    progress.executed += group.executed;
  }
  begin_pending_ = false;
  if (sequences) {
    const bool quick = std::chrono::steady_clock::now() - started < kSequenceTime;
    sequence_ = quick ? std::min(2 * sequence_, kSequenceWords) : std::max(1u, sequence_ / 2);
  }
  return progress;
}

CallOutcome VulkanInstances::outcome(std::uint32_t /*result_count: fixed by begin_call*/) {
  CallOutcome result;
  result.status.resize(count_);
  result.trap.resize(count_);
  result.trap_index.resize(count_);
  result.results.resize(std::size_t{count_} * result_count_);
  result.exit_state.resize(count_);
  result.exit_code.resize(count_);
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  for (Group& group : groups_) {
    if (group.outcome_stale) read_outcome(group);  // a call that stopped early (cancel)
  }
  for (const Group& group : groups_) {
    for (std::uint32_t i = 0; i < group.count; ++i) {
      const std::uint32_t* w = group.outcome.data() + std::size_t{i} * io_stride_;
      const std::uint32_t at = group.first + i;
      result.status[at] = w[0];
      result.trap[at] = w[1];
      result.trap_index[at] = w[2];
      result.executed += std::uint64_t{w[3]} | (std::uint64_t{w[4]} << 32);
      result.exit_state[at] = w[6];
      result.exit_code[at] = w[7];
      if (w[0] != dev::STATUS_RETURNED) continue;
      for (std::uint32_t k = 0; k < result_count_; ++k) {
        result.results[std::size_t{at} * result_count_ + k] =
            std::uint64_t{w[kOutcomeWords + 2 * k]} | (std::uint64_t{w[kOutcomeWords + 2 * k + 1]} << 32);
      }
    }
  }
  return result;
}

VulkanInstances::Group& VulkanInstances::group_of(std::uint32_t instance, std::uint32_t& local) {
  if (instance >= count_) throw std::out_of_range("instance: out of range");
  local = instance % per_group_;
  return groups_[instance / per_group_];
}

std::uint32_t VulkanInstances::memory_size_bytes(std::uint32_t instance) {
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  std::uint32_t pages = 0;
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  device_->context.download(group.state, std::as_writable_bytes(std::span(&pages, 1)), state_word(local, dev::S_PAGES));
  return pages * 65536u;
}

void VulkanInstances::check_range(std::uint32_t instance, std::uint64_t address, std::uint64_t length) {
  const std::uint64_t size = memory_size_bytes(instance);
  if (address + length > size) {
    throw std::out_of_range("address: " + std::to_string(address) + " + length " + std::to_string(length) +
                            " is beyond the instance's memory (" + std::to_string(size) + " bytes)");
  }
}

void VulkanInstances::read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) {
  check_range(instance, address, out.size());
  if (out.empty()) return;
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  if (paged_) {
    paged_memory(group, local).read(address, out);
    return;
  }
  device_->context.download(group.memory, std::as_writable_bytes(out),
                            4ull * std::size_t{local} * image_.memory_words + address);
}

void VulkanInstances::write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) {
  check_range(instance, address, data.size());
  if (data.empty()) return;
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  if (paged_) {
    paged_memory(group, local).write(address, data);
    return;
  }
  device_->context.upload(group.memory, std::as_bytes(data), 4ull * std::size_t{local} * image_.memory_words + address);
}

std::uint64_t VulkanInstances::global_value(std::uint32_t instance, std::uint32_t global) {
  if (global >= global_count_) throw std::out_of_range("global: out of range");
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  std::uint32_t words[2] = {0, 0};
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  device_->context.download(group.state, std::as_writable_bytes(std::span(words)),
                            state_word(local, image_.globals_offset + 2ull * global));
  return std::uint64_t{words[0]} | (std::uint64_t{words[1]} << 32);
}

}  // namespace wavestack::wasm

namespace wavestack::wasm {

std::vector<std::uint32_t> VulkanInstances::wasi_region(std::uint32_t instance) {
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  std::vector<std::uint32_t> region(image_.wasi_words);
  if (region.empty()) return region;
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  device_->context.download(group.state, std::as_writable_bytes(std::span(region)),
                            state_word(local, image_.wasi_offset));
  return region;
}

void VulkanInstances::set_wasi_region(std::uint32_t instance, std::span<const std::uint32_t> region) {
  std::uint32_t local = 0;
  Group& group = group_of(instance, local);
  if (region.size() != image_.wasi_words) throw std::invalid_argument("region: not this spawn's WASI region");
  std::lock_guard lock(device_->mutex);
  TransferTally tally(device_->context, transfers_);
  device_->context.upload(group.state, std::as_bytes(region), state_word(local, image_.wasi_offset));
}

}  // namespace wavestack::wasm
