// Constant expressions (global initialisers, segment offsets, element items): only
// constants, ref.null, ref.func and global.get of an immutable global, producing exactly
// one value of the expected type.
#pragma once

#include <cstdint>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

// `visible_globals` is how many globals the expression may read: in WebAssembly 2.0 a
// global initialiser sees only the imported globals, segment offsets see them all.
void validate_const_expr(const Module& module, const ConstExpr& expr, ValType expected, std::uint32_t visible_globals);

}  // namespace wavestack::wasm
