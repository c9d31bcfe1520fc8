// Type checking of one function body (the algorithm of the spec's validation appendix:
// an operand stack with a bottom type for unreachable code and a stack of control frames)
// fused with its lowering into the executable form: while checking, each instruction is
// appended to the Program with branch targets, kept-value counts and stack heights resolved.
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

struct FunctionContext {
  const Module& module;
  // Functions that may appear in ref.func inside a body (spec: C.refs, "declared").
  const std::vector<bool>& declared_references;
};

// Validates defined function `defined_index` and appends its lowered code to `program`.
void validate_function(const FunctionContext& context, std::uint32_t defined_index, Program& program);

}  // namespace wavestack::wasm
