// Values: conversions, unary and binary operations, comparisons, launch geometry.
#include <map>
#include <string>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {

void Emitter::need_subgroup(const Stmt& s, bool ballot, bool shuffle, bool arithmetic) {
  const std::string what = "uses " + std::string(op_info(s.op).name) + " (line " + std::to_string(s.line) + ")";
  need(target_.subgroup_basic, what, "subgroup operations (VK_SUBGROUP_FEATURE_BASIC_BIT)");
  uses_subgroup_basic_ = true;
  if (ballot) {
    need(target_.subgroup_ballot, what, "subgroup ballot (VK_SUBGROUP_FEATURE_BALLOT_BIT)");
    uses_ballot_ = true;
  }
  if (shuffle) {
    need(target_.subgroup_shuffle, what, "subgroup shuffle (VK_SUBGROUP_FEATURE_SHUFFLE_BIT)");
    uses_shuffle_ = true;
  }
  if (arithmetic) {
    need(target_.subgroup_arithmetic, what, "subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT)");
    uses_arithmetic_ = true;
  }
}

std::string Emitter::convert(ScalarType to, ScalarType from, const std::string& x) {
  if (to == from) return x;
  if (to == ScalarType::Bool) return "(" + x + " != " + glsl::zero(from) + ")";
  if (from == ScalarType::Bool) return "(" + x + " ? " + glsl_type(to) + "(1) : " + glsl::zero(to) + ")";
  if (is_float(from) && is_integer(to)) {
    const std::string name = "wave_cvt_" + glsl::suffix(to) + "_" + glsl::suffix(from);
    add_helper(name, glsl::float_to_int_helper(to, from));
    return name + "(" + x + ")";
  }
  // Integer widening follows the source's signedness, as static_cast does.
  if (from == ScalarType::I32 && to == ScalarType::U64) return "uint64_t(int64_t(" + x + "))";
  return glsl_type(to) + "(" + x + ")";
}

std::string Emitter::float_call(const std::string& fn, ScalarType t, const std::string& x) {
  if (t == ScalarType::F64) {
    add_helper("f64_math", "");
    return "wave_" + fn + "_f64(" + x + ")";
  }
  return fn + "(" + x + ")";
}

std::string Emitter::unary(const Stmt& s) {
  if (is_math_extra(s.op)) return math_extra(s);  // glsl_math_extra.cpp
  const ScalarType t = type_of(s.dst);
  std::string a = r(s.args[0]);  // not const: returned by move
  switch (s.op) {
    case Opcode::Mov:
      return a;
    case Opcode::Cvt:
      return convert(t, type_of(s.args[0]), a);
    case Opcode::Neg:
      return is_float(t) ? "(-" + a + ")" : "(" + glsl::zero(t) + " - " + a + ")";
    case Opcode::Not:
      return "(!" + a + ")";
    case Opcode::BitNot:
      return "(~" + a + ")";
    case Opcode::Abs:
      if (is_float(t)) return "abs(" + a + ")";
      if (is_signed(t)) return "(" + a + " < " + glsl::zero(t) + " ? " + glsl::zero(t) + " - " + a + " : " + a + ")";
      return a;
    case Opcode::Sqrt:
      // f32 through f64 where the device has it: one correct rounding of f64's correctly
      // rounded sqrt is the correctly rounded f32 result (53 >= 2 * 24 + 2 bits).
      if (t == ScalarType::F32 && target_.float64) return "float(sqrt(double(" + a + ")))";
      return "sqrt(" + a + ")";
    case Opcode::Floor:
      return "floor(" + a + ")";
    case Opcode::Ceil:
      return "ceil(" + a + ")";
    case Opcode::Sin:
      return float_call("sin", t, a);
    case Opcode::Cos:
      return float_call("cos", t, a);
    case Opcode::Tan:
      return float_call("tan", t, a);
    case Opcode::Exp:
      return float_call("exp", t, a);
    case Opcode::Exp2:
      return float_call("exp2", t, a);
    case Opcode::Log:
      return float_call("log", t, a);
    case Opcode::Log2:
      return float_call("log2", t, a);
    default:
      return a;
  }
}

std::string Emitter::float_quotient(ScalarType t, const std::string& a, const std::string& b) const {
  if (t == ScalarType::F32 && target_.float64) return "float(double(" + a + ") / double(" + b + "))";
  return "(" + a + " / " + b + ")";
}

std::string Emitter::binary(const Stmt& s) {
  if (is_math_extra(s.op)) return math_extra(s);  // glsl_math_extra.cpp
  const ScalarType t = type_of(s.dst);
  std::string a = r(s.args[0]);  // not const: returned by move
  const std::string b = r(s.args[1]);
  const std::string line = std::to_string(s.line) + "u";
  auto infix = [&](const char* op) { return "(" + a + " " + op + " " + b + ")"; };
  auto int_division = [&](const char* kind) {
    const std::string name = "wave_div_" + glsl::suffix(t);
    add_helper(name, glsl::int_division_helper(t));
    return name + "(" + a + ", " + b + ", " + line + ", " + kind + ")";
  };
  switch (s.op) {
    case Opcode::Add:
      return infix("+");
    case Opcode::Sub:
      return infix("-");
    case Opcode::Mul:
      return infix("*");
    case Opcode::Div:
      return is_float(t) ? float_quotient(t, a, b) : int_division("0u");
    case Opcode::FloorDiv:
      return is_float(t) ? "floor(" + float_quotient(t, a, b) + ")" : int_division("1u");
    case Opcode::Mod:
      if (is_float(t)) {
        const std::string name = "wave_fmod_" + glsl::suffix(t);
        add_helper(name, glsl::float_mod_helper(t));
        return name + "(" + a + ", " + b + ")";
      }
      return int_division("2u");
    case Opcode::Pow: {
      const bool f = is_float(t);
      const std::string name = (f ? "wave_pow_" : "wave_ipow_") + glsl::suffix(t);
      if (t == ScalarType::F64) add_helper("f64_math", "");
      if (!helper_names_.contains(name)) {
        add_helper(name,
                   f ? glsl::float_pow_helper(t) : glsl::int_power_helper(t, helper_loop_step(), helper_loop_exit()));
      }
      return name + "(" + a + ", " + b + (f ? ")" : ", " + line + ")");
    }
    case Opcode::Min:  // the emulator's b < a ? b : a, NaN behaviour included
      return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
    case Opcode::Max:
      return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
    case Opcode::BitAnd:
      return t == ScalarType::Bool ? infix("&&") : infix("&");
    case Opcode::BitOr:
      return t == ScalarType::Bool ? infix("||") : infix("|");
    case Opcode::BitXor:
      return t == ScalarType::Bool ? infix("!=") : infix("^");
    case Opcode::Shl:
    case Opcode::Shr: {
      const std::string width = is_64bit(t) ? "63" : "31";
      return "(" + a + (s.op == Opcode::Shl ? " << " : " >> ") + "(" + b + " & " + glsl_type(t) + "(" + width + ")))";
    }
    case Opcode::LogicAnd:
      return infix("&&");
    case Opcode::LogicOr:
      return infix("||");
    default:
      return a;
  }
}

std::string Emitter::compare(const Stmt& s) {
  static const std::map<Opcode, const char*> kOps = {{Opcode::Eq, "=="}, {Opcode::Ne, "!="}, {Opcode::Lt, "<"},
                                                     {Opcode::Le, "<="}, {Opcode::Gt, ">"},  {Opcode::Ge, ">="}};
  return "(" + r(s.args[0]) + " " + kOps.at(s.op) + " " + r(s.args[1]) + ")";
}

std::string Emitter::geometry(const Stmt& s) {
  static const char* kAxes[3] = {"x", "y", "z"};
  const std::string axis = kAxes[s.dim];
  switch (s.op) {
    case Opcode::ThreadId:
      return "int(gl_GlobalInvocationID." + axis + ")";
    case Opcode::LocalId:
      return "int(gl_LocalInvocationID." + axis + ")";
    case Opcode::WorkgroupId:
      return "int(gl_WorkGroupID." + axis + ")";
    case Opcode::WorkgroupSize:
      return "int(gl_WorkGroupSize." + axis + ")";
    case Opcode::NumWorkgroups:
      return "int(gl_NumWorkGroups." + axis + ")";
    case Opcode::LaneId:
      need_subgroup(s, false, false, false);
      return "int(gl_SubgroupInvocationID)";
    case Opcode::WaveWidth:
      need_subgroup(s, false, false, false);
      return "int(gl_SubgroupSize)";
    case Opcode::Length:
      if (s.mem.kind == MemRef::Kind::Shared) return "int(" + std::to_string(m_.shared[s.mem.index].count) + ")";
      // GpuProgram::check_launch refuses buffers of more than 2^31 - 1 elements, so the length
      // converts to int without a clamp.
      return "int(pc.len" + std::to_string(s.mem.index) + ")";
    default:
      return "0";
  }
}

}  // namespace wavestack::wave::glsl_detail
