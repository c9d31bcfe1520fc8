// The readable text form of a Module (what `kernel.ir` shows). print(parse(text)) == text
// for any printed module: every register type, constant and source line is kept.
#pragma once

#include <string>
#include <string_view>

#include "wave/ir.hpp"

namespace wavestack::wave {

[[nodiscard]] std::string print_module(const Module& module);
// Parses and verifies; throws IrError naming the text line that is wrong.
[[nodiscard]] Module parse_module(std::string_view text);

}  // namespace wavestack::wave
