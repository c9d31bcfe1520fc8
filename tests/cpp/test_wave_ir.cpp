// WAVE IR: the builder, the verifier and the text form (print -> parse -> print is identical).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "wave/builder.hpp"
#include "wave/errors.hpp"
#include "wave/ir_text.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {
namespace {

// A kernel that touches every kind of statement: params, shared memory, loops, branches,
// atomics, wave operations and constants that need exact printing.
Module sample_module() {
  Builder b("sample");
  b.add_buffer("data", ScalarType::F32);
  const Reg scale = b.add_scalar("scale", ScalarType::F64);
  b.add_buffer("half", ScalarType::F16);
  b.add_buffer("counts", ScalarType::U32);
  b.add_shared("tile", ScalarType::I32, 64);
  const Reg tid = b.new_reg(ScalarType::I32);
  b.emit(Opcode::ThreadId, tid, {}, 3, {}, 1);
  const Reg x = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Load, x, std::vector<Reg>{tid}, 4, "data");
  const Reg tenth = b.new_reg(ScalarType::F32);
  Value v{};
  v.f32 = 0.1F;
  b.constant(tenth, v, 5);
  const Reg nan = b.new_reg(ScalarType::F64);
  v.f64 = std::numeric_limits<double>::infinity();
  b.constant(nan, v, 5);
  const Reg big = b.new_reg(ScalarType::U64);
  v.u64 = 18446744073709551615ULL;
  b.constant(big, v, 0);
  const Reg cond = b.new_reg(ScalarType::Bool);
  b.emit(Opcode::Lt, cond, std::vector<Reg>{x, tenth}, 6);
  b.begin_if(cond, 6);
  b.emit(Opcode::Store, kNoReg, std::vector<Reg>{tid, tenth}, 7, "half");
  b.begin_else();
  b.begin_loop(9);
  b.emit_break(10);
  b.begin_continuing();
  b.emit(Opcode::Add, x, std::vector<Reg>{x, tenth}, 11);
  b.end_loop();
  b.end_if();
  const Reg one = b.new_reg(ScalarType::U32);
  v.u32 = 1;
  b.constant(one, v, 12);
  const Reg old = b.new_reg(ScalarType::U32);
  b.emit(Opcode::AtomicAdd, old, std::vector<Reg>{tid, one}, 12, "counts");
  const Reg sum = b.new_reg(ScalarType::F32);
  b.emit(Opcode::WaveSum, sum, std::vector<Reg>{x}, 13);
  const Reg wide = b.new_reg(ScalarType::F64);
  b.emit(Opcode::Cvt, wide, std::vector<Reg>{sum}, 13);
  b.emit(Opcode::Fma, wide, std::vector<Reg>{wide, scale, nan}, 13);
  b.emit_barrier(14);
  b.emit_return(15);
  return b.finish();
}

TEST(WaveIr, PrintParsePrintIsIdentical) {
  const std::string text = print_module(sample_module());
  const Module parsed = parse_module(text);
  EXPECT_EQ(print_module(parsed), text);
  EXPECT_NE(text.find("%3:f32 = const 0.1  ; line 5"), std::string::npos) << text;
  EXPECT_NE(text.find("const inf"), std::string::npos) << text;
  EXPECT_NE(text.find("18446744073709551615"), std::string::npos) << text;
  EXPECT_NE(text.find("} continuing {"), std::string::npos) << text;
  EXPECT_NE(text.find("shared tile: i32[64]"), std::string::npos) << text;
  EXPECT_NE(text.find("%1:i32 = thread_id 1  ; line 3"), std::string::npos) << text;
  EXPECT_EQ(parsed.registers.size(), sample_module().registers.size());
  EXPECT_EQ(parsed.params.size(), 4U);
}

TEST(WaveIr, ConstantsRoundTripExactly) {
  for (float value : {0.1F, 1e-30F, -3.4028235e38F, 1.17549435e-38F, 1.4e-45F}) {
    Builder b("c");
    const Reg r = b.new_reg(ScalarType::F32);
    Value v{};
    v.f32 = value;
    b.constant(r, v, 1);
    const Module parsed = parse_module(print_module(b.finish()));
    EXPECT_EQ(parsed.body[0].imm.f32, value);
  }
}

TEST(WaveIr, VerifierRejectsTypeMismatches) {
  Builder b("bad");
  const Reg i = b.new_reg(ScalarType::I32);
  const Reg f = b.new_reg(ScalarType::F32);
  b.emit(Opcode::Add, f, std::vector<Reg>{i, f}, 7);
  try {
    (void)b.finish();
    FAIL() << "expected IrError";
  } catch (const IrError& error) {
    EXPECT_NE(std::string(error.what()).find("line 7, add: operands and result must have one type"), std::string::npos)
        << error.what();
  }
}

TEST(WaveIr, VerifierRejectsBreakOutsideLoopAndBadMemory) {
  Builder b("bad");
  b.emit_break(3);
  EXPECT_THROW((void)b.finish(), IrError);
  Builder c("bad");
  c.add_buffer("a", ScalarType::F32);
  const Reg i = c.new_reg(ScalarType::F32);
  const Reg v = c.new_reg(ScalarType::F32);
  c.emit(Opcode::Load, v, std::vector<Reg>{i}, 2, "a");  // float index
  EXPECT_THROW((void)c.finish(), IrError);
  Builder d("bad");
  EXPECT_THROW(d.emit(Opcode::Load, 0, std::vector<Reg>{0}, 1, "missing"), IrError);
  EXPECT_THROW((void)d.new_reg(ScalarType::F16), IrError);
}

TEST(WaveIr, ParserReportsTheLine) {
  const std::string text = "kernel k\nregisters i32\n{\n  %0:i32 = frobnicate %0\n}\n";
  try {
    (void)parse_module(text);
    FAIL() << "expected IrError";
  } catch (const IrError& error) {
    EXPECT_NE(std::string(error.what()).find("line 4: unknown instruction 'frobnicate'"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW((void)parse_module("kernel k\nregisters\n{\n"), IrError);
  EXPECT_THROW((void)parse_module("kernel k\nregisters f32\n{\n  %0:i32 = const 1\n}\n"), IrError);
}

}  // namespace
}  // namespace wavestack::wave
