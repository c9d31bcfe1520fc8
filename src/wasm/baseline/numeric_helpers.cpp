// One helper per numeric instruction for baseline code: the device library's wasm_numeric with
// the opcode fixed at compile time, so each helper is that instruction's case alone. Baseline
// code calls them where an instruction is not lowered inline (float arithmetic, division,
// conversions): the generic helper's call passed the opcode and went through the library's
// switch of 136 cases, a third of the helper's time in graphviz.wasm's render.
#include <array>
#include <cstdint>
#include <utility>

#include "wasm/baseline/baseline_helpers.hpp"
#include "wasm/device/numerics.hpp"

namespace wavestack::wasm::baseline {
namespace {

// (flatten: wasm_numeric and what it calls are inlined, so the switch folds to one case.)
template <std::uint32_t Opcode>
[[gnu::flatten]] std::uint64_t numeric_of(BlockEnv* env, std::uint64_t a, std::uint64_t b) {
  device::uint trap = device::WASM_TRAP_NONE;
  const device::uvec2 result =
      device::wasm_numeric(Opcode, device::uvec2(static_cast<device::uint>(a), static_cast<device::uint>(a >> 32U)),
                           device::uvec2(static_cast<device::uint>(b), static_cast<device::uint>(b >> 32U)), trap);
  env->trap = trap;
  return std::uint64_t{result.x} | (std::uint64_t{result.y} << 32U);
}

// The executable form's numeric opcodes (numeric_dispatch.glsl): 0x45..0xC4, and 0xFC n as 0x100 + n.
constexpr std::uint32_t kFirstPlain = 0x45;
constexpr std::uint32_t kPlainCount = 0xC4 - kFirstPlain + 1;
constexpr std::uint32_t kFirstPrefixed = 0x100;
constexpr std::uint32_t kPrefixedCount = 8;

template <std::uint32_t First, std::uint32_t... K>
constexpr auto table_of(std::integer_sequence<std::uint32_t, K...> /*offsets*/) {
  return std::array<NumericHelper, sizeof...(K)>{&numeric_of<First + K>...};
}

constexpr auto kPlain = table_of<kFirstPlain>(std::make_integer_sequence<std::uint32_t, kPlainCount>{});
constexpr auto kPrefixed = table_of<kFirstPrefixed>(std::make_integer_sequence<std::uint32_t, kPrefixedCount>{});

}  // namespace

NumericHelper numeric_helper(std::uint32_t opcode) {
  if (opcode - kFirstPlain < kPlainCount) return kPlain[opcode - kFirstPlain];
  if (opcode - kFirstPrefixed < kPrefixedCount) return kPrefixed[opcode - kFirstPrefixed];
  return nullptr;
}

}  // namespace wavestack::wasm::baseline
