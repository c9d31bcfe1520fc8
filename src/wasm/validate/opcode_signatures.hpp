// Static operand and result types of the instructions whose typing is fixed by the opcode
// alone (numeric operations, conversions, loads and stores), so the validator needs no
// per-opcode code for them.
#pragma once

#include <cstdint>
#include <optional>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

struct SimpleSignature {
  ValType operands[2] = {ValType::kUnknown, ValType::kUnknown};
  std::uint8_t operand_count = 0;
  ValType result = ValType::kUnknown;
};

// Numeric instructions 0x45..0xC4 and the saturating truncations 0x100..0x107.
[[nodiscard]] std::optional<SimpleSignature> numeric_signature(std::uint16_t opcode) noexcept;

struct MemoryAccess {
  ValType type = ValType::kI32;  // the value loaded or stored
  std::uint32_t natural_alignment_log2 = 0;
  bool is_store = false;
};

// Loads 0x28..0x35 and stores 0x36..0x3E.
[[nodiscard]] std::optional<MemoryAccess> memory_access(std::uint16_t opcode) noexcept;

}  // namespace wavestack::wasm
