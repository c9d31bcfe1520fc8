#include "wasm/compiler/compiled_module.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "runtime/disk_cache.hpp"
#include "wasm/baseline/baseline_run.hpp"
#include "wasm/baseline/block_compiler.hpp"
#include "wasm/compiler/block_codegen.hpp"
#include "wasm/compiler/build_pool.hpp"
#include "wasm/compiler/codegen_fingerprint.hpp"
#include "wasm/compiler/cpu_tiers.hpp"
#include "wasm/compiler/lane_group_codegen.hpp"
#include "wasm/compiler/layout_cache.hpp"
#include "wasm/compiler/unit_codegen.hpp"
#include "wasm/compiler/unit_spans.hpp"
#include "wasm/device/compiled_glsl.hpp"
#include "wasm/module/opcodes.hpp"

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

// What identifies the texts of a module's units: the module, the partition's options and the
// code generator (its sources' fingerprint, kCodegenFingerprint).
std::string code_key_of(const std::string& module_digest, const UnitOptions& options) {
  std::string functions;
  for (const std::uint32_t index : options.compile_functions) functions += std::to_string(index) + ",";
  return runtime::make_cache_key({"wasm-units", module_digest, std::to_string(options.compile_limit),
                                  std::to_string(options.max_source_bytes), functions, kCodegenFingerprint});
}

// The module's partition: from the disk cache when a load of the same module made it before,
// else made now (and cached).
std::string layout_key(const std::string& code_key) {
  return runtime::make_cache_key({"wasm-layout", code_key});
}

CompiledLayout partition(const Module& module, const UnitOptions& options, const std::string& code_key,
                         std::optional<CompiledLayout>& prefetched, bool& from_cache) {
  const std::string key = layout_key(code_key);
  if (!prefetched) prefetched = load_cached_layout(key);
  if (prefetched) {
    from_cache = true;
    return std::move(*prefetched);
  }
  CompiledLayout layout = partition_units(module, with_real_sizes(options, module.program));
  store_cached_layout(key, layout);
  return layout;
}

}  // namespace

std::optional<CompiledLayout> load_cached_partition(const std::string& module_digest, const UnitOptions& options) {
  return load_cached_layout(layout_key(code_key_of(module_digest, options)));
}

CompiledModule::CompiledModule(const Module& module, const UnitOptions& options, const std::string& module_digest,
                               std::string label, std::optional<CompiledLayout> prefetched)
    : program_(module.program),
      imported_functions_(module.imported_functions),
      code_key_(code_key_of(module_digest, options)),
      layout_(partition(module, options, code_key_, prefetched, layout_from_cache_)),
      progress_(std::move(label)) {
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

const UnitSource& CompiledModule::unit_source_locked(std::uint32_t unit, bool count) {
  std::optional<UnitSource>& source = sources_.at(unit);
  if (!source) {
    const auto start = std::chrono::steady_clock::now();
    source = generate_unit(program_, layout_, unit);
    if (count) {
      counters_.codegen_seconds += seconds_since(start);
      ++counters_.units_generated;
    }
  }
  return *source;
}

UnitSource CompiledModule::unit_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  return unit_source_locked(unit, true);
}

std::string CompiledModule::cpu_text_locked(std::uint32_t unit, int kind, bool lane_groups) {
  const UnitSource& texts = unit_source_locked(unit, false);
  if (kind == kUnitPrefixes) return device::compiled_cpu_prefix_text(texts.prefix_text);
  if (!lane_groups) return device::compiled_cpu_unit_text(texts.text, std::nullopt);
  return device::compiled_cpu_unit_text(texts.text, generate_lane_groups(program_, layout_.units.at(unit)).text);
}

std::string CompiledModule::cpu_source(std::uint32_t unit, int kind) {
  const std::lock_guard lock(mutex_);
  return device::compiled_cpu_preamble(device::CpuPreamble::kHostCompiler) + cpu_text_locked(unit, kind, true);
}

std::vector<std::uint32_t> CompiledModule::successor_units(std::uint32_t unit) const {
  std::vector<std::uint32_t> units;
  auto add = [&](std::uint32_t block_id) {
    const std::uint32_t other = layout_.block_addresses.at(block_id).unit;
    if (other != unit && std::find(units.begin(), units.end(), other) == units.end()) units.push_back(other);
  };
  for (const CompiledBlock& block : layout_.units.at(unit).blocks) {
    for (const std::uint32_t successor : block.successors) add(successor);
    for (std::uint32_t k = 0; k < block.table_size; ++k) add(layout_.jump_tables.at(block.table_begin + k));
    if (block.terminator == Terminator::kCall) {
      const Instruction& call = program_.code.at(block.begin);
      if (call.a >= imported_functions_) add(layout_.function_entries.at(call.a - imported_functions_));
    }
  }
  return units;
}

CpuUnitCode& CompiledModule::cpu_code() {
  if (CpuUnitCode* code = cpu_code_ready_.load(std::memory_order_acquire)) return *code;
  const std::lock_guard lock(mutex_);
  if (!cpu_code_) {
    CpuUnitCode::Source source;
    source.text = [this](std::uint32_t unit, int kind, bool lane_groups) {
      const std::lock_guard text_lock(mutex_);
      return cpu_text_locked(unit, kind, lane_groups);
    };
    source.span = [spans = unit_spans(layout_)](std::uint32_t unit) { return spans.at(unit); };
    source.span_text = [this](UnitSpan span) {
      const Unit blocks = span_unit(layout_, span);
      const std::string name =
          "compiled units " + std::to_string(span.first) + ".." + std::to_string(span.end - 1) + " (a span)";
      return device::compiled_cpu_unit_text(generate_unit_blocks(program_, layout_, blocks, name).text,
                                            generate_lane_groups(program_, blocks).text);
    };
    source.grouped_runs = [this](std::uint32_t unit) { return lane_group_runs(program_, layout_.units.at(unit)); };
    source.successors = [this](std::uint32_t unit) { return successor_units(unit); };
    source.baseline = [this](std::uint32_t unit) { return baseline::compile_unit(program_, layout_, unit); };
    cpu_code_ = std::make_unique<CpuUnitCode>(static_cast<std::uint32_t>(layout_.units.size()),
                                              static_cast<std::uint32_t>(layout_.block_addresses.size()), code_key_,
                                              std::move(source), weak_from_this(), progress_);
    cpu_code_ready_.store(cpu_code_.get(), std::memory_order_release);
  }
  return *cpu_code_;
}

CpuUnitFunction CompiledModule::cpu_unit(std::uint32_t unit) {
  CpuUnitCode& code = cpu_code();
  code.note_runs(unit, 1);
  return reinterpret_cast<CpuUnitFunction>(code.entry(unit, kUnitCode));
}

std::uint32_t CompiledModule::cpu_run(std::uint32_t unit, const std::uint32_t* program, std::uint32_t* state,
                                      std::uint32_t* memory, std::uint32_t quantum, std::uint32_t budget) {
  CpuUnitCode& code = cpu_code();
  code.note_runs(unit, 1);
  void* const entry = code.entry(unit, kUnitCode);
  if (const baseline::BaselineUnit* linked = code.baseline_of(unit)) {
    return baseline::baseline_linked_run(program, state, memory, quantum, budget, linked, code.links());
  }
  return reinterpret_cast<CpuUnitFunction>(entry)(program, state, memory, quantum, budget);
}

CpuUnitGroupFunction CompiledModule::cpu_unit_group(std::uint32_t unit, std::uint32_t callee) {
  if (callee < imported_functions_) return nullptr;
  return cpu_unit_group_at(unit, layout_.function_entries.at(callee - imported_functions_));
}

CpuUnitGroupFunction CompiledModule::cpu_unit_group_at(std::uint32_t unit, std::uint32_t block) {
  CpuUnitCode& code = cpu_code();
  (void)code.entry(unit, kUnitCode);  // built with the unit's entry (its acquire orders these reads)
  return code.grouped(unit, block) ? reinterpret_cast<CpuUnitGroupFunction>(code.group_entry(unit)) : nullptr;
}

std::uint32_t CompiledModule::lane_group_size() const {
  return kCpuLaneGroupSize;
}

CpuPrefixFunction CompiledModule::cpu_prefix(std::uint32_t unit) {
  return reinterpret_cast<CpuPrefixFunction>(cpu_code().entry(unit, kUnitPrefixes));
}

std::string CompiledModule::shader_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  const UnitSource& source = unit_source_locked(unit, true);
  return device::compiled_shader_source(source.text);
}

std::string CompiledModule::prefix_shader_source(std::uint32_t unit) {
  const std::lock_guard lock(mutex_);
  const UnitSource& source = unit_source_locked(unit, true);
  return device::compiled_prefix_shader_source(source.prefix_text, source.first_block, source.block_count);
}

void CompiledModule::add_compile_seconds(double seconds, bool from_cache) {
  const std::lock_guard lock(mutex_);
  counters_.compile_seconds += seconds;
  ++counters_.units_compiled;
  if (from_cache) ++counters_.units_from_cache;
}

bool CompiledModule::submit_ahead(std::function<void()> task) {
  return BuildPool::shared(BuildPool::Priority::kAhead).submit(BuildPool::Priority::kAhead, std::move(task));
}

void CompiledModule::note_built_ahead(double seconds) {
  {
    const std::lock_guard lock(mutex_);
    ++counters_.units_built_ahead;
    counters_.background_seconds += seconds;
  }
  progress_.note_unit(true);
}

void CompiledModule::add_first_use_seconds(double seconds) {
  const std::lock_guard lock(mutex_);
  counters_.compile_seconds += seconds;
}

CompileCounters CompiledModule::counters() const {
  CompileCounters counters;
  {
    const std::lock_guard lock(mutex_);
    counters = counters_;
  }
  // The cpu device's: the time calls spent on builds (or waiting for them), apart from the
  // texts' generation; builds ahead of need and hot rebuilds ran beside the calls.
  if (const CpuUnitCode* code = cpu_code_ready_.load(std::memory_order_acquire)) {
    const CpuUnitCode::Counters cpu = code->counters();
    counters.codegen_seconds += cpu.codegen_seconds;
    counters.compile_seconds += cpu.demand_seconds - cpu.codegen_seconds;
    counters.units_generated += cpu.units_built - cpu.units_from_cache;
    counters.units_compiled += cpu.units_built;
    counters.units_from_cache += cpu.units_from_cache;
    counters.units_built_ahead += cpu.units_ahead;
    counters.units_rebuilt_hot += cpu.units_hot;
    counters.units_precompiled += cpu.units_precompiled;
    counters.background_seconds += cpu.background_seconds;
  }
  return counters;
}

}  // namespace wavestack::wasm::compiler
