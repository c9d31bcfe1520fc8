// check_index, the per-dimension bounds check of multi-dimensional and per-thread arrays:
// its text form round-trips, the verifier wants one integer type, and the emulator's fault
// names the index, the dimension and its size.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wave/builder.hpp"
#include "wave/emulator.hpp"
#include "wave/errors.hpp"
#include "wave/ir_text.hpp"

namespace wavestack::wave {
namespace {

Reg constant_of(Builder& b, ScalarType type, int64_t value) {
  const Reg r = b.new_reg(type);
  Value v{};
  if (type == ScalarType::I64) {
    v.i64 = value;
  } else {
    v.i32 = static_cast<int32_t>(value);
  }
  b.constant(r, v, 1);
  return r;
}

// out[tid] = tid after checking tid against dimension 1 of size `size`.
Module checked_store(int32_t size) {
  Builder b("checked");
  b.add_buffer("out", ScalarType::I32);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 2);
  const Reg limit = constant_of(b, ScalarType::I32, size);
  const Reg dim = constant_of(b, ScalarType::I32, 1);
  const Reg checked = b.new_reg(ScalarType::I32);
  b.emit(Opcode::CheckIndex, checked, std::vector<Reg>{tid, limit, dim}, 3);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{checked, checked}, 4, "out");
  return b.finish();
}

TEST(WaveCheckIndex, TextFormRoundTrips) {
  const std::string text = print_module(checked_store(8));
  EXPECT_NE(text.find("= check_index %"), std::string::npos) << text;
  EXPECT_EQ(print_module(parse_module(text)), text);
}

TEST(WaveCheckIndex, VerifierWantsOneIntegerType) {
  Builder b("mixed");
  const Reg index = constant_of(b, ScalarType::I32, 0);
  const Reg size = constant_of(b, ScalarType::I64, 4);
  const Reg dim = constant_of(b, ScalarType::I32, 0);
  const Reg out = b.new_reg(ScalarType::I32);
  b.emit(Opcode::CheckIndex, out, std::vector<Reg>{index, size, dim}, 2);
  EXPECT_THROW((void)b.finish(), IrError);
}

TEST(WaveCheckIndex, InRangeIndicesPassAndTheFirstOutOfRangeLaneFaults) {
  std::vector<int32_t> out(16, -1);
  std::vector<Argument> args(1);
  args[0].is_buffer = true;
  args[0].buffer = {out.data(), static_cast<int64_t>(out.size()), ScalarType::I32};
  LaunchConfig config;
  config.grid = {1, 1, 1};
  config.workgroup = {8, 1, 1};
  config.deterministic = true;
  const Program fits(checked_store(8));
  fits.launch(args, config);
  for (int32_t i = 0; i < 8; ++i) EXPECT_EQ(out[i], i);

  const Program tight(checked_store(5));
  try {
    tight.launch(args, config);
    FAIL() << "expected KernelError";
  } catch (const KernelError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.line(), 3U);
    EXPECT_NE(message.find("index 5 out of range for dimension 1 of size 5"), std::string::npos) << message;
    EXPECT_NE(message.find("lane 5"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace wavestack::wave
