// The WAVE emulator on hand-built modules: divergence, loops, barriers, faults, and that
// deterministic and parallel runs agree.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/error.hpp"
#include "wave/builder.hpp"
#include "wave/emulator.hpp"
#include "wave/errors.hpp"
#include "wave/half.hpp"

namespace wavestack::wave {
namespace {

Argument buffer(std::vector<int32_t>& data) {
  Argument a;
  a.is_buffer = true;
  a.buffer = {data.data(), static_cast<int64_t>(data.size()), ScalarType::I32};
  return a;
}

Reg constant_i32(Builder& b, int32_t value) {
  const Reg r = b.new_reg(ScalarType::I32);
  Value v{};
  v.i32 = value;
  b.constant(r, v, 1);
  return r;
}

// out[tid] = number of loop iterations until the Collatz sequence of tid + 1 reaches 1,
// with per-lane divergence in an if/else inside a loop with break.
Module collatz_module() {
  Builder b("collatz");
  b.add_buffer("out", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 2);
  const Reg one = constant_i32(b, 1);
  const Reg two = constant_i32(b, 2);
  const Reg three = constant_i32(b, 3);
  const Reg x = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Add, x, std::vector<Reg>{tid, one}, 3);
  const Reg steps = constant_i32(b, 0);
  b.begin_loop(4);
  const Reg done = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Le, done, std::vector<Reg>{x, one}, 5);
  b.begin_if(done, 5);
  b.emit_break(5);
  b.end_if();
  const Reg parity = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Mod, parity, std::vector<Reg>{x, two}, 6);
  const Reg even = b.new_reg(ScalarType::Bool);
  const Reg zero = constant_i32(b, 0);
  b.emit(Opcode::Eq, even, std::vector<Reg>{parity, zero}, 6);
  b.begin_if(even, 6);
  b.emit(Opcode::FloorDiv, x, std::vector<Reg>{x, two}, 7);
  b.begin_else();
  b.emit(Opcode::Mul, x, std::vector<Reg>{x, three}, 9);
  b.emit(Opcode::Add, x, std::vector<Reg>{x, one}, 9);
  b.end_if();
  b.begin_continuing();
  b.emit(Opcode::Add, steps, std::vector<Reg>{steps, one}, 10);
  b.end_loop();
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, steps}, 11, "out");
  return b.finish();
}

int32_t collatz_steps(int64_t x) {
  int32_t steps = 0;
  while (x > 1) {
    x = x % 2 == 0 ? x / 2 : 3 * x + 1;
    ++steps;
  }
  return steps;
}

TEST(WaveEmulator, DivergentLoopsMatchAScalarReference) {
  const Program program(collatz_module());
  for (const uint32_t width : {32U, 8U, 64U}) {
    std::vector<int32_t> out(1000, -1);
    std::vector<Argument> args{buffer(out)};
    LaunchConfig config;
    config.grid = {10, 1, 1};
    config.workgroup = {100, 1, 1};
    config.wave_width = width;
    program.launch(args, config);
    for (int32_t i = 0; i < 1000; ++i) ASSERT_EQ(out[i], collatz_steps(i + 1)) << "thread " << i;
  }
}

TEST(WaveEmulator, DeterministicAndParallelRunsAgree) {
  const Program program(collatz_module());
  std::vector<int32_t> serial(4096), parallel(4096);
  LaunchConfig config;
  config.grid = {64, 1, 1};
  config.workgroup = {64, 1, 1};
  std::vector<Argument> a{buffer(parallel)};
  program.launch(a, config);
  config.deterministic = true;
  std::vector<Argument> b{buffer(serial)};
  program.launch(b, config);
  EXPECT_EQ(serial, parallel);
}

TEST(WaveEmulator, OutOfBoundsFaultNamesLineWorkgroupAndLane) {
  const Program program(collatz_module());
  std::vector<int32_t> out(70);
  std::vector<Argument> args{buffer(out)};
  LaunchConfig config;
  config.grid = {2, 1, 1};
  config.workgroup = {64, 1, 1};
  config.deterministic = true;
  try {
    program.launch(args, config);
    FAIL() << "expected KernelError";
  } catch (const KernelError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.line(), 11U);
    EXPECT_NE(message.find("index 70 is out of bounds of buffer 'out' (length 70)"), std::string::npos) << message;
    EXPECT_NE(message.find("workgroup (1, 0, 0), wave 0, lane 6"), std::string::npos) << message;
  }
}

TEST(WaveEmulator, LaunchArgumentsAreCheckedFirst) {
  const Program program(collatz_module());
  std::vector<int32_t> out(4, 7);
  std::vector<Argument> args{buffer(out)};
  LaunchConfig config;
  config.workgroup = {2000, 1, 1};
  EXPECT_THROW(program.launch(args, config), runtime::InvalidArgument);
  config.workgroup = {4, 1, 1};
  config.wave_width = 48;
  EXPECT_THROW(program.launch(args, config), runtime::InvalidArgument);
  config.wave_width = 32;
  args[0].buffer.element = ScalarType::F32;
  EXPECT_THROW(program.launch(args, config), runtime::InvalidArgument);
  EXPECT_EQ(out, std::vector<int32_t>(4, 7));
}

TEST(WaveEmulator, BarrierInDivergentControlFlowIsAFault) {
  Builder b("divergent");
  b.add_buffer("out", ScalarType::I32);
  const Reg lane = b.new_reg(ScalarType::I32);
  b.emit(Opcode::LaneId, lane, {}, 2);
  const Reg half = constant_i32(b, 3);
  const Reg low = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Lt, low, std::vector<Reg>{lane, half}, 3);
  b.begin_if(low, 3);
  b.emit_barrier(4);
  b.end_if();
  const Program program(b.finish());
  std::vector<int32_t> out(8);
  std::vector<Argument> args{buffer(out)};
  LaunchConfig config;
  config.workgroup = {8, 1, 1};
  try {
    program.launch(args, config);
    FAIL() << "expected KernelError";
  } catch (const KernelError& error) {
    EXPECT_EQ(error.line(), 4U);
    EXPECT_NE(std::string(error.what()).find("barrier in divergent control flow"), std::string::npos);
  }
}

// A register written only by even workgroups reads as zero in odd ones, whichever
// workgroup the same thread ran before.
TEST(WaveEmulator, RegistersReadBeforeWrittenStartAtZeroInEveryWorkgroup) {
  Builder b("partial");
  b.add_buffer("out", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 2);
  const Reg group = b.new_reg(ScalarType::I32);
  b.emit(Opcode::WorkgroupId, group, {}, 2);
  const Reg two = constant_i32(b, 2);
  const Reg zero = constant_i32(b, 0);
  const Reg parity = b.new_reg(ScalarType::I32);
  b.emit(Opcode::Mod, parity, std::vector<Reg>{group, two}, 3);
  const Reg even = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Eq, even, std::vector<Reg>{parity, zero}, 3);
  const Reg value = b.new_reg(ScalarType::I32);
  b.begin_if(even, 3);
  b.emit(Opcode::Add, value, std::vector<Reg>{tid, two}, 4);
  b.end_if();
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, value}, 5, "out");
  const Program program(b.finish());
  for (const bool deterministic : {true, false}) {
    std::vector<int32_t> out(64 * 32, -1);
    std::vector<Argument> args{buffer(out)};
    LaunchConfig config;
    config.grid = {64, 1, 1};
    config.workgroup = {32, 1, 1};
    config.deterministic = deterministic;
    program.launch(args, config);
    for (int32_t i = 0; i < 64 * 32; ++i) ASSERT_EQ(out[i], (i / 32) % 2 == 0 ? i + 2 : 0) << i;
  }
}

TEST(WaveEmulator, HalfConversionsRoundToNearestEven) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<uint32_t> bits;
  for (uint32_t h = 0; h < 0x10000; ++h) {  // every half survives a round trip (NaNs stay NaN)
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (f == f) {
      ASSERT_EQ(float_to_half(f), h) << h;
    }
  }
  EXPECT_EQ(float_to_half(65520.0F), 0x7C00);               // rounds to inf
  EXPECT_EQ(float_to_half(1.0F + 1.0F / 2048.0F), 0x3C00);  // tie to even
  EXPECT_EQ(float_to_half(5.9604645e-8F), 0x0001);          // smallest subnormal
  for (int i = 0; i < 100000; ++i) {                        // the nearest half: no half lies between
    const float f = std::bit_cast<float>(bits(rng) & 0x477FFFFFU);
    if (std::fabs(f) >= 65504.0F) continue;  // the largest half; beyond it rounding goes to inf
    const float back = half_to_float(float_to_half(f));
    const float up = half_to_float(static_cast<uint16_t>(float_to_half(f) + 1));
    ASSERT_LE(std::fabs(back - f), std::fabs(up - f)) << f;
  }
}

}  // namespace
}  // namespace wavestack::wave
