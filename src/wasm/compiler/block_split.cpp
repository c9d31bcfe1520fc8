#include "wasm/compiler/block_split.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace wavestack::wasm::compiler {
namespace {

// The piece of `block` holding its instructions [first, first + count). Instructions lie
// one per record except the br_table entries after the last one, so instruction i is
// record begin + i and only the final piece reaches past its last instruction.
Block piece(const Block& block, std::uint32_t first, std::uint32_t count) {
  const bool last_piece = first + count == block.instruction_count;
  Block result = last_piece ? block : Block{};
  result.begin = block.begin + first;
  result.instruction_count = count;
  if (!last_piece) {
    result.end = result.begin + count;
    result.terminator = Terminator::kSplit;
    result.successors = {result.end};
  }
  return result;
}

// Halves `part` until every piece's estimate fits; appends the pieces in pc order.
void fit_source(const Block& original, const Block& part, std::size_t max_source_bytes, const SourceEstimate& estimate,
                std::vector<Block>& out) {
  if (estimate(part) <= max_source_bytes) {
    out.push_back(part);
    return;
  }
  if (part.instruction_count <= 1U) {
    throw std::length_error("compiler: the record at " + std::to_string(part.begin) + " alone needs more than " +
                            std::to_string(max_source_bytes) + " bytes of source");
  }
  const std::uint32_t offset = part.begin - original.begin;
  const std::uint32_t half = part.instruction_count / 2U;
  fit_source(original, piece(original, offset, half), max_source_bytes, estimate, out);
  fit_source(original, piece(original, offset + half, part.instruction_count - half), max_source_bytes, estimate, out);
}

}  // namespace

std::vector<Block> split_block(const Block& block, std::uint32_t instruction_limit, std::size_t max_source_bytes,
                               const SourceEstimate& estimate) {
  if (instruction_limit == 0U) throw std::invalid_argument("compiler: the instruction limit must be positive");
  std::vector<Block> pieces;
  for (std::uint32_t first = 0; first < block.instruction_count; first += instruction_limit) {
    const std::uint32_t count = std::min(instruction_limit, block.instruction_count - first);
    fit_source(block, piece(block, first, count), max_source_bytes, estimate, pieces);
  }
  return pieces;
}

}  // namespace wavestack::wasm::compiler
