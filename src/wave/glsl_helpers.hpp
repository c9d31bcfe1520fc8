// Pieces of GLSL shared by the emitter: type names, exact literals, and the helper functions
// (conversions, integer division, powers, f16 rounding) that give GLSL the emulator's
// semantics where the GLSL built-ins leave results undefined or round differently.
#pragma once

#include <string>

#include "wave/types.hpp"

namespace wavestack::wave::glsl {

// The GLSL type of a register of `type` (f16 registers do not exist; F16 maps to float).
[[nodiscard]] std::string glsl_type(ScalarType type);
// A short suffix naming the type in helper names: i32, u32, i64, u64, f32, f64.
[[nodiscard]] std::string suffix(ScalarType type);
// A literal of exactly `value` (floats through their bit pattern, so NaN and -0 survive).
[[nodiscard]] std::string literal(ScalarType type, Value value);
[[nodiscard]] std::string zero(ScalarType type);

// Helper definitions; each name is what the emitter calls.
// wave_cvt_<to>_<from>(x): saturating float->integer conversion, NaN gives 0.
[[nodiscard]] std::string float_to_int_helper(ScalarType to, ScalarType from);
// wave_div_<t>(a, b, line, kind): kind 0 truncating /, 1 floor //, 2 floor %.
[[nodiscard]] std::string int_division_helper(ScalarType type);
// wave_ipow_<t>(base, exponent, line): wrapping integer power; a negative exponent faults.
// `step` and `exit` count the loop's passes (Emitter::helper_loop_step, helper_loop_exit).
[[nodiscard]] std::string int_power_helper(ScalarType type, const std::string& step, const std::string& exit);
// wave_fmod_<t>(a, b): Python's float %, the sign of the divisor.
[[nodiscard]] std::string float_mod_helper(ScalarType type);
// wave_pow_<t>(a, b): std::pow's results for negative bases with integral exponents and zero.
[[nodiscard]] std::string float_pow_helper(ScalarType type);
// wave_f32_to_f16(x) / wave_f16_to_f32(bits): binary16 conversions, round to nearest even.
[[nodiscard]] std::string half_helpers();
// wave_{exp,exp2,log,log2,sin,cos,tan}_f64(x): f64 functions GLSL lacks (glsl_f64_math.cpp).
[[nodiscard]] std::string double_math_helpers();

}  // namespace wavestack::wave::glsl
