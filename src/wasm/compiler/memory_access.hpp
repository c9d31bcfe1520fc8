// The lowered form's loads (0x28..0x35) and stores (0x36..0x3E): the bytes each accesses and
// how a load's value is extended into its slot (device/instance_memory.glsl, load_width and
// load_extend). Both compilers read them here: the generated text (block_codegen.cpp) and the
// baseline's machine code (src/wasm/baseline).
#pragma once

#include <cstdint>

#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm::compiler {

// kZero: the bytes as they are (a load of fewer than 8 leaves the high word zero); kSign32: an
// i32 sign-extended from the bytes (high word zero); kSign64: an i64 sign-extended from them.
enum class LoadExtend : std::uint8_t { kZero, kSign32, kSign64 };

struct LoadShape {
  std::uint32_t width = 0;
  LoadExtend extend = LoadExtend::kZero;
};

[[nodiscard]] inline LoadShape load_shape(std::uint16_t opcode) {
  static constexpr LoadShape kLoads[] = {
      {4, LoadExtend::kZero},   {8, LoadExtend::kZero},
      {4, LoadExtend::kZero},   {8, LoadExtend::kZero},  // i32 i64 f32 f64
      {1, LoadExtend::kSign32}, {1, LoadExtend::kZero},
      {2, LoadExtend::kSign32}, {2, LoadExtend::kZero},  // i32 8/16
      {1, LoadExtend::kSign64}, {1, LoadExtend::kZero},
      {2, LoadExtend::kSign64}, {2, LoadExtend::kZero},  // i64 8/16
      {4, LoadExtend::kSign64}, {4, LoadExtend::kZero},  // i64 32
  };
  return kLoads[opcode - op::kFirstLoad];
}

// The bytes a store writes.
[[nodiscard]] inline std::uint32_t store_width(std::uint16_t opcode) {
  static constexpr std::uint32_t kWidths[] = {4, 8, 4, 8, 1, 2, 1, 2, 4};
  return kWidths[opcode - op::kFirstStore];
}

}  // namespace wavestack::wasm::compiler
