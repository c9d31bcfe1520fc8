// The fast tier's instruction selector (FastISel) cannot select a `select` whose value is an
// i1, which SimplifyCFG makes of `a || b` and `a && b`: at each one it hands the rest of the
// block to SelectionDAG, several times slower. That was about a tenth of a unit's code
// generation (docs/PERFORMANCE.md, first runs).
#pragma once

namespace llvm {
class Module;
}

namespace wavestack::jit {

// Rewrites every `select i1 c, i1 a, i1 b` of `module` as and/or of its operands. Only for
// code going straight to instruction selection: where `a` or `b` is poison the result may
// be poison where the select's was not, which machine code cannot tell apart (a register
// holds some bits either way) but an IR optimisation after this could exploit.
void boolean_selects_as_logic(llvm::Module& module);

}  // namespace wavestack::jit
