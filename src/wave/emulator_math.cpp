// Emulator handlers of the math functions beyond GLSL's built-ins (tanh ... copysign, the
// float classification tests): the C library's float and double functions, lane by lane.
// The GLSL side is glsl_math_extra.cpp; the tolerances between them are in the README.
#include <cmath>

#include "wave/emulator_internal.hpp"

namespace wavestack::wave {
namespace {

template <class T, T (*F)(T)>
void h_math_unary(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  each_lane(w, [&](uint32_t l) { d[l] = F(a[l]); });
}

template <class T, T (*F)(T, T)>
void h_math_binary(WaveCtx& w, const LInstr& in) {
  T* d = lanes<T>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  const T* b = lanes<T>(w, in.b);
  each_lane(w, [&](uint32_t l) { d[l] = F(a[l], b[l]); });
}

template <class T, bool (*F)(T)>
void h_classify(WaveCtx& w, const LInstr& in) {
  bool* d = lanes<bool>(w, in.dst);
  const T* a = lanes<T>(w, in.a);
  each_lane(w, [&](uint32_t l) { d[l] = F(a[l]); });
}

// Named wrappers: the <cmath> overload sets cannot be template arguments directly.
#define WAVE_MATH_UNARY(name, expr) \
  template <class T>                \
  T name(T x) {                     \
    return expr;                    \
  }
WAVE_MATH_UNARY(m_tanh, std::tanh(x))
WAVE_MATH_UNARY(m_sinh, std::sinh(x))
WAVE_MATH_UNARY(m_cosh, std::cosh(x))
WAVE_MATH_UNARY(m_asin, std::asin(x))
WAVE_MATH_UNARY(m_acos, std::acos(x))
WAVE_MATH_UNARY(m_atan, std::atan(x))
WAVE_MATH_UNARY(m_erf, std::erf(x))
WAVE_MATH_UNARY(m_erfc, std::erfc(x))
WAVE_MATH_UNARY(m_log10, std::log10(x))
WAVE_MATH_UNARY(m_log1p, std::log1p(x))
WAVE_MATH_UNARY(m_expm1, std::expm1(x))
WAVE_MATH_UNARY(m_trunc, std::trunc(x))
#undef WAVE_MATH_UNARY

template <class T>
T m_atan2(T y, T x) {
  return std::atan2(y, x);
}
template <class T>
T m_hypot(T x, T y) {
  return std::hypot(x, y);
}
template <class T>
T m_fmod(T x, T y) {
  return std::fmod(x, y);
}
template <class T>
T m_copysign(T x, T y) {
  return std::copysign(x, y);
}
template <class T>
bool m_isnan(T x) {
  return std::isnan(x);
}
template <class T>
bool m_isinf(T x) {
  return std::isinf(x);
}
template <class T>
bool m_isfinite(T x) {
  return std::isfinite(x);
}

template <class T>
Handler for_type(Opcode op) {
  switch (op) {
    case Opcode::Tanh:
      return &h_math_unary<T, m_tanh<T>>;
    case Opcode::Sinh:
      return &h_math_unary<T, m_sinh<T>>;
    case Opcode::Cosh:
      return &h_math_unary<T, m_cosh<T>>;
    case Opcode::Asin:
      return &h_math_unary<T, m_asin<T>>;
    case Opcode::Acos:
      return &h_math_unary<T, m_acos<T>>;
    case Opcode::Atan:
      return &h_math_unary<T, m_atan<T>>;
    case Opcode::Erf:
      return &h_math_unary<T, m_erf<T>>;
    case Opcode::Erfc:
      return &h_math_unary<T, m_erfc<T>>;
    case Opcode::Log10:
      return &h_math_unary<T, m_log10<T>>;
    case Opcode::Log1p:
      return &h_math_unary<T, m_log1p<T>>;
    case Opcode::Expm1:
      return &h_math_unary<T, m_expm1<T>>;
    case Opcode::Trunc:
      return &h_math_unary<T, m_trunc<T>>;
    case Opcode::IsNan:
      return &h_classify<T, m_isnan<T>>;
    case Opcode::IsInf:
      return &h_classify<T, m_isinf<T>>;
    case Opcode::IsFinite:
      return &h_classify<T, m_isfinite<T>>;
    case Opcode::Atan2:
      return &h_math_binary<T, m_atan2<T>>;
    case Opcode::Hypot:
      return &h_math_binary<T, m_hypot<T>>;
    case Opcode::Fmod:
      return &h_math_binary<T, m_fmod<T>>;
    case Opcode::Copysign:
      return &h_math_binary<T, m_copysign<T>>;
    default:
      return nullptr;
  }
}

}  // namespace

Handler select_math_extra(const Module& m, const Stmt& s) {
  // The classification tests produce bool: their operand decides the type.
  const ScalarType t = m.registers[s.args[0]];
  if (t == ScalarType::F32) return for_type<float>(s.op);
  if (t == ScalarType::F64) return for_type<double>(s.op);
  return nullptr;
}

}  // namespace wavestack::wave
