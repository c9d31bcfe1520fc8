// The opcode table: one row per opcode with its text name, class and register operand count.
// The printer, the parser, the builder and the verifier all read this one table.
#include <array>

#include "wave/ir.hpp"

namespace wavestack::wave {
namespace {

using C = OpClass;
constexpr std::array kOps = {
    OpInfo{"const", C::Const, 0},
    OpInfo{"mov", C::Unary, 1},
    OpInfo{"cvt", C::Unary, 1},
    OpInfo{"select", C::Ternary, 3},
    OpInfo{"neg", C::Unary, 1},
    OpInfo{"not", C::Unary, 1},
    OpInfo{"bitnot", C::Unary, 1},
    OpInfo{"abs", C::Unary, 1},
    OpInfo{"sqrt", C::Unary, 1},
    OpInfo{"sin", C::Unary, 1},
    OpInfo{"cos", C::Unary, 1},
    OpInfo{"tan", C::Unary, 1},
    OpInfo{"exp", C::Unary, 1},
    OpInfo{"exp2", C::Unary, 1},
    OpInfo{"log", C::Unary, 1},
    OpInfo{"log2", C::Unary, 1},
    OpInfo{"floor", C::Unary, 1},
    OpInfo{"ceil", C::Unary, 1},
    OpInfo{"add", C::Binary, 2},
    OpInfo{"sub", C::Binary, 2},
    OpInfo{"mul", C::Binary, 2},
    OpInfo{"div", C::Binary, 2},
    OpInfo{"floordiv", C::Binary, 2},
    OpInfo{"mod", C::Binary, 2},
    OpInfo{"pow", C::Binary, 2},
    OpInfo{"min", C::Binary, 2},
    OpInfo{"max", C::Binary, 2},
    OpInfo{"bitand", C::Binary, 2},
    OpInfo{"bitor", C::Binary, 2},
    OpInfo{"bitxor", C::Binary, 2},
    OpInfo{"shl", C::Binary, 2},
    OpInfo{"shr", C::Binary, 2},
    OpInfo{"and", C::Binary, 2},
    OpInfo{"or", C::Binary, 2},
    OpInfo{"eq", C::Compare, 2},
    OpInfo{"ne", C::Compare, 2},
    OpInfo{"lt", C::Compare, 2},
    OpInfo{"le", C::Compare, 2},
    OpInfo{"gt", C::Compare, 2},
    OpInfo{"ge", C::Compare, 2},
    OpInfo{"fma", C::Ternary, 3},
    OpInfo{"check_index", C::Ternary, 3},
    // math functions beyond GLSL's built-ins (emulator_math.cpp, glsl_math_extra.cpp)
    OpInfo{"tanh", C::Unary, 1},
    OpInfo{"sinh", C::Unary, 1},
    OpInfo{"cosh", C::Unary, 1},
    OpInfo{"asin", C::Unary, 1},
    OpInfo{"acos", C::Unary, 1},
    OpInfo{"atan", C::Unary, 1},
    OpInfo{"erf", C::Unary, 1},
    OpInfo{"erfc", C::Unary, 1},
    OpInfo{"log10", C::Unary, 1},
    OpInfo{"log1p", C::Unary, 1},
    OpInfo{"expm1", C::Unary, 1},
    OpInfo{"trunc", C::Unary, 1},
    OpInfo{"isnan", C::Unary, 1},
    OpInfo{"isinf", C::Unary, 1},
    OpInfo{"isfinite", C::Unary, 1},
    OpInfo{"atan2", C::Binary, 2},
    OpInfo{"hypot", C::Binary, 2},
    OpInfo{"fmod", C::Binary, 2},
    OpInfo{"copysign", C::Binary, 2},
    OpInfo{"thread_id", C::Geometry, 0},
    OpInfo{"local_id", C::Geometry, 0},
    OpInfo{"workgroup_id", C::Geometry, 0},
    OpInfo{"workgroup_size", C::Geometry, 0},
    OpInfo{"num_workgroups", C::Geometry, 0},
    OpInfo{"lane_id", C::Geometry, 0},
    OpInfo{"wave_width", C::Geometry, 0},
    OpInfo{"length", C::Geometry, 0},
    OpInfo{"load", C::Memory, 1},
    OpInfo{"store", C::Memory, 2},
    OpInfo{"atomic_add", C::Atomic, 2},
    OpInfo{"atomic_sub", C::Atomic, 2},
    OpInfo{"atomic_min", C::Atomic, 2},
    OpInfo{"atomic_max", C::Atomic, 2},
    OpInfo{"atomic_and", C::Atomic, 2},
    OpInfo{"atomic_or", C::Atomic, 2},
    OpInfo{"atomic_xor", C::Atomic, 2},
    OpInfo{"atomic_exchange", C::Atomic, 2},
    OpInfo{"atomic_cas", C::Atomic, 3},
    OpInfo{"wave_broadcast", C::Wave, 2},
    OpInfo{"wave_shuffle", C::Wave, 2},
    OpInfo{"wave_sum", C::Wave, 1},
    OpInfo{"wave_min", C::Wave, 1},
    OpInfo{"wave_max", C::Wave, 1},
    OpInfo{"wave_prefix_sum", C::Wave, 1},
    OpInfo{"wave_any", C::Wave, 1},
    OpInfo{"wave_all", C::Wave, 1},
    OpInfo{"wave_ballot", C::Wave, 1},
    OpInfo{"barrier", C::Control, 0},
    OpInfo{"if", C::Control, 1},
    OpInfo{"loop", C::Control, 0},
    OpInfo{"break", C::Control, 0},
    OpInfo{"continue", C::Control, 0},
    OpInfo{"return", C::Control, 0},
};
static_assert(kOps.size() == static_cast<size_t>(Opcode::Return) + 1, "one row per opcode");

}  // namespace

const OpInfo& op_info(Opcode op) noexcept {
  return kOps[static_cast<size_t>(op)];
}

std::optional<Opcode> opcode_from_name(std::string_view name) noexcept {
  for (size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name) return static_cast<Opcode>(i);
  }
  return std::nullopt;
}

std::optional<MemRef> Module::find_mem(std::string_view wanted) const {
  for (uint32_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].name == wanted) return MemRef{MemRef::Kind::Buffer, i};
  }
  for (uint32_t i = 0; i < shared.size(); ++i) {
    if (shared[i].name == wanted) return MemRef{MemRef::Kind::Shared, i};
  }
  return std::nullopt;
}

}  // namespace wavestack::wave
