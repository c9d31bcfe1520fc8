// Values of the C++ emitter: literals, conversions, unary and binary operations, comparisons,
// launch geometry and the math functions, each as the emulator computes it.
#include <string>

#include "wave/cpp_emitter_internal.hpp"
#include "wave/errors.hpp"

namespace wavestack::wave::cpp_detail {
namespace {

std::string hex(uint64_t bits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), kDigits[bits & 15U]);
    bits >>= 4U;
  } while (bits != 0);
  return "0x" + text + "ULL";
}

// The C library's name of a function for f32 (suffix f) or f64.
std::string libm(const std::string& name, ScalarType type) {
  return type == ScalarType::F64 ? name : name + "f";
}

}  // namespace

std::string cpp_type(ScalarType type) {
  switch (type) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::I32:
      return "i32";
    case ScalarType::U32:
      return "u32";
    case ScalarType::I64:
      return "i64";
    case ScalarType::U64:
      return "u64";
    case ScalarType::F16:
    case ScalarType::F32:
      return "f32";
    case ScalarType::F64:
      return "f64";
  }
  return "f32";
}

std::string cpp_literal(ScalarType type, Value value) {
  switch (type) {
    case ScalarType::Bool:
      return value.b ? "true" : "false";
    case ScalarType::I32:
      return "(i32)" + hex(value.u32);
    case ScalarType::U32:
      return "(u32)" + hex(value.u32);
    case ScalarType::I64:
      return "(i64)" + hex(value.u64);
    case ScalarType::U64:
      return "(u64)" + hex(value.u64);
    case ScalarType::F16:
    case ScalarType::F32:
      return "__builtin_bit_cast(f32, (u32)" + hex(value.u32) + ")";
    case ScalarType::F64:
      return "__builtin_bit_cast(f64, (u64)" + hex(value.u64) + ")";
  }
  return "0";
}

std::string CppEmitter::unary(const Stmt& s) const {
  std::string a = r(s.args[0]);  // not const: `return a` moves it
  const ScalarType t = type_of(s.dst);
  switch (s.op) {
    case Opcode::Mov:
      return a;
    case Opcode::Cvt:
      return "wave_cvt<" + cpp_type(t) + ">(" + a + ")";
    case Opcode::Neg:
      return "wave_neg(" + a + ")";
    case Opcode::Not:
      return "!" + a;
    case Opcode::BitNot:
      return "(" + cpp_type(t) + ")~" + a;
    case Opcode::Abs:
      return "wave_abs(" + a + ")";
    case Opcode::Sqrt:
      return "wave_sqrt(" + a + ")";
    case Opcode::Floor:
      return "wave_floor(" + a + ")";
    case Opcode::Ceil:
      return "wave_ceil(" + a + ")";
    case Opcode::Sin:
      return libm("sin", t) + "(" + a + ")";
    case Opcode::Cos:
      return libm("cos", t) + "(" + a + ")";
    case Opcode::Tan:
      return libm("tan", t) + "(" + a + ")";
    case Opcode::Exp:
      return libm("exp", t) + "(" + a + ")";
    case Opcode::Exp2:
      return libm("exp2", t) + "(" + a + ")";
    case Opcode::Log:
      return libm("log", t) + "(" + a + ")";
    case Opcode::Log2:
      return libm("log2", t) + "(" + a + ")";
    default:
      return math_extra(s);
  }
}

// Integer division, floor division, modulo and power fault first where the emulator does.
std::string CppEmitter::binary(const Stmt& s, std::string& checks, const std::string& pad) const {
  const std::string a = r(s.args[0]);
  const std::string b = r(s.args[1]);
  const ScalarType t = type_of(s.dst);
  const bool integer = is_integer(t);
  const std::string type = cpp_type(t);
  auto division = [&](int kind) {
    checks += pad + "if (" + b + " == 0) [[unlikely]] " + fault("WAVE_DIV_ZERO", s.line, "0", "0", "0", "0", "0");
    return "wave_idiv<" + type + ">(" + a + ", " + b + ", " + std::to_string(kind) + ")";
  };
  switch (s.op) {
    case Opcode::Add:
      return integer ? "wave_add<" + type + ">(" + a + ", " + b + ")" : a + " + " + b;
    case Opcode::Sub:
      return integer ? "wave_sub<" + type + ">(" + a + ", " + b + ")" : a + " - " + b;
    case Opcode::Mul:
      return integer ? "wave_mul<" + type + ">(" + a + ", " + b + ")" : a + " * " + b;
    case Opcode::Div:
      return integer ? division(0) : a + " / " + b;
    case Opcode::FloorDiv:
      return integer ? division(1) : "wave_fdiv_floor(" + a + ", " + b + ")";
    case Opcode::Mod:
      return integer ? division(2) : "wave_fmod_python(" + a + ", " + b + ")";
    case Opcode::Pow:
      if (!integer) return "wave_pow(" + a + ", " + b + ")";
      if (is_signed(t)) {
        checks += pad + "if (" + b + " < 0) [[unlikely]] " +
                  fault("WAVE_NEG_EXPONENT", s.line, "0", "1", "(u64)(i64)" + b, "0", "0");
      }
      return "wave_ipow<" + type + ">(" + a + ", " + b + ")";
    case Opcode::Min:
      return "wave_min<" + type + ">(" + a + ", " + b + ")";
    case Opcode::Max:
      return "wave_max<" + type + ">(" + a + ", " + b + ")";
    case Opcode::BitAnd:
      return "(" + type + ")(" + a + " & " + b + ")";
    case Opcode::BitOr:
      return "(" + type + ")(" + a + " | " + b + ")";
    case Opcode::BitXor:
      return "(" + type + ")(" + a + " ^ " + b + ")";
    case Opcode::Shl:
      return "wave_shl<" + type + ">(" + a + ", " + b + ")";
    case Opcode::Shr:
      return "wave_shr<" + type + ">(" + a + ", " + b + ")";
    case Opcode::LogicAnd:
      return "(" + a + " && " + b + ")";
    case Opcode::LogicOr:
      return "(" + a + " || " + b + ")";
    default:
      return math_extra(s);
  }
}

std::string CppEmitter::compare(const Stmt& s) const {
  const std::string a = r(s.args[0]);
  const std::string b = r(s.args[1]);
  switch (s.op) {
    case Opcode::Eq:
      return a + " == " + b;
    case Opcode::Ne:
      return a + " != " + b;
    case Opcode::Lt:
      return a + " < " + b;
    case Opcode::Le:
      return a + " <= " + b;
    case Opcode::Gt:
      return a + " > " + b;
    default:
      return a + " >= " + b;
  }
}

std::string CppEmitter::geometry(const Stmt& s) const {
  const std::string d = std::to_string(s.dim);
  switch (s.op) {
    case Opcode::ThreadId:
      return s.dim == 0 ? "(i32)wave_id0" : "(i32)(wave_base" + d + " + wave_l" + d + ")";
    case Opcode::LocalId:
      return "(i32)wave_l" + d;
    case Opcode::WorkgroupId:
      return std::string("(i32)wave_g") + (s.dim == 0 ? "x" : s.dim == 1 ? "y" : "z");
    case Opcode::WorkgroupSize:
      return "(i32)wave_wg" + d;
    case Opcode::NumWorkgroups:
      return "(i32)wave_grid" + d;
    case Opcode::LaneId:
      return "(i32)(wave_t & (wave_width - 1))";
    case Opcode::WaveWidth:
      return "(i32)wave_width";
    default: {  // Length
      if (s.mem.kind == MemRef::Kind::Shared) return "(i32)" + std::to_string(m_.shared[s.mem.index].count);
      const std::string n = "n" + std::to_string(s.mem.index);
      return "(i32)(" + n + " < 2147483647 ? " + n + " : 2147483647)";
    }
  }
}

// tanh ... copysign and the classification tests: the C library's functions, as the emulator.
std::string CppEmitter::math_extra(const Stmt& s) const {
  const std::string a = r(s.args[0]);
  const ScalarType t = type_of(s.args[0]);
  auto call = [&](const std::string& name) { return libm(name, t) + "(" + a + ")"; };
  auto call2 = [&](const std::string& name) { return libm(name, t) + "(" + a + ", " + r(s.args[1]) + ")"; };
  switch (s.op) {
    case Opcode::Tanh:
      return call("tanh");
    case Opcode::Sinh:
      return call("sinh");
    case Opcode::Cosh:
      return call("cosh");
    case Opcode::Asin:
      return call("asin");
    case Opcode::Acos:
      return call("acos");
    case Opcode::Atan:
      return call("atan");
    case Opcode::Erf:
      return call("erf");
    case Opcode::Erfc:
      return call("erfc");
    case Opcode::Log10:
      return call("log10");
    case Opcode::Log1p:
      return call("log1p");
    case Opcode::Expm1:
      return call("expm1");
    case Opcode::Trunc:
      return "wave_trunc(" + a + ")";
    case Opcode::IsNan:
      return "wave_isnan(" + a + ")";
    case Opcode::IsInf:
      return "wave_isinf(" + a + ")";
    case Opcode::IsFinite:
      return "wave_isfinite(" + a + ")";
    case Opcode::Atan2:
      return call2("atan2");
    case Opcode::Hypot:
      return call2("hypot");
    case Opcode::Fmod:
      return "wave_fmod(" + a + ", " + r(s.args[1]) + ")";
    case Opcode::Copysign:
      return "wave_copysign(" + a + ", " + r(s.args[1]) + ")";
    default:
      throw UnsupportedOnCpu("the native cpu device has no implementation of " + std::string(op_info(s.op).name));
  }
}

}  // namespace wavestack::wave::cpp_detail
