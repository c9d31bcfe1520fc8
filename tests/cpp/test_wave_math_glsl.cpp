// The math functions beyond GLSL's built-ins (glsl_math_extra.cpp): every one compiles with
// glslang for f32 and f64, f32 code needs no float64, and the verifier checks their types.
// Their values are tested against NumPy on lavapipe by tests/python/test_wave_math.py.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/shader_compiler.hpp"
#include "wave/builder.hpp"
#include "wave/errors.hpp"
#include "wave/glsl_emitter.hpp"

namespace wavestack::wave {
namespace {

constexpr Opcode kUnary[] = {Opcode::Tanh, Opcode::Sinh, Opcode::Cosh,  Opcode::Asin,  Opcode::Acos,  Opcode::Atan,
                             Opcode::Erf,  Opcode::Erfc, Opcode::Log10, Opcode::Log1p, Opcode::Expm1, Opcode::Trunc};
constexpr Opcode kBinary[] = {Opcode::Atan2, Opcode::Hypot, Opcode::Fmod, Opcode::Copysign};
constexpr Opcode kClassify[] = {Opcode::IsNan, Opcode::IsInf, Opcode::IsFinite};

// Loads x[i], applies every math function of `type` to it and stores the results.
Module math_module(ScalarType type) {
  Builder b("math");
  b.add_buffer("x", type);
  b.add_buffer("flags", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 1, {}, 0);
  const Reg x = b.new_reg(type);
  b.emit(Opcode::Load, x, std::vector<Reg>{tid}, 2, "x");
  for (auto op : kUnary) b.emit(op, x, std::vector<Reg>{x}, 3);
  for (auto op : kBinary) b.emit(op, x, std::vector<Reg>{x, x}, 4);
  const Reg flag = b.new_reg(ScalarType::Bool);
  const Reg flag_i32 = b.new_reg(ScalarType::I32);
  for (auto op : kClassify) {
    b.emit(op, flag, std::vector<Reg>{x}, 5);
    b.emit(Opcode::Cvt, flag_i32, std::vector<Reg>{flag}, 5);
    b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, flag_i32}, 5, "flags");
  }
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, x}, 6, "x");
  return b.finish();
}

void expect_compiles(const std::string& source, bool optimize) {
  runtime::ShaderOptions options;
  options.optimize = optimize;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "test"))
      << source;
}

TEST(WaveMathGlsl, EveryFunctionCompilesForBothFloatTypes) {
  for (auto type : {ScalarType::F32, ScalarType::F64}) {
    const std::string source = emit_glsl(math_module(type), GlslTarget{}).source;
    const std::string suffix = type == ScalarType::F32 ? "_f32(" : "_f64(";
    for (const char* name : {"wave_tanh", "wave_erfc", "wave_cfmod", "wave_isnan", "wave_atan2"}) {
      EXPECT_NE(source.find(name + suffix), std::string::npos) << name;
    }
    expect_compiles(source, false);
    expect_compiles(source, true);
  }
}

TEST(WaveMathGlsl, SinglePrecisionNeedsNoFloat64) {
  GlslTarget target;
  target.float64 = false;
  const std::string source = emit_glsl(math_module(ScalarType::F32), target).source;
  EXPECT_EQ(source.find("double"), std::string::npos);
  expect_compiles(source, false);
}

TEST(WaveMathGlsl, TheVerifierChecksOperandTypes) {
  for (auto op : {Opcode::IsNan, Opcode::Tanh, Opcode::Atan2}) {
    Builder b("bad");
    const Reg i = b.new_reg(ScalarType::I32);
    const Reg out = b.new_reg(op == Opcode::IsNan ? ScalarType::Bool : ScalarType::I32);
    b.emit(Opcode::ThreadId, i, {}, 1, {}, 0);
    b.emit(op, out, op == Opcode::Atan2 ? std::vector<Reg>{i, i} : std::vector<Reg>{i}, 2);
    EXPECT_THROW((void)b.finish(), IrError) << op_info(op).name;
  }
  Builder b("classify_to_float");
  const Reg x = b.new_reg(ScalarType::F32);
  b.emit(Opcode::IsInf, x, std::vector<Reg>{x}, 1);
  EXPECT_THROW((void)b.finish(), IrError);
}

}  // namespace
}  // namespace wavestack::wave
