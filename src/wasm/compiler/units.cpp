#include "wasm/compiler/units.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "runtime/thread_pool.hpp"

namespace wavestack::wasm::compiler {
namespace {

constexpr std::uint32_t kNoBlock = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t kNoPiece = std::numeric_limits<std::size_t>::max();

// One function's blocks after splitting, with its totals, ready to be placed.
struct PlacedFunction {
  std::uint32_t defined_index = 0;
  std::vector<Block> pieces;
  std::vector<std::size_t> bytes;  // estimate per piece
  std::vector<std::uint32_t> jump_targets;
  std::uint32_t instruction_count = 0;
  std::size_t source_bytes = 0;
};

// compile_functions first (in their order, first mention wins), then the rest by index.
std::vector<std::uint32_t> function_order(const Module& module, const std::vector<std::uint32_t>& priority) {
  const auto defined = static_cast<std::uint32_t>(module.program.functions.size());
  std::vector<bool> taken(defined, false);
  std::vector<std::uint32_t> order;
  order.reserve(defined);
  for (const std::uint32_t index : priority) {
    if (index < module.imported_functions || index - module.imported_functions >= defined) {
      throw std::invalid_argument("compiler: compile_functions entry " + std::to_string(index) +
                                  " is not a defined function");
    }
    const std::uint32_t local = index - module.imported_functions;
    if (taken[local]) continue;
    taken[local] = true;
    order.push_back(local);
  }
  for (std::uint32_t local = 0; local < defined; ++local) {
    if (!taken[local]) order.push_back(local);
  }
  return order;
}

PlacedFunction prepare(const Program& program, std::uint32_t defined_index, const UnitOptions& options,
                       const SourceEstimate& estimate) {
  FunctionBlocks blocks = compute_basic_blocks(program, defined_index);
  PlacedFunction result;
  result.defined_index = defined_index;
  result.jump_targets = std::move(blocks.jump_targets);
  for (const Block& block : blocks.blocks) {
    for (Block& piece : split_block(block, options.compile_limit, options.max_source_bytes, estimate)) {
      const std::size_t bytes = estimate(piece);
      result.instruction_count += piece.instruction_count;
      result.source_bytes += bytes;
      result.bytes.push_back(bytes);
      result.pieces.push_back(std::move(piece));
    }
  }
  return result;
}

// Builds units in order, never revisiting a closed one, so ids follow unit order.
class Packer {
 public:
  Packer(const UnitOptions& options, std::size_t code_size, CompiledLayout& layout)
      : options_(options), pc_to_block_(code_size, kNoBlock), layout_(layout) {}

  void place(const PlacedFunction& function) {
    const bool fits_one_unit =
        function.instruction_count <= options_.compile_limit && function.source_bytes <= options_.max_source_bytes;
    // A small function is never split across units; a large one gets units of its own.
    if (!fits_one_unit || !fits(function.instruction_count, function.source_bytes)) close();
    const std::vector<std::vector<std::size_t>> loop_ends =
        fits_one_unit ? std::vector<std::vector<std::size_t>>() : loop_extents(function);
    for (std::size_t i = 0; i < function.pieces.size(); ++i) {
      // A loop that a unit can hold whole starts a unit rather than being split: every turn
      // of a split loop leaves one unit's code for another's (the run's locals saved and
      // reloaded, an indirect call): an n-body loop nest split so ran 12 times slower than
      // Wasmtime's, 6.5 times with its inner loops kept whole.
      if (!loop_ends.empty()) {
        // The longest loop headed here that a unit holds whole (several branches back to one
        // header: a `continue` and the loop's end).
        for (auto end = loop_ends[i].rbegin(); end != loop_ends[i].rend(); ++end) {
          std::uint32_t instructions = 0;
          std::size_t bytes = 0;
          for (std::size_t k = i; k <= *end && instructions <= options_.compile_limit; ++k) {
            instructions += function.pieces[k].instruction_count;
            bytes += function.bytes[k];
          }
          if (instructions > options_.compile_limit || bytes > options_.max_source_bytes) continue;
          if (!fits(instructions, bytes)) close();
          break;
        }
      }
      if (!fits(function.pieces[i].instruction_count, function.bytes[i])) close();
      append(function, function.pieces[i], function.bytes[i]);
    }
    if (!fits_one_unit) close();
  }

  // Rewrites successors and jump tables from pcs to block ids once every block has one.
  void resolve(const Program& program) {
    for (Unit& unit : layout_.units) {
      for (CompiledBlock& block : unit.blocks) {
        for (std::uint32_t& successor : block.successors) successor = block_at(successor);
      }
    }
    for (std::uint32_t& target : layout_.jump_tables) target = block_at(target);
    layout_.function_entries.reserve(program.functions.size());
    for (const FunctionRecord& function : program.functions) {
      layout_.function_entries.push_back(block_at(function.code_begin));
    }
  }

 private:
  // For each piece, the last pieces of the loops it heads, in increasing order (empty when it
  // heads none). A loop runs from its header to its last branch back to it, and holds whole
  // every loop that starts inside it (a nested loop may end after its outer loop's last branch
  // back: the outer body goes on past it). Several branches back to one header are loops of
  // their own here (two nested wasm loops may share a first record).
  static std::vector<std::vector<std::size_t>> loop_extents(const PlacedFunction& function) {
    std::vector<std::vector<std::size_t>> ends(function.pieces.size());
    auto piece_at = [&](std::uint32_t pc) {  // the piece beginning at pc, or kNoPiece
      const auto found = std::lower_bound(function.pieces.begin(), function.pieces.end(), pc,
                                          [](const Block& piece, std::uint32_t at) { return piece.begin < at; });
      return found != function.pieces.end() && found->begin == pc
                 ? static_cast<std::size_t>(found - function.pieces.begin())
                 : kNoPiece;
    };
    for (std::size_t j = 0; j < function.pieces.size(); ++j) {
      const Block& piece = function.pieces[j];
      auto note = [&](std::uint32_t target) {
        const std::size_t header = piece_at(target);
        if (header != kNoPiece && header <= j && (ends[header].empty() || ends[header].back() != j)) {
          ends[header].push_back(j);  // j grows, so each list stays sorted
        }
      };
      for (const std::uint32_t successor : piece.successors) note(successor);
      if (piece.terminator == Terminator::kBrTable) {
        for (std::uint32_t t = 0; t < piece.table_size; ++t) note(function.jump_targets[piece.table_begin + t]);
      }
    }
    // Later headers first, so that the loops starting inside a loop are complete when it grows.
    for (std::size_t i = ends.size(); i-- > 0;) {
      for (std::size_t& end : ends[i]) {
        for (std::size_t k = i + 1; k <= end; ++k) {
          if (!ends[k].empty()) end = std::max(end, ends[k].back());
        }
      }
      std::sort(ends[i].begin(), ends[i].end());
    }
    return ends;
  }

  bool fits(std::uint32_t instructions, std::size_t bytes) const {
    if (current_ == nullptr) return true;
    return current_->instruction_count + instructions <= options_.compile_limit &&
           current_->source_bytes + bytes <= options_.max_source_bytes;
  }

  void close() { current_ = nullptr; }

  void append(const PlacedFunction& function, const Block& piece, std::size_t bytes) {
    if (current_ == nullptr) current_ = &layout_.units.emplace_back();
    Unit& unit = *current_;
    if (unit.functions.empty() || unit.functions.back() != function.defined_index) {
      unit.functions.push_back(function.defined_index);
    }
    const auto id = static_cast<std::uint32_t>(layout_.block_addresses.size());
    layout_.block_addresses.push_back(
        {static_cast<std::uint32_t>(layout_.units.size() - 1U), static_cast<std::uint32_t>(unit.blocks.size())});
    pc_to_block_[piece.begin] = id;

    CompiledBlock block;
    block.id = id;
    block.function = function.defined_index;
    block.begin = piece.begin;
    block.end = piece.end;
    block.instruction_count = piece.instruction_count;
    block.terminator = piece.terminator;
    block.ends_in_call = piece.ends_in_call;
    block.successors = piece.successors;  // pcs until resolve()
    if (piece.terminator == Terminator::kBrTable) {
      block.table_begin = static_cast<std::uint32_t>(layout_.jump_tables.size());
      block.table_size = piece.table_size;
      const auto first = function.jump_targets.begin() + piece.table_begin;
      layout_.jump_tables.insert(layout_.jump_tables.end(), first, first + piece.table_size);
    }
    unit.blocks.push_back(std::move(block));
    unit.instruction_count += piece.instruction_count;
    unit.source_bytes += bytes;
  }

  std::uint32_t block_at(std::uint32_t pc) const {
    const std::uint32_t id = pc < pc_to_block_.size() ? pc_to_block_[pc] : kNoBlock;
    if (id == kNoBlock) throw std::logic_error("compiler: no block starts at record " + std::to_string(pc));
    return id;
  }

  const UnitOptions& options_;
  std::vector<std::uint32_t> pc_to_block_;
  CompiledLayout& layout_;
  // The open unit. Only valid while open: a unit is emplaced (moving the others) only after
  // close() dropped this pointer.
  Unit* current_ = nullptr;
};

}  // namespace

std::size_t default_source_estimate(const Block& block) {
  constexpr std::size_t kPerInstruction = 120;
  constexpr std::size_t kPerBlock = 40;
  return kPerInstruction * block.instruction_count + kPerBlock;
}

CompiledLayout partition_units(const Module& module, const UnitOptions& options) {
  if (options.compile_limit < 1U || options.compile_limit > kMaxCompileLimit) {
    throw std::invalid_argument("compiler: compile_limit must be in 1.." + std::to_string(kMaxCompileLimit));
  }
  const SourceEstimate estimate =
      options.estimate_source ? options.estimate_source : SourceEstimate(default_source_estimate);
  const Program& program = module.program;
  const std::vector<std::uint32_t> order = function_order(module, options.compile_functions);
  // Each function's blocks and their estimates on every core (the estimate generates each
  // block's text: most of a cold Module's load, about 1 s for graphviz.wasm on one core), then
  // placed in order, so the partition is the same on any number of cores.
  std::vector<PlacedFunction> prepared(order.size());
  runtime::ThreadPool::shared().parallel_for(
      order.size(), [&](std::size_t k) { prepared[k] = prepare(program, order[k], options, estimate); });
  CompiledLayout layout;
  Packer packer(options, program.code.size(), layout);
  for (const PlacedFunction& function : prepared) packer.place(function);
  packer.resolve(program);
  return layout;
}

}  // namespace wavestack::wasm::compiler
