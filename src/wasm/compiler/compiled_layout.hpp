// The shape of a compiled module before any source exists: which blocks go into which
// unit (one generated shader/source file each), the address of every block, and the
// br_table jump tables. The dispatch loop of compiled mode selects a block by its global
// id through `block_addresses`; a call pushes a frame in device memory holding the id of
// its continuation block, so no unit ever calls another natively.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "wasm/compiler/basic_blocks.hpp"

namespace wavestack::wasm::compiler {

struct CompiledBlock {
  std::uint32_t id = 0;        // global block id: its index in CompiledLayout::block_addresses
  std::uint32_t function = 0;  // defined function index (Program::functions)
  std::uint32_t begin = 0;     // records [begin, end) of Program::code
  std::uint32_t end = 0;
  std::uint32_t instruction_count = 0;
  Terminator terminator = Terminator::kFallthrough;
  bool ends_in_call = false;
  std::vector<std::uint32_t> successors;  // global block ids, as Block::successors
  // br_table only: global block ids in CompiledLayout::jump_tables[table_begin, +table_size).
  std::uint32_t table_begin = 0;
  std::uint32_t table_size = 0;

  bool operator==(const CompiledBlock&) const = default;
};

struct Unit {
  std::vector<std::uint32_t> functions;  // defined indices with blocks here, in order
  std::vector<CompiledBlock> blocks;
  std::uint32_t instruction_count = 0;  // sum over blocks; at most the compile limit
  std::size_t source_bytes = 0;         // estimated; at most the source limit

  bool operator==(const Unit&) const = default;
};

struct BlockAddress {
  std::uint32_t unit = 0;
  std::uint32_t index = 0;  // into Unit::blocks

  bool operator==(const BlockAddress&) const = default;
};

struct CompiledLayout {
  std::vector<Unit> units;
  std::vector<BlockAddress> block_addresses;    // per global block id
  std::vector<std::uint32_t> function_entries;  // per defined function: its entry block id
  std::vector<std::uint32_t> jump_tables;       // flat br_table data: global block ids

  bool operator==(const CompiledLayout&) const = default;
};

}  // namespace wavestack::wasm::compiler
