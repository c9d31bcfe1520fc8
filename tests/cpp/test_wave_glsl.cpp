// The GLSL emitter: every IR construct becomes GLSL that glslang accepts (no device needed),
// and a device without a needed feature gets an error that names the feature.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/shader_compiler.hpp"
#include "wave/builder.hpp"
#include "wave/glsl_emitter.hpp"

namespace wavestack::wave {
namespace {

Value imm_i32(int32_t x) {
  Value v{};
  v.i32 = x;
  return v;
}
Value imm_f32(float x) {
  Value v{};
  v.f32 = x;
  return v;
}

// Every opcode class on every register type the emitter handles differently.
Module everything_module() {
  Builder b("everything");
  b.add_buffer("f", ScalarType::F32);
  b.add_buffer("d", ScalarType::F64);
  b.add_buffer("h", ScalarType::F16);
  b.add_buffer("i", ScalarType::I32);
  b.add_buffer("u", ScalarType::U32);
  b.add_buffer("l", ScalarType::I64);
  b.add_buffer("ul", ScalarType::U64);
  const Reg scale = b.add_scalar("scale", ScalarType::F64);
  const Reg flag = b.add_scalar("flag", ScalarType::Bool);
  b.add_shared("tile", ScalarType::F32, 64);
  b.add_shared("halves", ScalarType::F16, 8);
  b.add_shared("wide", ScalarType::F64, 8);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 1, {}, 0);
  for (auto op : {Opcode::LocalId, Opcode::WorkgroupId, Opcode::WorkgroupSize, Opcode::NumWorkgroups, Opcode::LaneId,
                  Opcode::WaveWidth}) {
    const Reg g = b.new_reg(ScalarType::I32);
    b.emit(op, g, {}, 2, {}, 1);
  }
  const Reg len = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Length, len, {}, 2, "f");
  const Reg x = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Load, x, std::vector<Reg>{tid}, 3, "f");
  const Reg hx = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Load, hx, std::vector<Reg>{tid}, 3, "h");
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, x}, 3, "h");
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, x}, 3, "halves");
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, x}, 3, "tile");
  for (auto op : {Opcode::Sqrt, Opcode::Sin, Opcode::Cos, Opcode::Tan, Opcode::Exp, Opcode::Exp2, Opcode::Log,
                  Opcode::Log2, Opcode::Floor, Opcode::Ceil, Opcode::Neg, Opcode::Abs}) {
    b.emit(op, x, std::vector<Reg>{x}, 4);
  }
  const Reg y = b.new_reg(ScalarType::F64);
  b.emit(Opcode::Cvt, y, std::vector<Reg>{x}, 5);
  for (auto op : {Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Div, Opcode::FloorDiv, Opcode::Mod, Opcode::Pow,
                  Opcode::Min, Opcode::Max}) {
    b.emit(op, x, std::vector<Reg>{x, hx}, 6);
    b.emit(op, y, std::vector<Reg>{y, scale}, 6);
  }
  b.emit(Opcode::Fma, y, std::vector<Reg>{y, scale, y}, 6);
  const Reg n = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Load, n, std::vector<Reg>{tid}, 7, "i");
  const Reg w = b.new_reg(ScalarType::U64);
  b.emit(Opcode::Load, w, std::vector<Reg>{n}, 7, "ul");
  for (auto op : {Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::Div, Opcode::FloorDiv, Opcode::Mod, Opcode::Pow,
                  Opcode::Min, Opcode::Max, Opcode::BitAnd, Opcode::BitOr, Opcode::BitXor, Opcode::Shl, Opcode::Shr}) {
    b.emit(op, n, std::vector<Reg>{n, tid}, 8);
    b.emit(op, w, std::vector<Reg>{w, w}, 8);
  }
  b.emit(Opcode::BitNot, n, std::vector<Reg>{n}, 8);
  const Reg back = b.new_reg(ScalarType::I64);
  b.emit(Opcode::Cvt, back, std::vector<Reg>{y}, 9);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, back}, 9, "l");
  b.emit(Opcode::Cvt, n, std::vector<Reg>{x}, 9);
  const Reg cond = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Lt, cond, std::vector<Reg>{x, hx}, 10);
  b.emit(Opcode::LogicAnd, cond, std::vector<Reg>{cond, flag}, 10);
  b.emit(Opcode::Select, x, std::vector<Reg>{cond, x, hx}, 10);
  b.begin_if(cond, 11);
  const Reg one = b.new_reg(ScalarType::I32);
  b.constant(one, imm_i32(1), 11);
  b.emit(Opcode::AtomicAdd, n, std::vector<Reg>{tid, one}, 12, "i");
  b.emit(Opcode::AtomicCas, n, std::vector<Reg>{tid, one, n}, 12, "i");
  b.emit(Opcode::AtomicAdd, x, std::vector<Reg>{tid, x}, 12, "f");
  b.emit(Opcode::AtomicMin, x, std::vector<Reg>{tid, x}, 12, "f");
  b.emit(Opcode::AtomicMax, x, std::vector<Reg>{tid, x}, 12, "tile");
  b.emit(Opcode::AtomicMin, y, std::vector<Reg>{tid, y}, 12, "d");
  b.emit(Opcode::AtomicAdd, y, std::vector<Reg>{tid, y}, 12, "wide");
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, y}, 12, "wide");
  b.emit(Opcode::Load, y, std::vector<Reg>{tid}, 12, "wide");
  b.begin_else();
  b.begin_loop(13);
  b.begin_if(cond, 14);
  b.emit_continue(14);
  b.end_if();
  b.begin_if(cond, 15);
  b.emit_break(15);
  b.end_if();
  b.begin_continuing();
  b.emit(Opcode::Add, n, std::vector<Reg>{n, tid}, 16);
  b.end_loop();
  b.end_if();
  b.emit_barrier(17);
  for (auto op : {Opcode::WaveSum, Opcode::WaveMin, Opcode::WaveMax, Opcode::WavePrefixSum}) {
    b.emit(op, x, std::vector<Reg>{x}, 18);
    b.emit(op, n, std::vector<Reg>{n}, 18);
    b.emit(op, w, std::vector<Reg>{w}, 18);
  }
  b.emit(Opcode::WaveShuffle, x, std::vector<Reg>{x, n}, 19);
  b.emit(Opcode::WaveBroadcast, w, std::vector<Reg>{w, n}, 19);
  b.emit(Opcode::WaveAny, cond, std::vector<Reg>{cond}, 19);
  b.emit(Opcode::WaveBallot, w, std::vector<Reg>{cond}, 19);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, w}, 20, "ul");
  const Reg tenth = b.new_reg(ScalarType::F32);
  b.constant(tenth, imm_f32(0.1F), 20);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, tenth}, 20, "f");
  b.emit_return(21);
  return b.finish();
}

TEST(WaveGlsl, EveryConstructCompilesWithGlslang) {
  const GlslShader shader = emit_glsl(everything_module(), GlslTarget{});
  runtime::ShaderOptions options;
  options.optimize = false;
  const auto binary = runtime::compile_compute_shader(shader.source, options, runtime::DiskCache(std::nullopt), "test");
  EXPECT_GT(binary.words.size(), 100U) << shader.source;
  EXPECT_EQ(shader.buffer_count, 7U);
  // lengths (7 x 4 bytes), then f64 scale aligned to 8, then the bool flag, then the launch
  // words (limit x, y, z and the loop budget)
  EXPECT_EQ(shader.scalar_offsets, (std::vector<uint32_t>{32, 40}));
  EXPECT_EQ(shader.launch_offset, 44U);
  EXPECT_EQ(shader.push_constant_bytes, 60U);
  EXPECT_EQ(shader.buffer_written, (std::vector<bool>{true, true, true, true, false, true, true}));
}

// out[i] = a[i] + b[i] with i = thread_id(0); `moved` also assigns i another value, after which
// no access it indexes may skip its check.
Module thread_indexed(bool moved) {
  Builder b("thread_indexed");
  b.add_buffer("a", ScalarType::F32);
  b.add_buffer("b", ScalarType::F32);
  b.add_buffer("out", ScalarType::F32);
  const Reg i = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, i, {}, 1, {}, 0);
  if (moved) b.constant(i, imm_i32(3), 1);
  const Reg x = b.new_reg(ScalarType::F32);
  const Reg y = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Load, x, std::vector<Reg>{i}, 2, "a");
  b.emit(Opcode::Load, y, std::vector<Reg>{i}, 2, "b");
  b.emit(Opcode::Add, x, std::vector<Reg>{x, y}, 2);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{i, x}, 2, "out");
  return b.finish();
}

TEST(WaveGlsl, ThreadIndexedAccessesHaveACopyWithoutChecks) {
  const GlslShader shader = emit_glsl(thread_indexed(false), GlslTarget{});
  EXPECT_EQ(shader.x_inside_buffers, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_NE(shader.source.find("if (wave_x_inside)"), std::string::npos);
  runtime::ShaderOptions options;
  options.optimize = false;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(shader.source, options, runtime::DiskCache(std::nullopt), "t"))
      << shader.source;
  EXPECT_TRUE(emit_glsl(thread_indexed(true), GlslTarget{}).x_inside_buffers.empty());
  GlslTarget unchecked;
  unchecked.bounds_checks = false;
  const GlslShader plain = emit_glsl(thread_indexed(false), unchecked);
  EXPECT_TRUE(plain.x_inside_buffers.empty());
  EXPECT_EQ(plain.source.find("wave_x_inside"), std::string::npos);
}

TEST(WaveGlsl, SharedLoadsReadAClampedIndexEvenIntoTheirIndexRegister) {
  Builder b("shared_chain");
  b.add_buffer("out", ScalarType::I32);
  b.add_shared("next", ScalarType::I32, 16);
  const Reg i = b.new_reg(ScalarType::I32);
  b.emit(Opcode::LocalId, i, {}, 1, {}, 0);
  b.emit(Opcode::Load, i, std::vector<Reg>{i}, 2, "next");  // i = next[i]: the guard is kept first
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{i, i}, 3, "out");
  const GlslShader shader = emit_glsl(b.finish(), GlslTarget{});
  EXPECT_NE(shader.source.find("{ bool wave_in = (uint(r0) < 16u); int wave_v = s0[min(uint(r0), 15u)]; r0 = "
                               "wave_in ? wave_v : "),
            std::string::npos)
      << shader.source;
  runtime::ShaderOptions options;
  options.optimize = false;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(shader.source, options, runtime::DiskCache(std::nullopt), "t"))
      << shader.source;
}

TEST(WaveGlsl, SharedIndicesWithABoundAreProvenForTheWorkgroupsItCovers) {
  Builder b("bounded");
  b.add_buffer("out", ScalarType::F32);
  b.add_shared("tile", ScalarType::F32, 16);
  const Reg three = b.new_reg(ScalarType::I32);
  b.constant(three, imm_i32(3), 1);
  const Reg two = b.new_reg(ScalarType::I32);
  b.constant(two, imm_i32(2), 1);
  const Reg lid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::LocalId, lid, {}, 2, {}, 0);
  const Reg twice = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Mul, twice, std::vector<Reg>{lid, two}, 2);
  const Reg before = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Sub, before, std::vector<Reg>{lid, three}, 3);
  const Reg x = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Load, x, std::vector<Reg>{three}, 4, "tile");            // tile[3]: always in range
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{twice, x}, 5, "tile");   // tile[2 * lid]: lid <= 7
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{before, x}, 6, "tile");  // tile[lid - 3]: no bound
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{lid, x}, 7, "out");
  const GlslShader shader = emit_glsl(b.finish(), GlslTarget{});
  EXPECT_NE(shader.source.find("// line 4: index proven in range"), std::string::npos) << shader.source;
  EXPECT_NE(shader.source.find("if ((0u + 2u * (gl_WorkGroupSize.x - 1u) < 16u) || (uint(r3) < 16u))"),
            std::string::npos)
      << shader.source;
  EXPECT_NE(shader.source.find("if (uint(r4) < 16u)"), std::string::npos) << shader.source;
  runtime::ShaderOptions options;
  options.optimize = false;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(shader.source, options, runtime::DiskCache(std::nullopt), "t"))
      << shader.source;
}

TEST(WaveGlsl, FloatRegistersArePreciseAndNoSwitchIsEmitted) {
  const std::string source = emit_glsl(everything_module(), GlslTarget{}).source;
  EXPECT_NE(source.find("precise float r"), std::string::npos);
  EXPECT_NE(source.find("precise double r"), std::string::npos);
  EXPECT_EQ(source.find("switch"), std::string::npos);
}

TEST(WaveGlsl, FloatAtomicAddUsesTheExtensionOnlyWhereAvailable) {
  GlslTarget target;
  EXPECT_NE(emit_glsl(everything_module(), target).source.find("GL_EXT_shader_atomic_float"), std::string::npos);
  target.float32_atomic_add = false;
  const std::string source = emit_glsl(everything_module(), target).source;
  EXPECT_EQ(source.find("GL_EXT_shader_atomic_float"), std::string::npos);
  EXPECT_NE(source.find("wave_atomic_atomic_add_0"), std::string::npos);
  runtime::ShaderOptions options;
  options.optimize = false;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "test"));
}

// Whether `words` holds OpExecutionMode <entry> <mode> <width> (opcode 16, four words).
bool has_execution_mode(const std::vector<uint32_t>& words, uint32_t mode, uint32_t width) {
  for (size_t i = 5; i + 3 < words.size(); ++i) {
    if (words[i] == ((4U << 16U) | 16U) && words[i + 2] == mode && words[i + 3] == width) return true;
  }
  return false;
}

// DenormPreserve (4459) and SignedZeroInfNanPreserve (4461) for 32-bit floats reach the
// SPIR-V where the target supports them, and the optimiser keeps them.
TEST(WaveGlsl, FloatControlsFollowTheTargetAndSurviveOptimisation) {
  runtime::ShaderOptions options;
  options.optimize = true;
  const auto compile = [&](const GlslTarget& target) {
    const std::string source = emit_glsl(everything_module(), target).source;
    return runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "test").words;
  };
  const auto both = compile(GlslTarget{});
  EXPECT_TRUE(has_execution_mode(both, 4459, 32));
  EXPECT_TRUE(has_execution_mode(both, 4461, 32));

  GlslTarget nan_only;
  nan_only.float32_denorm_preserve = false;
  const auto partial = compile(nan_only);
  EXPECT_FALSE(has_execution_mode(partial, 4459, 32));
  EXPECT_TRUE(has_execution_mode(partial, 4461, 32));

  GlslTarget none = nan_only;
  none.float32_inf_nan_preserve = false;
  EXPECT_EQ(emit_glsl(everything_module(), none).source.find("spirv_execution_mode"), std::string::npos);
  const auto plain = compile(none);
  EXPECT_FALSE(has_execution_mode(plain, 4461, 32));
}

void expect_missing(void (*disable)(GlslTarget&), const std::string& feature) {
  GlslTarget target;
  target.device_name = "Test GPU";
  disable(target);
  try {
    (void)emit_glsl(everything_module(), target);
    FAIL() << "expected a DeviceError naming " << feature;
  } catch (const runtime::DeviceError& error) {
    EXPECT_NE(std::string(error.what()).find(feature), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("Test GPU"), std::string::npos) << error.what();
  }
}

TEST(WaveGlsl, MissingFeaturesAreNamed) {
  expect_missing([](GlslTarget& t) { t.float64 = false; }, "float64");
  expect_missing([](GlslTarget& t) { t.int64 = false; }, "int64");
  expect_missing([](GlslTarget& t) { t.storage_buffer_16bit = false; }, "16-bit storage");
  expect_missing([](GlslTarget& t) { t.subgroup_shuffle = false; }, "subgroup shuffle");
  expect_missing([](GlslTarget& t) { t.subgroup_arithmetic = false; }, "subgroup arithmetic");
}

TEST(WaveGlsl, SixtyFourBitAtomicsNeedTheFeature) {
  Builder b("wide_atomic");
  b.add_buffer("l", ScalarType::I64);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 1, {}, 0);
  const Reg v = b.new_reg(ScalarType::I64);
  b.emit(Opcode::AtomicAdd, v, std::vector<Reg>{tid, v}, 2, "l");
  b.emit(Opcode::AtomicMax, v, std::vector<Reg>{tid, v}, 2, "l");
  const Module m = b.finish();
  const std::string source = emit_glsl(m, GlslTarget{}).source;
  EXPECT_NE(source.find("GL_EXT_shader_atomic_int64"), std::string::npos);
  runtime::ShaderOptions options;
  options.optimize = false;
  EXPECT_NO_THROW((void)runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "test"));
  GlslTarget without;
  without.int64_atomics = false;
  EXPECT_THROW((void)emit_glsl(m, without), runtime::DeviceError);
}

}  // namespace
}  // namespace wavestack::wave
