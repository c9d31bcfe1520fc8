// GPU differential test of the device numerics: the same GLSL files, concatenated into one
// compute shader with numerics_eval.glsl, run on the selected Vulkan device (lavapipe in CI)
// over special and random operands of every operation, and compared bit for bit (result and
// trap code) with the C++ build of the same code, which the other numerics tests check
// against native IEEE and integer arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "numerics_test/numerics_eval_glsl.hpp"
#include "numerics_test_support.hpp"
#include "runtime/compute_context.hpp"
#include "runtime/shader_compiler.hpp"
#include "test_support.hpp"
#include "wasm/device/numerics_glsl.hpp"

namespace wavestack::wasm::device {
namespace {
#include "numerics_eval.glsl"
}  // namespace
}  // namespace wavestack::wasm::device

namespace {

using namespace wavestack::numerics_test;
using namespace wavestack::runtime;
namespace device = wavestack::wasm::device;

enum class Operand { None, I32, I64, F32, F64 };

struct Op {
  uint opcode;
  const char* name;
  Operand a;
  Operand b;
};

constexpr Operand N = Operand::None;
constexpr Operand I32 = Operand::I32;
constexpr Operand I64 = Operand::I64;
constexpr Operand F32 = Operand::F32;
constexpr Operand F64 = Operand::F64;

// Every numeric instruction (opcodes as wasm_numeric numbers them) and every builtin probe
// of numerics_eval.glsl, with operand types.
constexpr Op kOps[] = {
    {0x45, "i32.eqz", I32, N},
    {0x46, "i32.eq", I32, I32},
    {0x47, "i32.ne", I32, I32},
    {0x48, "i32.lt_s", I32, I32},
    {0x49, "i32.lt_u", I32, I32},
    {0x4A, "i32.gt_s", I32, I32},
    {0x4B, "i32.gt_u", I32, I32},
    {0x4C, "i32.le_s", I32, I32},
    {0x4D, "i32.le_u", I32, I32},
    {0x4E, "i32.ge_s", I32, I32},
    {0x4F, "i32.ge_u", I32, I32},
    {0x50, "i64.eqz", I64, N},
    {0x51, "i64.eq", I64, I64},
    {0x52, "i64.ne", I64, I64},
    {0x53, "i64.lt_s", I64, I64},
    {0x54, "i64.lt_u", I64, I64},
    {0x55, "i64.gt_s", I64, I64},
    {0x56, "i64.gt_u", I64, I64},
    {0x57, "i64.le_s", I64, I64},
    {0x58, "i64.le_u", I64, I64},
    {0x59, "i64.ge_s", I64, I64},
    {0x5A, "i64.ge_u", I64, I64},
    {0x5B, "f32.eq", F32, F32},
    {0x5C, "f32.ne", F32, F32},
    {0x5D, "f32.lt", F32, F32},
    {0x5E, "f32.gt", F32, F32},
    {0x5F, "f32.le", F32, F32},
    {0x60, "f32.ge", F32, F32},
    {0x61, "f64.eq", F64, F64},
    {0x62, "f64.ne", F64, F64},
    {0x63, "f64.lt", F64, F64},
    {0x64, "f64.gt", F64, F64},
    {0x65, "f64.le", F64, F64},
    {0x66, "f64.ge", F64, F64},
    {0x67, "i32.clz", I32, N},
    {0x68, "i32.ctz", I32, N},
    {0x69, "i32.popcnt", I32, N},
    {0x6A, "i32.add", I32, I32},
    {0x6B, "i32.sub", I32, I32},
    {0x6C, "i32.mul", I32, I32},
    {0x6D, "i32.div_s", I32, I32},
    {0x6E, "i32.div_u", I32, I32},
    {0x6F, "i32.rem_s", I32, I32},
    {0x70, "i32.rem_u", I32, I32},
    {0x71, "i32.and", I32, I32},
    {0x72, "i32.or", I32, I32},
    {0x73, "i32.xor", I32, I32},
    {0x74, "i32.shl", I32, I32},
    {0x75, "i32.shr_s", I32, I32},
    {0x76, "i32.shr_u", I32, I32},
    {0x77, "i32.rotl", I32, I32},
    {0x78, "i32.rotr", I32, I32},
    {0x79, "i64.clz", I64, N},
    {0x7A, "i64.ctz", I64, N},
    {0x7B, "i64.popcnt", I64, N},
    {0x7C, "i64.add", I64, I64},
    {0x7D, "i64.sub", I64, I64},
    {0x7E, "i64.mul", I64, I64},
    {0x7F, "i64.div_s", I64, I64},
    {0x80, "i64.div_u", I64, I64},
    {0x81, "i64.rem_s", I64, I64},
    {0x82, "i64.rem_u", I64, I64},
    {0x83, "i64.and", I64, I64},
    {0x84, "i64.or", I64, I64},
    {0x85, "i64.xor", I64, I64},
    {0x86, "i64.shl", I64, I64},
    {0x87, "i64.shr_s", I64, I64},
    {0x88, "i64.shr_u", I64, I64},
    {0x89, "i64.rotl", I64, I64},
    {0x8A, "i64.rotr", I64, I64},
    {0x8B, "f32.abs", F32, N},
    {0x8C, "f32.neg", F32, N},
    {0x8D, "f32.ceil", F32, N},
    {0x8E, "f32.floor", F32, N},
    {0x8F, "f32.trunc", F32, N},
    {0x90, "f32.nearest", F32, N},
    {0x91, "f32.sqrt", F32, N},
    {0x92, "f32.add", F32, F32},
    {0x93, "f32.sub", F32, F32},
    {0x94, "f32.mul", F32, F32},
    {0x95, "f32.div", F32, F32},
    {0x96, "f32.min", F32, F32},
    {0x97, "f32.max", F32, F32},
    {0x98, "f32.copysign", F32, F32},
    {0x99, "f64.abs", F64, N},
    {0x9A, "f64.neg", F64, N},
    {0x9B, "f64.ceil", F64, N},
    {0x9C, "f64.floor", F64, N},
    {0x9D, "f64.trunc", F64, N},
    {0x9E, "f64.nearest", F64, N},
    {0x9F, "f64.sqrt", F64, N},
    {0xA0, "f64.add", F64, F64},
    {0xA1, "f64.sub", F64, F64},
    {0xA2, "f64.mul", F64, F64},
    {0xA3, "f64.div", F64, F64},
    {0xA4, "f64.min", F64, F64},
    {0xA5, "f64.max", F64, F64},
    {0xA6, "f64.copysign", F64, F64},
    {0xA7, "i32.wrap_i64", I64, N},
    {0xA8, "i32.trunc_f32_s", F32, N},
    {0xA9, "i32.trunc_f32_u", F32, N},
    {0xAA, "i32.trunc_f64_s", F64, N},
    {0xAB, "i32.trunc_f64_u", F64, N},
    {0xAC, "i64.extend_i32_s", I32, N},
    {0xAD, "i64.extend_i32_u", I32, N},
    {0xAE, "i64.trunc_f32_s", F32, N},
    {0xAF, "i64.trunc_f32_u", F32, N},
    {0xB0, "i64.trunc_f64_s", F64, N},
    {0xB1, "i64.trunc_f64_u", F64, N},
    {0xB2, "f32.convert_i32_s", I32, N},
    {0xB3, "f32.convert_i32_u", I32, N},
    {0xB4, "f32.convert_i64_s", I64, N},
    {0xB5, "f32.convert_i64_u", I64, N},
    {0xB6, "f32.demote_f64", F64, N},
    {0xB7, "f64.convert_i32_s", I32, N},
    {0xB8, "f64.convert_i32_u", I32, N},
    {0xB9, "f64.convert_i64_s", I64, N},
    {0xBA, "f64.convert_i64_u", I64, N},
    {0xBB, "f64.promote_f32", F32, N},
    {0xBC, "i32.reinterpret_f32", F32, N},
    {0xBD, "i64.reinterpret_f64", F64, N},
    {0xBE, "f32.reinterpret_i32", I32, N},
    {0xBF, "f64.reinterpret_i64", I64, N},
    {0xC0, "i32.extend8_s", I32, N},
    {0xC1, "i32.extend16_s", I32, N},
    {0xC2, "i64.extend8_s", I64, N},
    {0xC3, "i64.extend16_s", I64, N},
    {0xC4, "i64.extend32_s", I64, N},
    {0x100, "i32.trunc_sat_f32_s", F32, N},
    {0x101, "i32.trunc_sat_f32_u", F32, N},
    {0x102, "i32.trunc_sat_f64_s", F64, N},
    {0x103, "i32.trunc_sat_f64_u", F64, N},
    {0x104, "i64.trunc_sat_f32_s", F32, N},
    {0x105, "i64.trunc_sat_f32_u", F32, N},
    {0x106, "i64.trunc_sat_f64_s", F64, N},
    {0x107, "i64.trunc_sat_f64_u", F64, N},
    // The device's GLSL builtins against prelude.hpp's C++ versions.
    {0x1000, "uaddCarry", I64, I64},
    {0x1001, "usubBorrow", I64, I64},
    {0x1002, "umulExtended", I64, I64},
    {0x1003, "findMSB", I64, I64},
    {0x1004, "findLSB", I64, I64},
    {0x1005, "bitCount", I64, N},
    {0x1006, "bitfieldReverse", I64, N},
    {0x1007, "min/max uint", I64, I64},
    {0x1008, "min/max int", I64, I64},
    {0x1009, "clamp", I64, I64},
    {0x100A, "bitfieldExtract", I64, I64},
    {0x100B, "bitfieldInsert", I64, I64},
};

// Operands per operation on the device. Lavapipe evaluates the slowest operations (f64
// division and square root, 55-63 iterations of 64-bit steps) at a few million per second.
constexpr size_t kCasesPerOp = 1u << 18;

// The special values of an operand type, as uvec2 (i32/f32 in .x).
std::vector<uvec2> specials(Operand kind) {
  std::vector<uvec2> values;
  switch (kind) {
    case Operand::I32:
      for (uint64_t v : int_specials()) values.emplace_back(static_cast<uint>(v), 0u);
      break;
    case Operand::I64:
      for (uint64_t v : int_specials()) values.push_back(to_uvec2(v));
      break;
    case Operand::F32:
      for (uint v : f32_specials()) values.emplace_back(v, 0u);
      break;
    case Operand::F64:
      for (uint64_t v : f64_specials()) values.push_back(to_uvec2(v));
      break;
    case Operand::None:
      break;
  }
  return values;
}

uvec2 random_operand(RandomFloats& random, Operand kind) {
  switch (kind) {
    case Operand::I32:
      return uvec2(static_cast<uint>(random.integer()), 0u);
    case Operand::I64:
      return to_uvec2(random.integer());
    case Operand::F32:
      return uvec2(random.f32(), 0u);
    case Operand::F64:
      return to_uvec2(random.f64());
    case Operand::None:
      break;
  }
  return uvec2(0u, 0u);
}

// A second operand related to the first where that makes hard cases (nearby exponents).
uvec2 random_partner(RandomFloats& random, Operand kind, uvec2 first) {
  if (kind == Operand::F32) return uvec2(random.f32_partner(first.x), 0u);
  if (kind == Operand::F64) return to_uvec2(random.f64_partner(to_u64(first)));
  return random_operand(random, kind);
}

// Operands as uvec4 {a.x, a.y, b.x, b.y}: special values (all pairs, or a random sample of
// them when there are too many), then random ones up to kCasesPerOp.
std::vector<std::array<uint, 4>> make_operands(const Op& op, RandomFloats& random) {
  std::vector<std::array<uint, 4>> operands;
  operands.reserve(kCasesPerOp);
  const auto first = specials(op.a);
  if (op.b == Operand::None) {
    for (uvec2 a : first) operands.push_back({a.x, a.y, 0u, 0u});
  } else {
    const auto second = specials(op.b);
    const size_t pairs = first.size() * second.size();
    const size_t budget = kCasesPerOp / 2;
    if (pairs <= budget) {
      for (uvec2 a : first) {
        for (uvec2 b : second) operands.push_back({a.x, a.y, b.x, b.y});
      }
    } else {
      for (size_t i = 0; i < budget; ++i) {
        const uvec2 a = first[random.bits64() % first.size()];
        const uvec2 b = second[random.bits64() % second.size()];
        operands.push_back({a.x, a.y, b.x, b.y});
      }
    }
  }
  while (operands.size() < kCasesPerOp) {
    const uvec2 a = random_operand(random, op.a);
    const uvec2 b = op.b == Operand::None ? uvec2(0u, 0u) : random_partner(random, op.b, a);
    operands.push_back({a.x, a.y, b.x, b.y});
  }
  return operands;
}

// The readable library (compiled by the capability test) or its compact form (run on the
// device), so that both spellings are compiled.
std::string shader_source(bool compact) {
  std::string source = "#version 450\n";
  source += compact ? device::numerics_glsl_compact() : device::numerics_glsl();
  source += wavestack::numerics_test::glsl::numerics_eval;
  source += R"glsl(
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Operands { uvec4 operands[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { uvec4 results[]; };
layout(push_constant) uniform Push { uint op; uint count; } push;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= push.count) return;
  uvec4 v = operands[i];
  uint trap = 0u;
  uvec2 r = numerics_eval(push.op, v.xy, v.zw, trap);
  results[i] = uvec4(r, trap, 0u);
}
)glsl";
  return source;
}

TEST(NumericsGpu, EmbeddedSourcesAreTheLibraryFiles) {
  const std::string all = device::numerics_glsl();
  for (const char* name :
       {"prelude.glsl", "traps.glsl", "u64.glsl", "i64.glsl", "f32.glsl", "f64.glsl", "convert.glsl"}) {
    const std::string_view text = device::numerics_glsl_file(name);
    EXPECT_FALSE(text.empty()) << name;
    EXPECT_NE(all.find(text), std::string::npos) << name;
  }
  EXPECT_TRUE(device::numerics_glsl_file("missing.glsl").empty());
  // numerics_glsl_compact() strips `//` comments line by line, which is only valid without
  // block comments and string literals.
  EXPECT_EQ(all.find("/*"), std::string::npos);
  const std::string code = std::regex_replace(all, std::regex("//[^\n]*"), "");  // comments may say "float"
  EXPECT_EQ(code.find('"'), std::string::npos);
  const std::string compact = device::numerics_glsl_compact();
  EXPECT_EQ(compact.find("//"), std::string::npos);
  EXPECT_LT(compact.size(), all.size() * 3 / 4);
  EXPECT_NE(compact.find(
                "uvec2 f64_div(uvec2 a, uvec2 b) {\nif (f64_is_nan(a) || f64_is_nan(b)) return F64_CANONICAL_NAN;\n"),
            std::string::npos);
  // The library must not need 64-bit or floating-point types on the device.
  const std::regex forbidden(R"(\b(float|double|dvec[234]|u?int64_t|floatBitsToUint|uintBitsToFloat)\b)");
  std::smatch match;
  EXPECT_FALSE(std::regex_search(code, match, forbidden)) << match.str();
}

// Compiles with glslang alone (no device needed) and reads the SPIR-V's capabilities: the
// shader must run on devices without shaderInt64 and shaderFloat64.
TEST(NumericsGpu, ShaderNeedsNeitherInt64NorFloat64) {
  ShaderOptions options;
  options.target = VulkanTarget::Vulkan1_1;
  const ShaderBinary binary =
      compile_compute_shader(shader_source(false), options, DiskCache(std::nullopt), "numerics");
  constexpr uint kOpCapability = 17;
  constexpr uint kCapabilityFloat64 = 10;
  constexpr uint kCapabilityInt64 = 11;
  std::vector<uint> capabilities;
  for (size_t i = 5; i < binary.words.size();) {  // after the 5-word header
    const uint word_count = binary.words[i] >> 16;
    if ((binary.words[i] & 0xFFFFu) == kOpCapability) capabilities.push_back(binary.words[i + 1]);
    ASSERT_GT(word_count, 0u);
    i += word_count;
  }
  ASSERT_FALSE(capabilities.empty());  // at least Shader: the scan itself works
  for (uint capability : capabilities) {
    EXPECT_NE(capability, kCapabilityFloat64);
    EXPECT_NE(capability, kCapabilityInt64);
  }
}

TEST(NumericsGpu, EveryOperationMatchesTheCppBuildBitForBit) {
  WAVESTACK_REQUIRE_DEVICE(device_info);
  ComputeContext context(*device_info, DiskCache(std::nullopt));
  PipelineSpec spec;
  spec.buffer_count = 2;
  spec.push_constant_bytes = 8;
  spec.shader.target = VulkanTarget::Vulkan1_1;  // no shaderInt64 / shaderFloat64 needed
  const auto compile_start = std::chrono::steady_clock::now();
  const ComputePipeline pipeline = context.create_pipeline(shader_source(true), spec);
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - compile_start).count();

  DeviceBuffer operand_buffer = context.allocate(kCasesPerOp * 16);
  DeviceBuffer result_buffer = context.allocate(kCasesPerOp * 16);
  DeviceBuffer* buffers[] = {&operand_buffer, &result_buffer};
  RandomFloats random(test_seed());
  std::vector<std::array<uint, 4>> results(kCasesPerOp);
  size_t total = 0;
  for (const Op& op : kOps) {
    uint probe = 0u;  // the table and numerics_eval.glsl must agree on every opcode
    (void)device::numerics_eval(op.opcode, uvec2(1u, 0u), uvec2(1u, 0u), probe);
    ASSERT_NE(probe, 0xFFFFFFFFu) << op.name << " is unknown to numerics_eval.glsl";
    const auto operands = make_operands(op, random);
    const auto count = static_cast<uint>(operands.size());
    context.upload(operand_buffer, std::as_bytes(std::span(operands)));
    const std::array<uint, 2> push = {op.opcode, count};
    context.dispatch(pipeline, buffers, std::as_bytes(std::span(push)), {(count + 63) / 64, 1, 1});
    context.download(result_buffer, std::as_writable_bytes(std::span(results)));

    Mismatches mismatches(op.name);
    for (size_t i = 0; i < operands.size(); ++i) {
      const auto& v = operands[i];
      uint trap = 0u;
      const uvec2 r = device::numerics_eval(op.opcode, uvec2(v[0], v[1]), uvec2(v[2], v[3]), trap);
      const std::array<uint, 4> want = {r.x, r.y, trap, 0u};
      NUMERICS_CHECK(mismatches, results[i] == want,
                     "operands " + hex64(to_u64(uvec2(v[0], v[1]))) + ", " + hex64(to_u64(uvec2(v[2], v[3]))) +
                         ": device " + hex64(to_u64(uvec2(results[i][0], results[i][1]))) + " trap " +
                         std::to_string(results[i][2]) + ", C++ " + hex64(to_u64(r)) + " trap " + std::to_string(trap));
    }
    total += operands.size();
  }
  std::printf("[ numerics ] %zu operations x %zu operands on %s: compile %.1f s, dispatch %.1f s\n", std::size(kOps),
              kCasesPerOp, device_info->name.c_str(), compile_s, context.timings().dispatch_ms / 1000.0);
  EXPECT_EQ(total, std::size(kOps) * kCasesPerOp);
}

}  // namespace
