// The generated-code form of every numeric instruction: the device-library call the
// interpreter's numeric dispatcher makes for it (device/numeric_dispatch.glsl), written as an
// expression template so that compiled code calls the same function directly, with no
// opcode in sight. Differential tests against the interpreter keep the two in step.
#pragma once

#include <cstdint>
#include <string>

namespace wavestack::wasm::compiler {

struct NumericLowering {
  std::uint16_t opcode = 0;
  std::uint8_t arity = 0;  // operands popped: 1 or 2
  bool traps = false;      // writes the trap word ($t) on every path
  // A uvec2 expression (an F64_RAW one where numeric_result_is_raw_f64): $a is the first
  // (deeper) operand, $b the second, $t the trap word.
  const char* expression = "";
};

// The lowering of numeric opcode `opcode` (0x45..0xC4, 0x100..0x107), or nullptr.
[[nodiscard]] const NumericLowering* find_numeric_lowering(std::uint16_t opcode);

// Whether numeric opcode `opcode` produces an f64 (f64 arithmetic, conversions to f64).
[[nodiscard]] bool numeric_result_is_f64(std::uint16_t opcode);

// Whether numeric opcode `opcode` is an f64 operation whose result the lowering leaves "raw"
// (F64_RAW, the f64_*_raw functions: the canonical-NaN rule applied where the value is used;
// device/host_f64_variables.hpp).
[[nodiscard]] bool numeric_result_is_raw_f64(std::uint16_t opcode);

// `lowering`'s expression with its operands and trap word substituted.
[[nodiscard]] std::string instantiate_numeric(const NumericLowering& lowering, const std::string& a,
                                              const std::string& b, const std::string& trap);

}  // namespace wavestack::wasm::compiler
