// Instances on the `cpu` device: the interpreter compiled as C++ (cpu_interpreter.cpp) on the
// runtime's thread pool. Instance i's state and memory are slices of two shared arrays
// (fixed strides), so many small instances cost little; the program image and the instance
// template are built once.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "wasm/instances/compiled_code.hpp"
#include "wasm/instances/cpu_interpreter.hpp"
#include "wasm/instances/instance_image.hpp"
#include "wasm/instances/instance_set.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm {

class CpuInstances final : public InstanceSet {
 public:
  // Allocates and instantiates (segments from the template, then the start function).
  // Throws LinkError, std::invalid_argument (reservations), ResourceLimit (before allocating),
  // InstantiationTrap.
  // With `compiled`, the instances run compiled mode: each unit's native code (built on first
  // use), never the interpreter.
  CpuInstances(const Module& module, std::uint32_t count, const ReserveOptions& options, const SpawnLimits& limits,
               const runtime::ZeroedWords& wasi_region = runtime::ZeroedWords(),
               std::shared_ptr<CompiledCode> compiled = nullptr);

  // Bytes a spawn of `count` instances of `image` commits: the program image, and per instance
  // the 4 KiB blocks of its state and memory that the templates' data fills plus the block of
  // the value stack every call writes. The rest of each reservation is address space that the
  // kernel commits when the program first touches it (a page of memory a program writes, its
  // deeper stack, its files' storage). What resident_bytes() reports, checked against
  // max_resident_bytes.
  [[nodiscard]] static std::uint64_t estimate_bytes(const InstanceImage& image, std::uint32_t count);
  // The address space a spawn reserves: every instance's whole state and memory_pages.
  [[nodiscard]] static std::uint64_t reserved_bytes(const InstanceImage& image, std::uint32_t count);
  // Words from one instance's state to the next: the image's, rounded up to whole 64-byte
  // lines, so that every instance's control words and stack base sit on the fewest lines (at
  // 100,000 instances a pass reads them from memory: a line straddled is a line more per call).
  [[nodiscard]] static std::uint32_t state_stride(const InstanceImage& image);
  // The bytes one instance's state and memory commit (the pages their data blocks cover, and
  // the state's stack base): what estimate_bytes counts per instance.
  struct SliceBytes {
    std::uint64_t state;
    std::uint64_t memory;
  };
  [[nodiscard]] static SliceBytes committed_per_instance(const InstanceImage& image);
  // At most 2^45 bytes (32 TiB, a quarter of x86-64's user address space) reserved per spawn.
  static constexpr std::uint64_t kMaxReservedBytes = std::uint64_t{1} << 45;

  [[nodiscard]] std::uint32_t count() const noexcept override { return count_; }
  [[nodiscard]] std::uint64_t resident_bytes() const noexcept override;
  // Host memory only: no submissions, fence waits or transfers to count.
  [[nodiscard]] TransferCounts transfers() const noexcept override { return {}; }
  [[nodiscard]] std::uint32_t memory_capacity_pages() const noexcept { return image_.memory_capacity_pages; }

  void begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                  std::optional<std::uint64_t> fuel) override;
  StepProgress step(std::uint32_t quantum, std::uint32_t max_quanta) override;
  [[nodiscard]] CallOutcome outcome(std::uint32_t result_count) override;
  void reset() override;
  [[nodiscard]] std::uint32_t memory_size_bytes(std::uint32_t instance) override;
  void read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) override;
  void write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) override;
  [[nodiscard]] std::uint64_t global_value(std::uint32_t instance, std::uint32_t global) override;
  [[nodiscard]] std::vector<std::uint32_t> wasi_region(std::uint32_t instance) override;
  void read_wasi_region(std::uint32_t instance,
                        const std::function<void(std::span<const std::uint32_t>)>& reader) override;
  void set_wasi_region(std::uint32_t instance, std::span<const std::uint32_t> region) override;
  [[nodiscard]] const std::vector<std::uint32_t>& program_image() const noexcept override { return image_.program; }

 private:
  void instantiate();
  // The unit a call begins in, resolved once per call rather than once per instance.
  struct EntryUnit {
    std::uint32_t function = 0;
    std::uint32_t unit = 0;
    CpuUnitFunction run = nullptr;
    CpuUnitGroupFunction group = nullptr;  // lane groups of `lanes` instances, when used
    std::uint32_t lanes = 1;
  };
  static constexpr std::uint32_t kMaxLaneGroup = 8;
  // A later quantum's lane group: instances first .. first + lanes all running at one block
  // (none in a call's continuation) of a grouped run give its unit's group entry and the unit;
  // anything else gives null.
  std::pair<CpuUnitGroupFunction, std::uint32_t> group_at_one_block(std::uint32_t first, std::uint32_t lanes);
  std::uint32_t run_one(std::uint32_t instance, std::uint32_t quantum, std::uint32_t budget,
                        const EntryUnit* entry = nullptr);
  // Compiled mode after a run of `unit` that did not end the call (`status`): its prefix, a
  // WASI call, the next units' runs while the call runs and the quantum lasts (`start`: the
  // records executed when the quantum began).
  std::uint32_t continue_run(const CpuInstanceView& view, std::uint32_t quantum, std::uint32_t budget,
                             std::uint32_t unit, std::uint32_t status, std::uint64_t start);
  std::uint32_t* state(std::uint32_t i) { return state_.get() + std::size_t{i} * state_stride_; }
  // Passes over the instances touch each one's control words and the start of its value stack,
  // one instance after another: fetching those lines a few instances ahead hides the cache
  // misses that dominate short calls (10,000 instances' states are tens of megabytes).
  void prefetch_instance(std::uint32_t i) const;
  // A call begins in the same pass as its first run (each instance's state is then touched
  // once while in cache, not once to begin and again to run): begin_call checks its arguments
  // and keeps them here; step begins each instance right before running it, and anything else
  // that reads or writes the instances first begins them all (settle_pending_call).
  struct PendingCall {
    std::uint32_t function = 0;
    std::uint32_t params = 0;
    std::vector<std::uint64_t> args;
    CpuCallStart start;  // the control words every instance's start writes
  };
  // Begins `call` on `instance`, whose state is `state` (its value stack at word `stack`).
  static void begin_one(const PendingCall& call, std::uint32_t instance, std::uint32_t* state, std::uint32_t stack);
  void settle_pending_call();
  // Likewise an instance's outcome is read in the pass whose run finished its call (into
  // finished_), so that outcome() reads only the instances still running (a cancelled call).
  // Returns the records the instance's call executed.
  std::uint64_t note_outcome(std::uint32_t instance, const std::uint32_t* state);
  void read_outcome(std::uint32_t instance, const std::uint32_t* state, std::uint32_t result_count,
                    CallOutcome& into) const;
  std::uint32_t* memory(std::uint32_t i) { return memory_.get() + std::size_t{i} * image_.memory_words; }
  [[nodiscard]] const std::uint32_t* memory(std::uint32_t i) const {
    return memory_.get() + std::size_t{i} * image_.memory_words;
  }
  // Releases the instances' memory mapping. (`bytes` has no default member initializer: with
  // one, unique_ptr would not see this nested type as default-constructible inside the class.)
  struct Unmap {
    std::size_t bytes;
    void operator()(std::uint32_t* p) const noexcept;
  };

  std::uint32_t count_;
  std::shared_ptr<CompiledCode> compiled_;
  InstanceImage image_;
  std::uint32_t state_stride_;  // state_stride(image_)
  std::optional<std::uint32_t> start_;
  SpawnLimits limits_;
  // Anonymous mappings: the operating system provides zero pages lazily, so a large
  // reservation costs only what the instances touch, and reset() can hand every page back at
  // once (MADV_DONTNEED) instead of clearing it.
  std::unique_ptr<std::uint32_t, Unmap> state_;
  std::size_t state_total_words_ = 0;
  std::unique_ptr<std::uint32_t, Unmap> memory_;
  std::size_t memory_total_words_ = 0;
  std::uint32_t global_count_ = 0;
  bool instantiated_ = false;
  // Byte offsets of the memory lines the last call's first step wrote in instance 0: the lines
  // a pass prefetches in the instances it runs next (memory_blocks.hpp).
  std::vector<std::uint32_t> hot_lines_;
  std::vector<std::uint32_t> params_;   // per function
  std::vector<std::uint32_t> results_;  // per function
  std::optional<PendingCall> pending_call_;
  // The current call's outcomes noted so far: an instance's is noted where its status there is
  // not 0 (a noted call has ended: returned, trapped or out of fuel). Sized for the call by
  // begin_call; emptied when outcome() hands it over and by reset() (outcome() then reads
  // every instance's state, which still holds the same outcome).
  CallOutcome finished_;
  std::uint64_t finished_executed_ = 0;  // records the noted instances' calls executed
  std::uint32_t finished_results_ = 0;   // results per instance in finished_
};

}  // namespace wavestack::wasm
