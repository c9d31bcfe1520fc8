// A module compiled for execution="compiled": its units (units.hpp), the program image's
// compiled form, and each unit's code generated and built lazily, when a call first reaches
// it, then kept for the module's life (shared by every spawn of the module).
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wasm/compiled_code.hpp"
#include "wasm/compiler/compiled_layout.hpp"
#include "wasm/compiler/cpu_tiers.hpp"
#include "wasm/compiler/unit_codegen.hpp"
#include "wasm/compiler/units.hpp"
#include "wasm/module.hpp"

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

class CompiledModule final : public CompiledCode {
 public:
  // Partitions `module` (throws as partition_units does). Nothing is generated yet.
  CompiledModule(const Module& module, const UnitOptions& options);

  [[nodiscard]] const CompiledLayout& layout() const noexcept { return layout_; }
  [[nodiscard]] CompiledSummary summary() const;
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
  [[nodiscard]] CpuUnitGroupFunction cpu_unit_group(std::uint32_t unit, std::uint32_t callee) override;
  [[nodiscard]] CpuUnitGroupFunction cpu_unit_group_at(std::uint32_t unit, std::uint32_t block) override;
  [[nodiscard]] std::uint32_t lane_group_size() const override;
  [[nodiscard]] bool has_lane_groups() const override { return has_lane_groups_.load(std::memory_order_acquire); }
  [[nodiscard]] CpuPrefixFunction cpu_prefix(std::uint32_t unit) override;
  [[nodiscard]] std::string shader_source(std::uint32_t unit) override;
  [[nodiscard]] std::string prefix_shader_source(std::uint32_t unit) override;
  void add_compile_seconds(double seconds, bool from_cache) override;
  [[nodiscard]] CompileCounters counters() const override;

 private:
  // The built library `kind` (0: the unit, 1: its prefixes) of `unit`: its entry point.
  void* cpu_library(std::uint32_t unit, int kind);
  const UnitSource& unit_source_locked(std::uint32_t unit);
  // The unit's text after the preamble (device::compiled_cpu_unit_text, or the prefixes'
  // text for kind 1); `groups`, when given, receives its grouped runs (LaneGroupSource::runs).
  std::string cpu_text_locked(std::uint32_t unit, int kind,
                              std::vector<std::pair<std::uint32_t, std::uint32_t>>* groups);

  Program program_;
  std::uint32_t imported_functions_ = 0;
  CompiledLayout layout_;
  std::vector<std::uint32_t> jump_words_;

  mutable std::mutex mutex_;
  std::vector<std::optional<UnitSource>> sources_;
  // Per kind (unit, prefixes) and unit: the entry point once built, readable without the lock
  // (control moves between units often), and whether a thread is building it now.
  std::array<std::vector<std::atomic<void*>>, 2> ready_;
  std::vector<std::atomic<void*>> group_ready_;  // per unit: its lane group entry (set before ready_[0])
  // Per unit: its grouped runs' block ids (LaneGroupSource::runs), written once when it is
  // built, before group_ready_ and ready_ publish it.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> grouped_runs_;
  std::atomic<bool> has_lane_groups_{false};
  std::array<std::vector<bool>, 2> building_;
  std::condition_variable built_;
  std::optional<CpuTierPlan> tier_plan_;  // read from the environment at the first build
  CompileCounters counters_;
};

}  // namespace wavestack::wasm::compiler
