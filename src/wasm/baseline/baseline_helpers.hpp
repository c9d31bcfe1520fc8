// The runtime functions baseline code calls (baseline_run.cpp defines them over the device
// library): each takes the block's environment first, for the instance it runs. A helper that
// can trap writes the trap code into the environment (WASM_TRAP_NONE otherwise).
#pragma once

#include <cstdint>

#include "wasm/baseline/baseline_unit.hpp"

namespace wavestack::wasm::baseline {

struct BaselineHelpers {
  std::uint64_t (*global_get)(BlockEnv* env, std::uint32_t global);
  void (*global_set)(BlockEnv* env, std::uint32_t global, std::uint64_t value);
  std::uint64_t (*table_get)(BlockEnv* env, std::uint32_t table, std::uint32_t index);
  void (*table_set)(BlockEnv* env, std::uint32_t table, std::uint32_t index, std::uint32_t ref);
  std::uint64_t (*table_size)(BlockEnv* env, std::uint32_t table);
  std::uint64_t (*memory_size)(BlockEnv* env);
  std::uint64_t (*memory_grow)(BlockEnv* env, std::uint32_t pages);  // updates env->memory_bytes
  void (*data_drop)(BlockEnv* env, std::uint32_t segment);
  void (*elem_drop)(BlockEnv* env, std::uint32_t segment);
};

[[nodiscard]] const BaselineHelpers& baseline_helpers();

// Numeric instruction `opcode`'s own helper (numeric_helpers.cpp): the device library's
// wasm_numeric with the opcode fixed, taking the operands alone (`a` the deeper; a helper that
// can trap writes the code into the environment); null for an opcode that is not a numeric
// instruction.
using NumericHelper = std::uint64_t (*)(BlockEnv* env, std::uint64_t a, std::uint64_t b);
[[nodiscard]] NumericHelper numeric_helper(std::uint32_t opcode);

}  // namespace wavestack::wasm::baseline
