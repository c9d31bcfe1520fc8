// One instruction of a function body, in a fixed 16-byte record (a GLSL uvec4 on the
// device). The decoder fills these with the raw immediates of the binary; the validator
// then lowers each function into the executable form the interpreter runs: structured
// control flow replaced by jumps with resolved targets and stack heights, nothing left to
// parse. docs/ARCHITECTURE.md ("wasmgpu") describes every field per opcode.
#pragma once

#include <cstdint>

namespace wavestack::wasm {

struct Instruction {
  std::uint16_t opcode = 0;  // see opcodes.hpp: a byte opcode, 0x100 + a 0xFC sub-opcode, or internal
  std::uint16_t flags = 0;   // block type kind while decoding (see BlockTypeKind)
  std::uint32_t a = 0;
  std::uint32_t b = 0;
  std::uint32_t c = 0;
};
static_assert(sizeof(Instruction) == 16, "the device reads instructions as uvec4");

// How a block/loop/if instruction's type is encoded in `flags` (and `a`) while decoding.
enum class BlockTypeKind : std::uint16_t {
  kEmpty = 0,      // []->[]
  kValue = 1,      // []->[a], a is the value type byte
  kTypeIndex = 2,  // a is a type index (multi-value)
};

}  // namespace wavestack::wasm
