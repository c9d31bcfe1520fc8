#include "wave/glsl_helpers.hpp"

#include <bit>
#include <cstdio>
#include <limits>

namespace wavestack::wave::glsl {
namespace {

std::string hex32(uint32_t bits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08xu", bits);
  return text;
}

std::string float_bits(float value) {
  return "uintBitsToFloat(" + hex32(std::bit_cast<uint32_t>(value)) + ")";
}

std::string double_bits(double value) {
  const auto bits = std::bit_cast<uint64_t>(value);
  return "packDouble2x32(uvec2(" + hex32(static_cast<uint32_t>(bits)) + ", " +
         hex32(static_cast<uint32_t>(bits >> 32)) + "))";
}

// The float `limit` of integer type I as float type F: what the emulator's
// static_cast<F>(numeric_limits<I>::min/max()) gives.
template <class F, class I>
std::string limit_as(bool maximum) {
  const F value = static_cast<F>(maximum ? std::numeric_limits<I>::max() : std::numeric_limits<I>::min());
  if constexpr (sizeof(F) == 4) {
    return float_bits(value);
  } else {
    return double_bits(value);
  }
}

template <class F>
std::string limits_for(ScalarType to, bool maximum) {
  switch (to) {
    case ScalarType::I32:
      return limit_as<F, int32_t>(maximum);
    case ScalarType::U32:
      return limit_as<F, uint32_t>(maximum);
    case ScalarType::I64:
      return limit_as<F, int64_t>(maximum);
    default:
      return limit_as<F, uint64_t>(maximum);
  }
}

template <class I>
std::string int_limit(ScalarType to, bool maximum) {
  return literal(to, [&] {
    Value v{};
    if constexpr (std::is_same_v<I, int32_t>) v.i32 = maximum ? INT32_MAX : INT32_MIN;
    if constexpr (std::is_same_v<I, uint32_t>) v.u32 = maximum ? UINT32_MAX : 0;
    if constexpr (std::is_same_v<I, int64_t>) v.i64 = maximum ? INT64_MAX : INT64_MIN;
    if constexpr (std::is_same_v<I, uint64_t>) v.u64 = maximum ? UINT64_MAX : 0;
    return v;
  }());
}

std::string int_limit_of(ScalarType to, bool maximum) {
  switch (to) {
    case ScalarType::I32:
      return int_limit<int32_t>(to, maximum);
    case ScalarType::U32:
      return int_limit<uint32_t>(to, maximum);
    case ScalarType::I64:
      return int_limit<int64_t>(to, maximum);
    default:
      return int_limit<uint64_t>(to, maximum);
  }
}

// Sign-extension word of a value for the fault record.
std::string high_word(ScalarType type, const std::string& x) {
  switch (type) {
    case ScalarType::I32:
      return "(" + x + " < 0 ? 0xffffffffu : 0u)";
    case ScalarType::U32:
      return "0u";
    default:
      return "uint(uint64_t(" + x + ") >> 32)";
  }
}

}  // namespace

std::string glsl_type(ScalarType type) {
  switch (type) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::I32:
      return "int";
    case ScalarType::U32:
      return "uint";
    case ScalarType::I64:
      return "int64_t";
    case ScalarType::U64:
      return "uint64_t";
    case ScalarType::F16:
    case ScalarType::F32:
      return "float";
    case ScalarType::F64:
      return "double";
  }
  return "float";
}

std::string suffix(ScalarType type) {
  return type == ScalarType::Bool ? "bool" : std::string(wave::type_name(type));
}

std::string literal(ScalarType type, Value value) {
  switch (type) {
    case ScalarType::Bool:
      return value.b ? "true" : "false";
    case ScalarType::I32:
      return "int(" + hex32(value.u32) + ")";
    case ScalarType::U32:
      return hex32(value.u32);
    case ScalarType::I64:
    case ScalarType::U64: {
      char text[32];
      std::snprintf(text, sizeof text, "0x%016llxul", static_cast<unsigned long long>(value.u64));
      return type == ScalarType::I64 ? "int64_t(" + std::string(text) + ")" : std::string(text);
    }
    case ScalarType::F16:
    case ScalarType::F32:
      return float_bits(value.f32);
    case ScalarType::F64:
      return double_bits(value.f64);
  }
  return "0";
}

std::string zero(ScalarType type) {
  Value v{};
  v.u64 = 0;
  return literal(type, v);
}

std::string float_to_int_helper(ScalarType to, ScalarType from) {
  const std::string t = glsl_type(to);
  const std::string f = glsl_type(from);
  const bool is_double = from == ScalarType::F64;
  const std::string low = is_double ? limits_for<double>(to, false) : limits_for<float>(to, false);
  const std::string high = is_double ? limits_for<double>(to, true) : limits_for<float>(to, true);
  return t + " wave_cvt_" + suffix(to) + "_" + suffix(from) + "(" + f + " x) {\n" + "  if (isnan(x)) return " +
         zero(to) + ";\n" + "  if (x <= " + low + ") return " + int_limit_of(to, false) + ";\n" + "  if (x >= " + high +
         ") return " + int_limit_of(to, true) + ";\n" + "  return " + t + "(x);\n}\n";
}

std::string int_division_helper(ScalarType type) {
  const std::string t = glsl_type(type);
  const std::string s = suffix(type);
  const std::string z = zero(type);
  std::string body = t + " wave_div_" + s + "(" + t + " a, " + t + " b, uint line, uint kind) {\n" + "  if (b == " + z +
                     ") { wave_fault(2u, line, 0u, 0u, 0u, 0u); return " + z + "; }\n";
  if (is_signed(type)) {
    // MIN / -1 wraps like the hardware; the remainder is computed from the quotient because
    // GLSL leaves % of negative operands undefined.
    body += "  if (b == " + t + "(-1)) return kind == 2u ? " + z + " : " + z + " - a;\n" + "  " + t + " q = a / b;\n" +
            "  " + t + " r = a - q * b;\n" + "  if (kind != 0u && r != " + z + " && ((r < " + z + ") != (b < " + z +
            "))) { q = q - " + t + "(1); r = r + b; }\n" + "  return kind == 2u ? r : q;\n}\n";
  } else {
    body += "  return kind == 2u ? a % b : a / b;\n}\n";
  }
  return body;
}

std::string int_power_helper(ScalarType type, const std::string& step, const std::string& exit) {
  const std::string t = glsl_type(type);
  const std::string s = suffix(type);
  std::string body = t + " wave_ipow_" + s + "(" + t + " base, " + t + " e, uint line) {\n";
  if (is_signed(type)) {
    body += "  if (e < " + zero(type) + ") { wave_fault(3u, line, 0u, uint(e), " + high_word(type, "e") +
            ", 1u); return " + zero(type) + "; }\n";
  }
  body += "  " + t + " r = " + t + "(1);\n" + "  while (e != " + zero(type) + ") {\n    " + step + "\n" +
          "    if ((e & " + t + "(1)) != " + zero(type) + ") r = r * base;\n" + "    base = base * base;\n" +
          "    e = e >> 1;\n  }\n  " + exit + "\n  return r;\n}\n";
  return body;
}

std::string float_mod_helper(ScalarType type) {
  const std::string t = glsl_type(type);
  return t + " wave_fmod_" + suffix(type) + "(" + t + " a, " + t + " b) {\n" + "  precise " + t +
         " r = a - b * trunc(a / b);\n" + "  if (r != " + t + "(0) && ((r < " + t + "(0)) != (b < " + t +
         "(0)))) r = r + b;\n" + "  return r;\n}\n";
}

std::string float_pow_helper(ScalarType type) {
  // GLSL's pow is undefined for x < 0 and for x == 0, y <= 0; std::pow defines both. f64 has
  // no GLSL pow: exp(b * log(m)) with the f64 helpers.
  const std::string t = glsl_type(type);
  const std::string p = type == ScalarType::F64 ? "wave_exp_f64(b * wave_log_f64(m))" : "pow(m, b)";
  return t + " wave_pow_" + suffix(type) + "(" + t + " a, " + t + " b) {\n" + "  if (b == " + t + "(0) || a == " + t +
         "(1)) return " + t + "(1);\n" + "  bool odd = b == trunc(b) && mod(b, " + t + "(2)) != " + t + "(0);\n" +
         "  if (a == " + t + "(0)) return b < " + t + "(0) ? (odd ? " + t + "(1) / a : " + t +
         "(1) / abs(a)) : (odd ? a : " + t + "(0));\n" + "  if (a < " + t + "(0) && b == trunc(b)) { " + t +
         " m = -a; " + t + " r = " + p + "; return odd ? -r : r; }\n" + "  " + t + " m = a;\n  return " + p + ";\n}\n";
}

std::string half_helpers() {
  // A port of wave/half.hpp in 32-bit integer code: exact on every device, whatever its
  // rounding of float16 conversions or its denormal mode.
  return R"(uint wave_f32_to_f16(float value) {
  uint x = floatBitsToUint(value);
  uint sign = (x >> 16) & 0x8000u;
  uint exponent = (x >> 23) & 0xffu;
  uint mantissa = x & 0x7fffffu;
  if (exponent == 0xffu) return sign | 0x7c00u | (mantissa != 0u ? (0x200u | (mantissa >> 13)) : 0u);
  int e = int(exponent) - 127 + 15;
  if (e >= 31) return sign | 0x7c00u;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000u;
    uint shift = uint(14 - e);
    uint half_ = mantissa >> shift;
    uint rest = mantissa & ((1u << shift) - 1u);
    uint halfway = 1u << (shift - 1u);
    if (rest > halfway || (rest == halfway && (half_ & 1u) != 0u)) half_ += 1u;
    return sign | half_;
  }
  uint half_ = sign | (uint(e) << 10) | (mantissa >> 13);
  uint rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half_ & 1u) != 0u)) half_ += 1u;
  return half_;
}
float wave_f16_to_f32(uint h) {
  uint sign = (h & 0x8000u) << 16;
  uint exponent = (h >> 10) & 0x1fu;
  uint mantissa = h & 0x3ffu;
  if (exponent == 0u) {
    float magnitude = float(mantissa) * uintBitsToFloat(0x33800000u);
    return sign != 0u ? -magnitude : magnitude;
  }
  if (exponent == 31u) return uintBitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  return uintBitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
)";
}

}  // namespace wavestack::wave::glsl
