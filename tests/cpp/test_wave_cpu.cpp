// The native cpu device (cpp_emitter.hpp, cpu_program.hpp) on modules parsed from their text
// form: results and faults equal to the emulator's, launch checks, workgroup mode's choice and
// scratch size. Skipped (visibly) only in a build without the in-process compiler.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit/jit_loader.hpp"
#include "runtime/error.hpp"
#include "wave/cpp_emitter.hpp"
#include "wave/cpu_program.hpp"
#include "wave/emulator.hpp"
#include "wave/errors.hpp"
#include "wave/ir_text.hpp"

namespace wavestack::wave {
namespace {

constexpr const char* kSaxpy = R"(kernel saxpy
registers i32 i32 bool f32 f32 f32 f32 f32
buffer x: f32
buffer y: f32
scalar a: f32 = %3
{
  %0:i32 = thread_id 0  ; line 2
  %1:i32 = length y  ; line 3
  %2:bool = lt %0, %1  ; line 3
  if %2 {  ; line 3
    %4:f32 = load x[%0]  ; line 4
    %5:f32 = mul %3, %4  ; line 4
    %6:f32 = load y[%0]  ; line 4
    %7:f32 = add %5, %6  ; line 4
    store y[%0], %7  ; line 4
  }
}
)";

constexpr const char* kReverse = R"(kernel reverse
registers i32 i32 f32 i32 i32 f32
buffer data: f32
shared tile: f32[64]
{
  %0:i32 = thread_id 0  ; line 2
  %1:i32 = local_id 0  ; line 3
  %2:f32 = load data[%0]  ; line 4
  store tile[%1], %2  ; line 4
  barrier  ; line 5
  %3:i32 = const 63  ; line 6
  %4:i32 = sub %3, %1  ; line 6
  %5:f32 = load tile[%4]  ; line 6
  store data[%0], %5  ; line 6
}
)";

bool have_compiler() {
  return jit::cxx_jit() != nullptr;
}

Argument floats(std::vector<float>& data) {
  Argument a;
  a.is_buffer = true;
  a.buffer = {data.data(), static_cast<int64_t>(data.size()), ScalarType::F32};
  return a;
}

Argument scalar_f32(float value) {
  Argument a;
  a.scalar.f32 = value;
  return a;
}

LaunchConfig launch_1d(uint32_t groups, uint32_t size, bool deterministic) {
  LaunchConfig config;
  config.grid = {groups, 1, 1};
  config.workgroup = {size, 1, 1};
  config.deterministic = deterministic;
  return config;
}

TEST(WaveCpu, ResultsEqualTheEmulatorsOnOneThreadAndOnThePool) {
  if (!have_compiler()) GTEST_SKIP() << "this build has no in-process compiler";
  const Module module = parse_module(kSaxpy);
  const CpuProgram cpu(module, true);
  const Program emulator(module);
  for (const bool deterministic : {true, false}) {
    std::vector<float> x(1000), y(1000), y_expected(1000);
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = static_cast<float>(i) * 0.37F - 11.0F;
      y[i] = y_expected[i] = 1.0F / static_cast<float>(i + 1);
    }
    const std::vector<Argument> emulated{floats(x), floats(y_expected), scalar_f32(2.5F)};
    const std::vector<Argument> native{floats(x), floats(y), scalar_f32(2.5F)};
    emulator.launch(emulated, launch_1d(4, 256, true));
    cpu.launch(native, launch_1d(4, 256, deterministic));
    EXPECT_EQ(y, y_expected);
  }
}

TEST(WaveCpu, FaultsCarryTheEmulatorsMessage) {
  if (!have_compiler()) GTEST_SKIP() << "this build has no in-process compiler";
  const Module module = parse_module(kSaxpy);
  std::vector<float> x(100), y(300);
  const std::vector<Argument> arguments{floats(x), floats(y), scalar_f32(1.0F)};
  std::string emulated;
  std::string native;
  try {
    Program(module).launch(arguments, launch_1d(2, 256, true));
  } catch (const KernelError& error) {
    emulated = error.what();
  }
  try {
    CpuProgram(module, true).launch(arguments, launch_1d(2, 256, true));
  } catch (const KernelError& error) {
    native = error.what();
  }
  EXPECT_NE(native.find("index 100 is out of bounds of buffer 'x' (length 100)"), std::string::npos) << native;
  EXPECT_EQ(native, emulated);
}

TEST(WaveCpu, LaunchesAreCheckedBeforeAnythingRuns) {
  if (!have_compiler()) GTEST_SKIP() << "this build has no in-process compiler";
  const CpuProgram cpu(parse_module(kSaxpy), true);
  std::vector<float> x(4), y(4);
  const std::vector<Argument> too_few{floats(x), floats(y)};
  EXPECT_THROW(cpu.launch(too_few, launch_1d(1, 4, true)), runtime::InvalidArgument);
  const std::vector<Argument> arguments{floats(x), floats(y), scalar_f32(1.0F)};
  EXPECT_THROW(cpu.launch(arguments, launch_1d(1, 2048, true)), runtime::InvalidArgument);
}

TEST(WaveCpu, SharedArraysAndBarriersRunInWorkgroupMode) {
  const Module module = parse_module(kReverse);
  EXPECT_TRUE(uses_workgroup_mode(module));
  EXPECT_FALSE(uses_workgroup_mode(parse_module(kSaxpy)));
  // 6 registers of 8 bytes, a 2-byte state and 3 local coordinates per lane, then 256 bytes
  // of shared floats.
  EXPECT_EQ(workgroup_scratch_bytes(module, 64), 6U * 8 * 64 + 128 + 768 + 256);
  EXPECT_EQ(workgroup_scratch_bytes(parse_module(kSaxpy), 64), 0U);
  EXPECT_NE(emit_cpp(module, CppTarget{}).find("wave_barrier_check"), std::string::npos);
  if (!have_compiler()) GTEST_SKIP() << "this build has no in-process compiler";
  std::vector<float> data(128);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i);
  const std::vector<Argument> arguments{floats(data)};
  CpuProgram(module, true).launch(arguments, launch_1d(2, 64, false));
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(data[i], static_cast<float>(i / 64 * 64 + 63 - i % 64)) << i;
}

TEST(WaveCpu, BoundsChecksOffLeaveNoLoadOrStoreCheck) {
  const Module module = parse_module(kSaxpy);
  EXPECT_NE(emit_cpp(module, CppTarget{true}).find("WAVE_OUT_OF_BOUNDS"), std::string::npos);
  EXPECT_EQ(emit_cpp(module, CppTarget{false}).find("WAVE_OUT_OF_BOUNDS"), std::string::npos);
}

}  // namespace
}  // namespace wavestack::wave
