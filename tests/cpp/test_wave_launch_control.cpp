// The emulator's launch control: the thread limit (padding threads are not launched, and
// barriers do not wait for them), the stop flag (Ctrl-C and timeouts), and the 32-bit limits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/shader_compiler.hpp"
#include "wave/builder.hpp"
#include "wave/emulator.hpp"
#include "wave/errors.hpp"
#include "wave/glsl_emitter.hpp"

namespace wavestack::wave {
namespace {

Argument i32_buffer(std::vector<int32_t>& data) {
  Argument a;
  a.is_buffer = true;
  a.buffer = {data.data(), static_cast<int64_t>(data.size()), ScalarType::I32};
  return a;
}

Reg i32_constant(Builder& b, int32_t value) {
  const Reg r = b.new_reg(ScalarType::I32);
  Value v{};
  v.i32 = value;
  b.constant(r, v, 1);
  return r;
}

// out[tid] += 1 after a barrier (so every wave of a workgroup must meet there).
Module mark_after_barrier() {
  Builder b("mark");
  b.add_buffer("out", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 2);
  b.emit_barrier(3);
  const Reg old = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Load, old, std::vector<Reg>{tid}, 4, "out");
  const Reg one = i32_constant(b, 1);
  b.emit(Opcode::Add, old, std::vector<Reg>{old, one}, 4);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, old}, 4, "out");
  return b.finish();
}

// A loop that never ends.
Module spin() {
  Builder b("spin");
  b.add_buffer("out", ScalarType::I32);
  const Reg k = i32_constant(b, 0);
  const Reg one = i32_constant(b, 1);
  b.begin_loop(2);
  b.emit(Opcode::Add, k, std::vector<Reg>{k, one}, 3);
  b.end_loop();
  return b.finish();
}

TEST(WaveLaunchControl, ThreadsPastTheLimitAreNotLaunchedAndBarriersDoNotWaitForThem) {
  const Program program(mark_after_barrier());
  for (const bool deterministic : {true, false}) {
    std::vector<int32_t> out(100, 0);  // exactly 100 threads of a 2 x 64 grid
    std::vector<Argument> args{i32_buffer(out)};
    LaunchConfig config;
    config.grid = {2, 1, 1};
    config.workgroup = {64, 1, 1};
    config.limit = {100, UINT32_MAX, UINT32_MAX};
    config.deterministic = deterministic;
    program.launch(args, config);  // 36 padding threads: one wave of 32 absent, one partial
    EXPECT_EQ(out, std::vector<int32_t>(100, 1));
  }
}

TEST(WaveLaunchControl, ALimitInTheSecondDimensionLeavesThoseRowsOut) {
  const Program program(mark_after_barrier());
  std::vector<int32_t> out(16, 0);
  std::vector<Argument> args{i32_buffer(out)};
  LaunchConfig config;
  config.grid = {1, 4, 1};
  config.workgroup = {16, 1, 1};
  config.limit = {UINT32_MAX, 1, UINT32_MAX};  // only row y = 0 runs: each x once
  program.launch(args, config);
  EXPECT_EQ(out, std::vector<int32_t>(16, 1));
}

TEST(WaveLaunchControl, TheStopFlagEndsALaunchThatNeverEnds) {
  const Program program(spin());
  std::vector<int32_t> out(64, 0);
  std::vector<Argument> args{i32_buffer(out)};
  std::atomic<int> stop{0};
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.workgroup = {64, 1, 1};
  config.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    stop.store(1);
  });
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(program.launch(args, config), LaunchStopped);
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(WaveLaunchControl, ThreadIdsMustFitIn32BitInts) {
  const Program program(mark_after_barrier());
  std::vector<int32_t> out(4, 0);
  std::vector<Argument> args{i32_buffer(out)};
  LaunchConfig config;
  config.grid = {(1U << 23) + 1, 1, 1};
  config.workgroup = {256, 1, 1};
  EXPECT_THROW(program.launch(args, config), runtime::InvalidArgument);
  EXPECT_EQ(out, std::vector<int32_t>(4, 0));
}

// out[tid] = the number of iterations of a loop with a continue and a nested loop.
Module loops() {
  Builder b("loops");
  b.add_buffer("out", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 2);
  const Reg k = i32_constant(b, 0);
  const Reg one = i32_constant(b, 1);
  const Reg ten = i32_constant(b, 10);
  b.begin_loop(3);
  const Reg done = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Ge, done, std::vector<Reg>{k, ten}, 4);
  b.begin_if(done, 4);
  b.emit_break(4);
  b.end_if();
  b.begin_loop(5);
  b.emit_break(5);
  b.end_loop();
  b.begin_continuing();
  b.emit(Opcode::Add, k, std::vector<Reg>{k, one}, 6);
  b.end_loop();
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, k}, 7, "out");
  return b.finish();
}

TEST(WaveLaunchControl, ShadersWithTheLaunchWordsAndLoopCountsCompile) {
  for (const uint32_t device_loop_limit : {0U, 65535U}) {
    GlslTarget target;
    target.device_loop_limit = device_loop_limit;
    const GlslShader shader = emit_glsl(loops(), target);
    runtime::ShaderOptions options;
    options.optimize = false;
    EXPECT_NO_THROW(
        (void)runtime::compile_compute_shader(shader.source, options, runtime::DiskCache(std::nullopt), "test"))
        << shader.source;
    EXPECT_NE(shader.source.find("greaterThanEqual(gl_GlobalInvocationID, uvec3(pc.wave_limit_x"), std::string::npos);
    EXPECT_NE(shader.source.find("wave_iters >= pc.wave_loop_budget"), std::string::npos);
    EXPECT_EQ(shader.source.find("wave_group_iters") != std::string::npos, device_loop_limit != 0);
  }
}

}  // namespace
}  // namespace wavestack::wave
