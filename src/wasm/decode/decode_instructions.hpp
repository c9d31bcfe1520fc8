// Decoding of instruction sequences (function bodies and constant expressions) into
// Instruction records with their raw immediates. Structure (block nesting) is only
// counted here, to find the final `end`; the validator checks it properly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "wasm/decode/byte_reader.hpp"
#include "wasm/module/instruction.hpp"

namespace wavestack::wasm {

struct ExpressionContext {
  // memory.init and data.drop need the data count section (spec: "data count section
  // required"). Whether a missing one is malformed depends on the data section, which
  // comes after the code, so the first such use is recorded and judged at the end.
  bool has_data_count = false;
  std::optional<std::size_t>* data_index_without_count = nullptr;
};

// Reads instructions up to and including the `end` that closes the expression.
void decode_expression(ByteReader& reader, const ExpressionContext& context, std::vector<Instruction>& code,
                       std::vector<std::uint32_t>& offsets);

}  // namespace wavestack::wasm
