// Cuts a block that cannot fit in one unit into consecutive pieces at record boundaries.
// Every piece but the last falls through (Terminator::kSplit) into the next, whose first
// record becomes a new block address; the last keeps the original ending, so a br_table
// always stays whole with its entries.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "wasm/compiler/basic_blocks.hpp"

namespace wavestack::wasm::compiler {

using SourceEstimate = std::function<std::size_t(const Block&)>;

// Pieces of at most `instruction_limit` instructions whose estimated source is at most
// `max_source_bytes`. Throws std::length_error when one record alone exceeds the source
// limit: the function can then not be compiled at all, and dropping it silently is not allowed.
[[nodiscard]] std::vector<Block> split_block(const Block& block, std::uint32_t instruction_limit,
                                             std::size_t max_source_bytes, const SourceEstimate& estimate);

}  // namespace wavestack::wasm::compiler
