// Checks a Module: declarations, register numbers and types of every operand, memory
// operands, and that break/continue sit inside a loop body. Throws IrError naming the
// instruction and its source line.
#pragma once

#include "wave/ir.hpp"

namespace wavestack::wave {

void verify(const Module& module);

}  // namespace wavestack::wave
