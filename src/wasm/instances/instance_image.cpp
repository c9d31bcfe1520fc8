#include "wasm/instances/instance_image.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "wasm/device/interpreter_layout.hpp"
#include "wasm/instances/instance_set.hpp"
#include "wasm/instances/memory_blocks.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm {
namespace dev = device;
namespace {

constexpr std::uint32_t kMaxPages = 65535;  // memory32 addressing caps at 4 GiB - 64 KiB
constexpr std::uint32_t kWordsPerPage = 65536 / 4;

// A constant expression's value as a 64-bit slot (references: the u32 in the low word).
std::uint64_t evaluate(const ConstExpr& expr, const std::vector<std::uint64_t>& globals) {
  const Instruction& first = expr.code.at(0);
  switch (first.opcode) {
    case op::kI32Const:
    case op::kF32Const:
      return first.a;
    case op::kI64Const:
    case op::kF64Const:
      return std::uint64_t{first.a} | (std::uint64_t{first.b} << 32);
    case op::kRefNull:
      return dev::NULL_REF;
    case op::kRefFunc:
      return first.a;
    case op::kGlobalGet:
      return globals.at(first.a);
    default:
      throw std::logic_error("unexpected constant expression opcode " + std::to_string(first.opcode));
  }
}

std::uint32_t checked_words(std::uint64_t words, const char* what) {
  if (words > 0xFFFFFFFFull / 2) {
    throw ResourceLimit(std::string(what) + ": one instance's state would exceed the 32-bit word index");
  }
  return static_cast<std::uint32_t>(words);
}

// Slots one frame of the module's largest defined function needs: parameters, locals, the
// two header slots and its operands (frames.glsl, frame_call).
std::uint64_t largest_frame_slots(const Module& module) {
  std::uint64_t largest = 0;
  for (const FunctionRecord& record : module.program.functions) {
    largest =
        std::max<std::uint64_t>(largest, std::uint64_t{record.param_count} + record.local_count + 2 + record.max_stack);
  }
  return largest;
}

// Entries reserved for a table: the caller's reservation (at least the minimum, or an error),
// clamped to the declared maximum.
std::uint32_t table_capacity(const Limits& limits, std::optional<std::uint32_t> reserved, std::size_t index) {
  std::uint64_t capacity = std::max(limits.min, kDefaultTableElements);
  if (reserved) {
    if (*reserved < limits.min) {
      throw std::invalid_argument("table_elements: table " + std::to_string(index) + " needs at least " +
                                  std::to_string(limits.min) + " elements, got " + std::to_string(*reserved));
    }
    capacity = *reserved;
  }
  if (limits.max) capacity = std::min<std::uint64_t>(capacity, std::max(*limits.max, limits.min));
  return static_cast<std::uint32_t>(capacity);
}

// Pages reserved for the memory: the caller's reservation within the declared limits (or an
// error), else min(declared maximum or 65535, max(initial, 16)).
std::uint32_t memory_capacity(const Limits& limits, std::optional<std::uint32_t> reserved) {
  if (limits.min > kMaxPages) throw std::invalid_argument("memory_pages: memory above 65535 pages is not supported");
  const std::uint32_t declared_max = std::min(limits.max.value_or(kMaxPages), kMaxPages);
  if (!reserved) return std::min(declared_max, std::max(limits.min, kDefaultMemoryPages));
  if (*reserved < limits.min) {
    throw std::invalid_argument("memory_pages: the module's memory needs at least " + std::to_string(limits.min) +
                                " pages, got " + std::to_string(*reserved));
  }
  if (*reserved > declared_max) {
    throw std::invalid_argument("memory_pages: the module's memory may grow to at most " +
                                std::to_string(declared_max) + " pages, got " + std::to_string(*reserved));
  }
  return *reserved;
}

}  // namespace

InstanceImage build_instance_image(const Module& module, const LinkedImports& imports, const ReserveOptions& options,
                                   const runtime::ZeroedWords& wasi_region, const CompiledCode* compiled) {
  if (imports.uses_wasi() && wasi_region.empty()) {
    throw std::logic_error("build_instance_image: the module imports WASI but no WASI region was given");
  }
  InstanceImage image;
  auto& program = image.program;
  program.assign(dev::H_WORDS, 0u);
  const auto size32 = [](std::size_t n) { return static_cast<std::uint32_t>(n); };

  // Code: the interpreter's instruction records and its ENTRY record; compiled mode holds
  // only its jump tables there, and calls start at its ENTRY id (compiled_run.glsl).
  program[dev::H_CODE] = size32(program.size());
  if (compiled != nullptr) {
    const std::vector<std::uint32_t>& jump_words = compiled->jump_table_words();
    program.insert(program.end(), jump_words.begin(), jump_words.end());
    program[dev::H_ENTRY_PC] = compiled->entry_id();
  } else {
    for (const Instruction& ins : module.program.code) {
      program.push_back(std::uint32_t{ins.opcode} | (std::uint32_t{ins.flags} << 16));
      program.push_back(ins.a);
      program.push_back(ins.b);
      program.push_back(ins.c);
    }
    // The ENTRY record host calls start at (frames.glsl, begin_call).
    program[dev::H_ENTRY_PC] = size32(module.program.code.size());
    program.insert(program.end(), {dev::OP_ENTRY, 0u, 0u, 0u});
  }

  // Function table, imports first.
  const std::size_t function_count = module.function_types.size();
  program[dev::H_FUNCS] = size32(program.size());
  program[dev::H_FUNC_COUNT] = size32(function_count);
  for (std::size_t f = 0; f < function_count; ++f) {
    std::uint32_t entry[dev::F_WORDS] = {};
    const FuncType& type = module.function_type(static_cast<std::uint32_t>(f));
    entry[dev::F_PARAMS] = size32(type.params.size());
    entry[dev::F_RESULTS] = size32(type.results.size());
    entry[dev::F_TYPE_ID] = module.program.function_type_ids.at(f);
    if (f < module.imported_functions) {
      const std::uint32_t wasi_id = imports.function_wasi_ids.at(f);
      entry[dev::F_KIND] = wasi_id == kNotWasi ? dev::FUNCTION_HOST_NOP : dev::FUNCTION_WASI;
      entry[dev::F_CODE] = wasi_id == kNotWasi ? 0u : wasi_id;
    } else {
      const FunctionRecord& record = module.program.functions[f - module.imported_functions];
      // Compiled mode: the function's entry block instead of its first record.
      entry[dev::F_CODE] = compiled != nullptr
                               ? compiled->function_entry(static_cast<std::uint32_t>(f) - module.imported_functions)
                               : record.code_begin;
      entry[dev::F_LOCALS] = record.local_count;
      entry[dev::F_MAX_STACK] = record.max_stack;
      entry[dev::F_KIND] = dev::FUNCTION_DEFINED;
    }
    program.insert(program.end(), entry, entry + dev::F_WORDS);
  }
  // Each defined function's reference-typed locals (indices from its frame's first slot), after
  // the table: a call sets them to null once it has cleared the locals (frames.glsl).
  for (std::size_t f = module.imported_functions; f < function_count; ++f) {
    const FunctionRecord& record = module.program.functions[f - module.imported_functions];
    std::vector<std::uint32_t> refs;
    for (std::uint32_t k = 0; k < record.local_count; ++k) {
      const auto type = static_cast<ValType>(
          module.program.local_types.at(std::size_t{record.local_types_begin} + record.param_count + k));
      if (is_reference(type)) refs.push_back(record.param_count + k);
    }
    if (refs.empty()) continue;
    program[program[dev::H_FUNCS] + dev::F_WORDS * f + dev::F_REF_LOCALS] = size32(program.size());
    program.push_back(size32(refs.size()));
    program.insert(program.end(), refs.begin(), refs.end());
  }

  // Globals (imports first) are needed by segment offsets and element items.
  std::vector<std::uint64_t> globals = imports.global_values;
  for (const Global& global : module.globals) globals.push_back(evaluate(global.init, globals));

  // Element segments: items as u32 references.
  const std::size_t elem_count = module.elements.size();
  program[dev::H_ELEMS] = size32(program.size());
  program[dev::H_ELEM_COUNT] = size32(elem_count);
  program.resize(program.size() + 2 * elem_count);
  for (std::size_t s = 0; s < elem_count; ++s) {
    const auto& items = module.elements[s].items;
    program[program[dev::H_ELEMS] + 2 * s] = size32(program.size());
    program[program[dev::H_ELEMS] + 2 * s + 1] = size32(items.size());
    for (const ConstExpr& item : items) program.push_back(static_cast<std::uint32_t>(evaluate(item, globals)));
  }

  // Data segments: bytes packed little-endian into words.
  const std::size_t data_count = module.data.size();
  program[dev::H_DATAS] = size32(program.size());
  program[dev::H_DATA_COUNT] = size32(data_count);
  program.resize(program.size() + 2 * data_count);
  for (std::size_t s = 0; s < data_count; ++s) {
    const auto& bytes = module.data[s].bytes;
    const std::size_t base = program.size();
    program[program[dev::H_DATAS] + 2 * s] = size32(base);
    program[program[dev::H_DATAS] + 2 * s + 1] = size32(bytes.size());
    program.resize(base + (bytes.size() + 3) / 4, 0u);
    for (std::size_t k = 0; k < bytes.size(); ++k) program[base + k / 4] |= std::uint32_t{bytes[k]} << (8 * (k % 4));
  }

  // Tables: imported ones take the provided table's type.
  const std::size_t table_count = module.tables.size();
  std::vector<TableType> tables = module.tables;
  for (std::size_t t = 0; t < imports.tables.size() && t < table_count; ++t) tables[t] = imports.tables[t];
  program[dev::H_TABLES] = size32(program.size());
  program[dev::H_TABLE_COUNT] = size32(table_count);
  program.resize(program.size() + dev::T_WORDS * table_count);

  // The state layout.
  std::uint64_t words = dev::S_CONTROL_WORDS;
  program[dev::H_GLOBALS] = checked_words(words, "globals");
  words += 2 * globals.size();
  program[dev::H_DROPPED] = checked_words(words, "segments");
  words += data_count + elem_count;
  std::vector<std::uint32_t> capacities(table_count);
  for (std::size_t t = 0; t < table_count; ++t) {
    capacities[t] = table_capacity(tables[t].limits, options.table_elements, t);
    const std::uint32_t descriptor = program[dev::H_TABLES] + dev::T_WORDS * static_cast<std::uint32_t>(t);
    program[descriptor + dev::T_STATE] = checked_words(words, "table_elements");
    program[descriptor + dev::T_LIMIT] = capacities[t];
    words += 1 + capacities[t];
  }
  words += words & 1;  // Vulkan shaders read a slot as one 64-bit word (interpreter_vulkan_bindings.glsl)
  program[dev::H_STACK] = checked_words(words, "table_elements");
  const std::uint64_t frame = largest_frame_slots(module);
  if (options.stack_slots < std::max<std::uint64_t>(frame, 2)) {
    throw ResourceLimit("stack_size: " + std::to_string(options.stack_slots) +
                        " slots cannot hold one frame of the module's largest function (" + std::to_string(frame) +
                        " slots: parameters, locals, operands and 2 for the frame); set stack_size= to at least " +
                        std::to_string(std::max<std::uint64_t>(frame, 2)) + ", more for nested calls");
  }
  if (options.call_depth == 0) throw std::invalid_argument("call_depth: must be at least 1");
  program[dev::H_STACK_SLOTS] = options.stack_slots;
  program[dev::H_CALL_DEPTH] = options.call_depth;
  words += 2ull * options.stack_slots;
  if (!wasi_region.empty()) {
    program[dev::H_WASI] = checked_words(words, "stack_size");
    program[dev::H_WASI_WORDS] = size32(wasi_region.size());
    image.wasi_offset = program[dev::H_WASI];
    image.wasi_words = program[dev::H_WASI_WORDS];
    words += wasi_region.size();
  }
  image.state_words = checked_words(words, "wasi (storage_size, max_files, max_fds)");

  // Memory.
  std::uint32_t pages = 0;
  std::uint32_t limit = 0;
  if (!module.memories.empty()) {
    Limits limits = imports.memory ? imports.memory->limits : module.memories[0].limits;
    pages = limits.min;
    image.memory_capacity_pages = memory_capacity(limits, options.memory_pages);
    limit = std::min(image.memory_capacity_pages, std::min(limits.max.value_or(kMaxPages), kMaxPages));
  }
  program[dev::H_MEMORY_LIMIT] = limit;
  image.globals_offset = program[dev::H_GLOBALS];
  image.memory_words = image.memory_capacity_pages * kWordsPerPage;

  // The instance template: control words, globals, tables, memory.
  image.state = runtime::ZeroedWords(image.state_words);
  auto& state = image.state;
  state[dev::S_PAGES] = pages;
  for (std::size_t g = 0; g < globals.size(); ++g) {
    state[program[dev::H_GLOBALS] + 2 * g] = static_cast<std::uint32_t>(globals[g]);
    state[program[dev::H_GLOBALS] + 2 * g + 1] = static_cast<std::uint32_t>(globals[g] >> 32);
  }
  // Only the region's blocks that hold data: the rest of the state stays untouched zero pages.
  for (const WordRun& run : nonzero_block_runs(std::span(wasi_region.data(), wasi_region.zero_from()))) {
    runtime::populate_for_writing(state.begin() + image.wasi_offset + run.first, run.count * 4);
    std::copy_n(wasi_region.begin() + static_cast<std::ptrdiff_t>(run.first), run.count,
                state.begin() + image.wasi_offset + run.first);
  }
  for (std::size_t t = 0; t < table_count; ++t) {
    const std::uint32_t base = program[program[dev::H_TABLES] + dev::T_WORDS * static_cast<std::uint32_t>(t)];
    state[base] = tables[t].limits.min;
    std::fill_n(state.begin() + base + 1, capacities[t], dev::NULL_REF);
  }
  // Only the initial pages: the rest of the reservation is zero until memory.grow reaches it.
  image.memory.assign(std::size_t{pages} * kWordsPerPage, 0u);

  // Instantiation's segment steps, in the spec's order: element segments, then data
  // segments; the first out-of-bounds one traps (and instantiation fails).
  const std::uint32_t dropped = program[dev::H_DROPPED];
  for (std::size_t s = 0; s < elem_count && image.instantiation_trap == 0; ++s) {
    const ElementSegment& segment = module.elements[s];
    if (segment.mode == SegmentMode::kPassive) continue;
    state[dropped + data_count + s] = 1u;
    if (segment.mode == SegmentMode::kDeclarative) continue;
    const auto offset = static_cast<std::uint32_t>(evaluate(segment.offset, globals));
    const std::uint32_t base = program[program[dev::H_TABLES] + dev::T_WORDS * segment.table];
    const std::uint64_t end = std::uint64_t{offset} + segment.items.size();
    if (end > state[base]) {
      image.instantiation_trap = dev::WASM_TRAP_TABLE_OUT_OF_BOUNDS;
      break;
    }
    const std::uint32_t items = program[program[dev::H_ELEMS] + 2 * s];
    for (std::size_t k = 0; k < segment.items.size(); ++k) state[base + 1 + offset + k] = program[items + k];
  }
  for (std::size_t s = 0; s < data_count && image.instantiation_trap == 0; ++s) {
    const DataSegment& segment = module.data[s];
    if (segment.mode == SegmentMode::kPassive) continue;
    state[dropped + s] = 1u;
    const auto offset = static_cast<std::uint32_t>(evaluate(segment.offset, globals));
    const std::uint64_t end = std::uint64_t{offset} + segment.bytes.size();
    if (end > std::uint64_t{pages} * 65536) {
      image.instantiation_trap = dev::WASM_TRAP_MEMORY_OUT_OF_BOUNDS;
      break;
    }
    for (std::size_t k = 0; k < segment.bytes.size(); ++k) {
      const std::uint64_t at = offset + k;
      // A later segment overwrites an earlier one's bytes (the spec applies them in order).
      const unsigned shift = 8 * (at % 4);
      std::uint32_t& word = image.memory[at / 4];
      word = (word & ~(0xFFu << shift)) | (std::uint32_t{segment.bytes[k]} << shift);
    }
  }
  image.memory_nonzero_runs = nonzero_block_runs(image.memory);
  // The state's data lies before its value stack and in the region's data.
  const std::array<WordRun, 2> written{WordRun{0, program[dev::H_STACK]},
                                       WordRun{image.wasi_offset, wasi_region.zero_from()}};
  image.state_nonzero_runs = nonzero_block_runs(image.state, written);
  return image;
}

std::vector<WordRun> nonzero_block_runs(std::span<const std::uint32_t> words, std::span<const WordRun> candidates) {
  constexpr std::size_t kBlockWords = 4096 / 4;
  std::vector<WordRun> runs;
  std::size_t scanned = 0;  // blocks before it are done
  for (const WordRun& candidate : candidates) {
    if (candidate.count == 0) continue;
    const std::size_t first = std::max(scanned, candidate.first / kBlockWords * kBlockWords);
    const std::size_t end =
        std::min(words.size(), (candidate.first + candidate.count + kBlockWords - 1) / kBlockWords * kBlockWords);
    if (first >= end) continue;
    for (WordRun run : nonzero_block_runs(words.subspan(first, end - first))) {
      run.first += first;
      if (!runs.empty() && runs.back().first + runs.back().count == run.first) {
        runs.back().count += run.count;
      } else {
        runs.push_back(run);
      }
    }
    scanned = end;
  }
  return runs;
}

std::vector<WordRun> nonzero_block_runs(std::span<const std::uint32_t> words) {
  constexpr std::size_t kBlockWords = 4096 / 4;
  std::vector<WordRun> runs;
  for (const std::size_t block : differing_blocks(words, {}, kBlockWords, words.size(), words.size())) {
    const std::size_t first = block * kBlockWords;
    const std::size_t count = std::min(kBlockWords, words.size() - first);
    if (!runs.empty() && runs.back().first + runs.back().count == first) {
      runs.back().count += count;
    } else {
      runs.push_back({first, count});
    }
  }
  return runs;
}

}  // namespace wavestack::wasm
