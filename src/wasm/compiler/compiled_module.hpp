// A module compiled for execution="compiled": its units (units.hpp), the program image's
// compiled form, and each unit's code generated and built lazily, when a call first reaches
// it, then kept for the module's life (shared by every spawn of the module).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/compiler/cpu_unit_code.hpp"
#include "wasm/compiler/unit_codegen.hpp"
#include "wasm/compiler/units.hpp"
#include "wasm/instances/compiled_code.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm::compiler {

inline constexpr std::size_t kMaxUnitSourceBytes = 65536;

struct CompiledSummary {
  std::uint32_t units = 0;
  std::uint32_t functions = 0;  // defined functions, every one compiled
  std::uint32_t blocks = 0;
  std::uint64_t instructions = 0;
  std::uint32_t jump_table_entries = 0;
  bool complete = true;  // every defined function has code (never false: nothing is dropped)
};

class CompiledModule final : public CompiledCode, public std::enable_shared_from_this<CompiledModule> {
 public:
  // Partitions `module` (throws as partition_units does). Nothing is generated yet.
  // `module_digest` identifies the module's binary and load options (a SHA-256 the loader
  // computed): with the options and the code generator's fingerprint it keys the cache entries
  // of its units, so a warm start loads them without generating any text. Make it with
  // std::make_shared (background builds keep it alive while they run).
  // `label`: how progress lines name the module (its file name).
  // `prefetched`: the partition load_cached_partition found for the same digest and options
  // (a loader reads it beside decoding), instead of looking again.
  CompiledModule(const Module& module, const UnitOptions& options, const std::string& module_digest,
                 std::string label = "the module", std::optional<CompiledLayout> prefetched = std::nullopt);

  [[nodiscard]] const CompiledLayout& layout() const noexcept { return layout_; }
  [[nodiscard]] CompiledSummary summary() const;
  // Whether the partition came from the disk cache (layout_cache.hpp) rather than being made.
  [[nodiscard]] bool layout_from_cache() const noexcept { return layout_from_cache_; }
  // The unit's generated texts (device subset), generated on first use.
  [[nodiscard]] UnitSource unit_source(std::uint32_t unit);
  // The complete C++ source of the cpu device's library `kind` (0: the unit, 1: its prefixes).
  [[nodiscard]] std::string cpu_source(std::uint32_t unit, int kind);

  [[nodiscard]] const std::vector<std::uint32_t>& jump_table_words() const override { return jump_words_; }
  [[nodiscard]] std::uint32_t function_entry(std::uint32_t defined) const override;
  [[nodiscard]] std::uint32_t entry_id() const override;
  [[nodiscard]] std::uint32_t unit_count() const override;
  [[nodiscard]] std::uint32_t unit_of(std::uint32_t id, std::uint32_t callee) const override;
  [[nodiscard]] CpuUnitFunction cpu_unit(std::uint32_t unit) override;
  [[nodiscard]] std::uint32_t cpu_run(std::uint32_t unit, const std::uint32_t* program, std::uint32_t* state,
                                      std::uint32_t* memory, std::uint32_t quantum, std::uint32_t budget) override;
  [[nodiscard]] CpuUnitGroupFunction cpu_unit_group(std::uint32_t unit, std::uint32_t callee) override;
  [[nodiscard]] CpuUnitGroupFunction cpu_unit_group_at(std::uint32_t unit, std::uint32_t block) override;
  [[nodiscard]] std::uint32_t lane_group_size() const override;
  [[nodiscard]] bool has_lane_groups() const override {
    const CpuUnitCode* code = cpu_code_ready_.load(std::memory_order_acquire);
    return code != nullptr && code->has_lane_groups();
  }
  [[nodiscard]] CpuPrefixFunction cpu_prefix(std::uint32_t unit) override;
  void note_unit_runs(std::uint32_t unit, std::uint32_t runs) override { cpu_code().note_runs(unit, runs); }
  [[nodiscard]] std::string shader_source(std::uint32_t unit) override;
  [[nodiscard]] std::string prefix_shader_source(std::uint32_t unit) override;
  void add_compile_seconds(double seconds, bool from_cache) override;
  void note_pipeline_built() override { progress_.note_unit(false); }
  bool submit_ahead(std::function<void()> task) override;
  void note_built_ahead(double seconds) override;
  void add_first_use_seconds(double seconds) override;
  [[nodiscard]] CompileCounters counters() const override;

  // The units' native code on the cpu device (created on first use).
  [[nodiscard]] CpuUnitCode& cpu_code();
  // Progress of this module's builds on stderr (build_progress.hpp).
  [[nodiscard]] BuildProgress& progress() { return progress_; }
  // The units whose blocks control can reach from `unit`'s blocks next: branch targets and
  // directly called functions' entries (not returns, not call_indirect's callees).
  [[nodiscard]] std::vector<std::uint32_t> successor_units(std::uint32_t unit) const override;

 private:
  // `count`: add the generation's time to the counters (cpu builds count their own).
  const UnitSource& unit_source_locked(std::uint32_t unit, bool count);
  // The unit's text after the preamble (device::compiled_cpu_unit_text, with its lane groups or
  // without, or the prefixes' text for kind 1).
  std::string cpu_text_locked(std::uint32_t unit, int kind, bool lane_groups);

  Program program_;
  std::uint32_t imported_functions_ = 0;
  std::string code_key_;  // the module digest, the options and the generator's fingerprint
  bool layout_from_cache_ = false;
  CompiledLayout layout_;
  std::vector<std::uint32_t> jump_words_;

  mutable std::mutex mutex_;
  std::vector<std::optional<UnitSource>> sources_;
  BuildProgress progress_;
  std::unique_ptr<CpuUnitCode> cpu_code_;              // created under mutex_
  std::atomic<CpuUnitCode*> cpu_code_ready_{nullptr};  // then published for lock-free readers
  CompileCounters counters_;                           // Vulkan builds and shader texts
};

// The partition of the module with `module_digest` under `options` from the disk cache, or
// nullopt; needs only the digest, so a loader can read it while it still decodes the module.
[[nodiscard]] std::optional<CompiledLayout> load_cached_partition(const std::string& module_digest,
                                                                  const UnitOptions& options);

}  // namespace wavestack::wasm::compiler
