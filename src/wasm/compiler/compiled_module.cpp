#include "wasm/compiler/compiled_module.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "wasm/compiler/block_codegen.hpp"
#include "wasm/compiler/cpu_unit_build.hpp"
#include "wasm/compiler/lane_group_codegen.hpp"
#include "wasm/compiler/unit_codegen.hpp"
#include "wasm/device/compiled_glsl.hpp"
#include "wasm/opcodes.hpp"

namespace wavestack::wasm::compiler {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The real size of a block's generated source, for the unit limits: generated with its pcs
// standing in for block ids (ids have at most as many digits as pcs).
SourceEstimate generated_size(const Program& program) {
  // The functions' first records, in order (code is laid out function after function): a
  // block's function is the last one starting at or before it.
  std::vector<std::uint32_t> starts;
  starts.reserve(program.functions.size());
  for (const FunctionRecord& function : program.functions) starts.push_back(function.code_begin);
  return [&program, starts = std::move(starts)](const Block& block) {
    const auto after = std::upper_bound(starts.begin(), starts.end(), block.begin);
    const FunctionRecord* function =
        after == starts.begin() ? nullptr : &program.functions[static_cast<std::size_t>(after - starts.begin()) - 1];
    CompiledBlock stand_in;
    stand_in.id = block.begin;
    stand_in.begin = block.begin;
    stand_in.end = block.end;
    stand_in.instruction_count = block.instruction_count;
    stand_in.terminator = block.terminator;
    stand_in.ends_in_call = block.ends_in_call;
    stand_in.successors = block.successors;
    if (stand_in.successors.empty() && block.terminator != Terminator::kBrTable &&
        block.terminator != Terminator::kReturn && block.terminator != Terminator::kUnreachable) {
      stand_in.successors.push_back(block.end);
    }
    stand_in.table_begin = block.table_begin;
    stand_in.table_size = block.table_size;
    // Resumable blocks continue at id + 1.
    if (block.instruction_count == 1 && !stand_in.successors.empty()) stand_in.successors = {stand_in.id + 1U};
    // (Every successor a direct jump: the longest text.)
    const BlockSource source = generate_block(program, stand_in, [](std::uint32_t) { return true; });
    std::size_t bytes = source.body.size() + source.prefix.size() + 128;  // + its cases in the units' switches
    if (function != nullptr) {
      if (source.resumable) bytes += resumable_site_bytes(function->param_count + function->local_count);
      if (block.begin == function->code_begin) bytes += kEntryCaseBytes;
    }
    return bytes;
  };
}

UnitOptions with_real_sizes(UnitOptions options, const Program& program) {
  options.max_source_bytes = std::min(options.max_source_bytes, kMaxUnitSourceBytes - kUnitFixedBytes);
  if (!options.estimate_source) options.estimate_source = generated_size(program);
  return options;
}

}  // namespace

CompiledModule::CompiledModule(const Module& module, const UnitOptions& options)
    : program_(module.program),
      imported_functions_(module.imported_functions),
      layout_(partition_units(module, with_real_sizes(options, module.program))) {
  if (layout_.units.empty()) layout_.units.emplace_back();  // ENTRY of an imported callee runs somewhere
  // Jump tables: per br_table entry its target block and the entry record's arity and height.
  for (const Unit& unit : layout_.units) {
    for (const CompiledBlock& block : unit.blocks) {
      if (block.terminator != Terminator::kBrTable) continue;
      const std::uint32_t first_entry = block.end - block.table_size;
      for (std::uint32_t i = 0; i < block.table_size; ++i) {
        const Instruction& entry = program_.code.at(first_entry + i);
        const std::uint32_t k = block.table_begin + i;
        if (jump_words_.size() < 4U * (k + 1U)) jump_words_.resize(4U * (k + 1U), 0U);
        jump_words_[4U * k] = op::kBrTableEntry;
        jump_words_[4U * k + 1U] = layout_.jump_tables.at(k);
        jump_words_[4U * k + 2U] = entry.b;
        jump_words_[4U * k + 3U] = entry.c;
      }
    }
  }
  sources_.resize(layout_.units.size());
  for (int kind = 0; kind < 2; ++kind) {
    ready_.at(kind) = std::vector<std::atomic<void*>>(layout_.units.size());
    building_.at(kind).assign(layout_.units.size(), false);
  }
  group_ready_ = std::vector<std::atomic<void*>>(layout_.units.size());
  grouped_runs_.resize(layout_.units.size());
}

CompiledSummary CompiledModule::summary() const {
  CompiledSummary summary;
  summary.units = static_cast<std::uint32_t>(layout_.units.size());
  summary.functions = static_cast<std::uint32_t>(layout_.function_entries.size());
  summary.blocks = static_cast<std::uint32_t>(layout_.block_addresses.size());
  for (const Unit& unit : layout_.units) summary.instructions += unit.instruction_count;
  summary.jump_table_entries = static_cast<std::uint32_t>(layout_.jump_tables.size());
  summary.complete = layout_.function_entries.size() == program_.functions.size();
  return summary;
}

std::uint32_t CompiledModule::function_entry(std::uint32_t defined) const {
  return layout_.function_entries.at(defined);
}

std::uint32_t CompiledModule::entry_id() const {
  return static_cast<std::uint32_t>(layout_.block_addresses.size());
}

std::uint32_t CompiledModule::unit_count() const {
  return static_cast<std::uint32_t>(layout_.units.size());
}

std::uint32_t CompiledModule::unit_of(std::uint32_t id, std::uint32_t callee) const {
  if (id == entry_id()) {
    if (callee < imported_functions_) return 0;
    id = function_entry(callee - imported_functions_);
  }
  return layout_.block_addresses.at(id).unit;
}

const UnitSource& CompiledModule::unit_source_locked(std::uint32_t unit) {
  std::optional<UnitSource>& source = sources_.at(unit);
  if (!source) {
    const auto start = std::chrono::steady_clock::now();
    source = generate_unit(program_, layout_, unit);
    counters_.codegen_seconds += seconds_since(start);
    ++counters_.units_generated;
  }
  return *source;
}

UnitSource CompiledModule::unit_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  return unit_source_locked(unit);
}

void* CompiledModule::cpu_library(std::uint32_t unit, int kind) {
  if (void* ready = ready_.at(kind).at(unit).load(std::memory_order_acquire)) return ready;
  std::unique_lock lock(mutex_);
  // Another thread building this library: wait for it (different ones build in parallel).
  built_.wait(lock, [&] { return !building_[kind][unit]; });
  if (void* ready = ready_[kind][unit].load(std::memory_order_acquire)) return ready;
  if (!tier_plan_) tier_plan_ = cpu_tier_plan_from_environment();
  const CpuTier tier = tier_plan_->first;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;
  const std::string text = cpu_text_locked(unit, kind, &groups);
  building_[kind][unit] = true;
  lock.unlock();
  const auto start = std::chrono::steady_clock::now();
  BuiltUnit built;
  try {
    built = kind == 0 ? build_cpu_unit(tier, text, device::kCompiledUnitSymbol, device::kCompiledGroupSymbol)
                      : build_cpu_unit(tier, text, device::kCompiledPrefixSymbol);
  } catch (...) {
    lock.lock();
    building_[kind][unit] = false;
    built_.notify_all();
    throw;
  }
  const double seconds = seconds_since(start);
  lock.lock();
  building_[kind][unit] = false;
  counters_.compile_seconds += seconds;
  ++counters_.units_compiled;
  if (built.from_cache) ++counters_.units_from_cache;
  if (kind == 0) {
    // Written once, before the release below: readers that found the unit read it unlocked.
    if (!groups.empty()) has_lane_groups_.store(true, std::memory_order_release);
    grouped_runs_[unit] = std::move(groups);
    group_ready_[unit].store(built.second, std::memory_order_release);
  }
  ready_[kind][unit].store(built.entry, std::memory_order_release);
  built_.notify_all();
  return built.entry;
}

std::string CompiledModule::cpu_text_locked(std::uint32_t unit, int kind,
                                            std::vector<std::pair<std::uint32_t, std::uint32_t>>* groups) {
  const UnitSource& texts = unit_source_locked(unit);
  if (kind == 1) return device::compiled_cpu_prefix_text(texts.prefix_text);
  LaneGroupSource lane_groups = generate_lane_groups(program_, layout_.units.at(unit));
  if (groups != nullptr) *groups = std::move(lane_groups.runs);
  return device::compiled_cpu_unit_text(texts.text, lane_groups.text);
}

std::string CompiledModule::cpu_source(std::uint32_t unit, int kind) {
  const std::lock_guard lock(mutex_);
  return device::compiled_cpu_preamble(device::CpuHeaders::kStandard) + cpu_text_locked(unit, kind, nullptr);
}

CpuUnitFunction CompiledModule::cpu_unit(std::uint32_t unit) {
  return reinterpret_cast<CpuUnitFunction>(cpu_library(unit, 0));
}

CpuUnitGroupFunction CompiledModule::cpu_unit_group(std::uint32_t unit, std::uint32_t callee) {
  if (callee < imported_functions_) return nullptr;
  return cpu_unit_group_at(unit, layout_.function_entries.at(callee - imported_functions_));
}

CpuUnitGroupFunction CompiledModule::cpu_unit_group_at(std::uint32_t unit, std::uint32_t block) {
  (void)cpu_library(unit, 0);  // built with the unit's entry (its acquire orders these reads)
  const auto& runs = grouped_runs_.at(unit);
  const bool grouped =
      std::any_of(runs.begin(), runs.end(), [&](const auto& run) { return block >= run.first && block < run.second; });
  return grouped ? reinterpret_cast<CpuUnitGroupFunction>(group_ready_.at(unit).load(std::memory_order_acquire))
                 : nullptr;
}

std::uint32_t CompiledModule::lane_group_size() const {
  return kCpuLaneGroupSize;
}

CpuPrefixFunction CompiledModule::cpu_prefix(std::uint32_t unit) {
  return reinterpret_cast<CpuPrefixFunction>(cpu_library(unit, 1));
}

std::string CompiledModule::shader_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  const UnitSource& source = unit_source_locked(unit);
  return device::compiled_shader_source(source.text);
}

std::string CompiledModule::prefix_shader_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  const UnitSource& source = unit_source_locked(unit);
  return device::compiled_prefix_shader_source(source.prefix_text, source.first_block, source.block_count);
}

void CompiledModule::add_compile_seconds(double seconds, bool from_cache) {
  const std::lock_guard lock(mutex_);
  counters_.compile_seconds += seconds;
  ++counters_.units_compiled;
  if (from_cache) ++counters_.units_from_cache;
}

CompileCounters CompiledModule::counters() const {
  const std::lock_guard lock(mutex_);
  return counters_;
}

}  // namespace wavestack::wasm::compiler
