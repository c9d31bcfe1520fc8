// The baseline compiler's x86-64 encoder (src/wasm/baseline/x86_assembler.*), checked by
// running what it assembles against C++'s own arithmetic on the same inputs: every ALU
// operation, shift, comparison and move the block compiler emits, at both widths, through the
// registers it uses (r12 and r13 as bases need their own ModRM forms). The compiler as a whole
// is checked end to end by the spec suites, the WASI programs and the differential fuzzers,
// which run compiled mode at its default plan (baseline first).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "jit/code_arena.hpp"
#include "wasm/baseline/baseline_helpers.hpp"
#include "wasm/baseline/block_compiler.hpp"
#include "wasm/baseline/x86_assembler.hpp"
#include "wasm/device/numerics.hpp"

namespace {

using wavestack::wasm::baseline::Alu;
using wavestack::wasm::baseline::Assembler;
using wavestack::wasm::baseline::BlockEnv;
using wavestack::wasm::baseline::Cond;
using wavestack::wasm::baseline::Label;
using wavestack::wasm::baseline::numeric_helper;
using wavestack::wasm::baseline::Reg;
using wavestack::wasm::baseline::Shift;
using wavestack::wasm::baseline::Width;

using Binary = std::uint64_t (*)(std::uint64_t a, std::uint64_t b);

wavestack::jit::CodeArena& arena() {
  static const std::unique_ptr<wavestack::jit::CodeArena> created = [] {
    std::string why_not;
    auto made = wavestack::jit::CodeArena::create(std::size_t{64} << 20, &why_not);
    if (!made) throw std::runtime_error(why_not);
    return made;
  }();
  return *created;
}

template <typename Function>
Function place(Assembler& as) {
  EXPECT_TRUE(as.finish());
  const auto span = arena().allocate(as.size(), 16);
  if (!span) throw std::runtime_error("arena full");
  std::memcpy(span->writable, as.code().data(), as.size());
  Function function = nullptr;
  std::memcpy(&function, &span->executable, sizeof(function));
  return function;
}

// a (rdi) and b (rsi) through `left` and `right`, `body` over them, the result from `left`.
template <typename Body>
Binary binary_function(Reg left, Reg right, Body body) {
  Assembler as;
  // The callee-saved registers this may use are saved around it.
  for (const Reg saved : {Reg::kRbx, Reg::kR12, Reg::kR13, Reg::kR14, Reg::kR15}) as.push(saved);
  as.mov_rr(Width::k64, left, Reg::kRdi);
  as.mov_rr(Width::k64, right, Reg::kRsi);
  body(as);
  as.mov_rr(Width::k64, Reg::kRax, left);
  for (const Reg saved : {Reg::kR15, Reg::kR14, Reg::kR13, Reg::kR12, Reg::kRbx}) as.pop(saved);
  as.ret();
  return place<Binary>(as);
}

std::vector<std::uint64_t> samples() {
  std::vector<std::uint64_t> values = {0,
                                       1,
                                       2,
                                       31,
                                       32,
                                       63,
                                       64,
                                       0x7FFFFFFF,
                                       0x80000000U,
                                       0xFFFFFFFFU,
                                       0x100000000U,
                                       0x7FFFFFFFFFFFFFFFU,
                                       0x8000000000000000U,
                                       ~std::uint64_t{0}};
  std::mt19937_64 random(7);
  for (int k = 0; k < 40; ++k) values.push_back(random());
  return values;
}

std::uint64_t narrow(Width width, std::uint64_t value) {
  return width == Width::k32 ? value & 0xFFFFFFFFU : value;
}

std::uint64_t reference_alu(Alu op, Width width, std::uint64_t a, std::uint64_t b) {
  switch (op) {
    case Alu::kAdd:
      return narrow(width, a + b);
    case Alu::kSub:
      return narrow(width, a - b);
    case Alu::kAnd:
      return narrow(width, a & b);
    case Alu::kOr:
      return narrow(width, a | b);
    case Alu::kXor:
      return narrow(width, a ^ b);
    case Alu::kCmp:
      break;
  }
  return narrow(width, a);
}

TEST(BaselineAssembler, AluOperationsAtBothWidthsThroughLowAndHighRegisters) {
  const std::vector<std::uint64_t> values = samples();
  for (const Width width : {Width::k32, Width::k64}) {
    for (const Alu op : {Alu::kAdd, Alu::kSub, Alu::kAnd, Alu::kOr, Alu::kXor}) {
      for (const auto& registers : {std::pair{Reg::kRax, Reg::kRcx}, std::pair{Reg::kR12, Reg::kR13},
                                    std::pair{Reg::kR15, Reg::kRdx}, std::pair{Reg::kRbx, Reg::kR14}}) {
        // (Copies: a lambda cannot capture a structured binding before C++20's clang 16.)
        const Reg left = registers.first;
        const Reg right = registers.second;
        const Binary f = binary_function(left, right, [&](Assembler& as) { as.alu(width, op, left, right); });
        for (const std::uint64_t a : values) {
          for (const std::uint64_t b : {values[3], values[9], values[20], a}) {
            ASSERT_EQ(f(a, b), reference_alu(op, width, a, b))
                << "op " << static_cast<int>(op) << " width " << static_cast<int>(width) << " regs "
                << static_cast<int>(left) << "," << static_cast<int>(right) << " a " << a << " b " << b;
          }
        }
      }
    }
  }
}

TEST(BaselineAssembler, ImmediateAluMultiplyAndShiftsByCl) {
  const std::vector<std::uint64_t> values = samples();
  for (const Width width : {Width::k32, Width::k64}) {
    const Binary mul =
        binary_function(Reg::kRax, Reg::kRcx, [&](Assembler& as) { as.imul(width, Reg::kRax, Reg::kRcx); });
    const Binary add_minus_five =
        binary_function(Reg::kR9, Reg::kRcx, [&](Assembler& as) { as.alu_imm(width, Alu::kAdd, Reg::kR9, -5); });
    const unsigned bits = width == Width::k32 ? 32U : 64U;
    for (const std::uint64_t a : values) {
      for (const std::uint64_t b : values) {
        ASSERT_EQ(mul(a, b), narrow(width, a * b));
        const std::uint64_t count = b & (bits - 1);
        const std::uint64_t x = narrow(width, a);
        const auto rotl = [&](std::uint64_t v, std::uint64_t n) {
          return width == Width::k32 ? std::uint64_t{std::rotl(static_cast<std::uint32_t>(v), static_cast<int>(n))}
                                     : std::rotl(v, static_cast<int>(n));
        };
        const auto rotr = [&](std::uint64_t v, std::uint64_t n) {
          return width == Width::k32 ? std::uint64_t{std::rotr(static_cast<std::uint32_t>(v), static_cast<int>(n))}
                                     : std::rotr(v, static_cast<int>(n));
        };
        const std::uint64_t sar = width == Width::k32
                                      ? static_cast<std::uint32_t>(static_cast<std::int32_t>(x) >> count)
                                      : static_cast<std::uint64_t>(static_cast<std::int64_t>(x) >> count);
        const std::array<std::pair<Shift, std::uint64_t>, 5> expected = {{{Shift::kShl, narrow(width, x << count)},
                                                                          {Shift::kShr, x >> count},
                                                                          {Shift::kSar, sar},
                                                                          {Shift::kRol, rotl(x, count)},
                                                                          {Shift::kRor, rotr(x, count)}}};
        for (const auto& expectation : expected) {
          const Shift shift = expectation.first;
          const std::uint64_t value = expectation.second;
          const Binary f =
              binary_function(Reg::kRax, Reg::kRcx, [&](Assembler& as) { as.shift_cl(width, shift, Reg::kRax); });
          ASSERT_EQ(f(a, b), value) << "shift " << static_cast<int>(shift) << " a " << a << " b " << b;
        }
      }
      ASSERT_EQ(add_minus_five(a, 0), narrow(width, a - 5));
    }
  }
}

TEST(BaselineAssembler, ComparisonsSetOneOrZeroAndConditionalMoves) {
  const std::vector<std::uint64_t> values = samples();
  const std::vector<std::pair<Cond, bool (*)(std::int64_t, std::int64_t, std::uint64_t, std::uint64_t)>> conditions = {
      {Cond::kEqual, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a == b; }},
      {Cond::kNotEqual, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a != b; }},
      {Cond::kBelow, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a < b; }},
      {Cond::kBelowOrEqual, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a <= b; }},
      {Cond::kAbove, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a > b; }},
      {Cond::kAboveOrEqual, [](std::int64_t, std::int64_t, std::uint64_t a, std::uint64_t b) { return a >= b; }},
      {Cond::kLess, [](std::int64_t a, std::int64_t b, std::uint64_t, std::uint64_t) { return a < b; }},
      {Cond::kLessOrEqual, [](std::int64_t a, std::int64_t b, std::uint64_t, std::uint64_t) { return a <= b; }},
      {Cond::kGreater, [](std::int64_t a, std::int64_t b, std::uint64_t, std::uint64_t) { return a > b; }},
      {Cond::kGreaterOrEqual, [](std::int64_t a, std::int64_t b, std::uint64_t, std::uint64_t) { return a >= b; }},
  };
  for (const Width width : {Width::k32, Width::k64}) {
    for (const auto& condition : conditions) {
      const Cond cond = condition.first;
      const auto holds = condition.second;
      const Binary set = binary_function(Reg::kRax, Reg::kRcx, [&](Assembler& as) {
        as.alu(width, Alu::kCmp, Reg::kRax, Reg::kRcx);
        as.setcc(cond, Reg::kRax);
      });
      const Binary move = binary_function(Reg::kRdx, Reg::kR8, [&](Assembler& as) {
        as.mov_imm64(Reg::kR10, 0x1234567890ABCDEFU);
        as.alu(width, Alu::kCmp, Reg::kRdx, Reg::kR8);
        as.mov_imm32(Reg::kRdx, 7);
        as.cmov(Width::k64, cond, Reg::kRdx, Reg::kR10);
      });
      for (const std::uint64_t a : values) {
        for (const std::uint64_t b : {values[1], values[8], values[25], a}) {
          const std::uint64_t x = narrow(width, a);
          const std::uint64_t y = narrow(width, b);
          const std::int64_t sx = width == Width::k32 ? static_cast<std::int32_t>(x) : static_cast<std::int64_t>(x);
          const std::int64_t sy = width == Width::k32 ? static_cast<std::int32_t>(y) : static_cast<std::int64_t>(y);
          const bool expected = holds(sx, sy, x, y);
          ASSERT_EQ(set(a, b), expected ? 1U : 0U) << "cond " << static_cast<int>(cond) << " a " << a << " b " << b;
          ASSERT_EQ(move(a, b), expected ? 0x1234567890ABCDEFU : 7U);
        }
      }
    }
  }
}

// Loads and stores through [base + disp] for every base register the compiler uses, the
// narrow ones with their extensions.
// Displacements that fit a byte take the short form and the others four bytes: both reach the
// same bytes, at the edges of the short form and far beyond it, through every base register.
TEST(BaselineAssembler, DisplacementsInBothFormsReachTheSameBytes) {
  alignas(8) std::array<std::uint8_t, 64> buffer{};
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = static_cast<std::uint8_t>(0x11U + k * 29U);
  std::uint64_t expected = 0;
  std::memcpy(&expected, buffer.data() + 8, 8);
  const auto address = reinterpret_cast<std::uint64_t>(buffer.data()) + 8;
  for (const Reg base : {Reg::kRbx, Reg::kR12, Reg::kR13, Reg::kR14, Reg::kR15, Reg::kRax}) {
    const Reg value = base == Reg::kRax ? Reg::kRcx : Reg::kRax;
    for (const std::int32_t disp : {0, 127, 128, -128, -129, 100000, -100000}) {
      const Binary load = binary_function(base, Reg::kRdx, [&](Assembler& as) {
        as.mov_load(Width::k64, value, base, disp);
        as.mov_rr(Width::k64, base, value);
      });
      EXPECT_EQ(load(address - static_cast<std::uint64_t>(static_cast<std::int64_t>(disp)), 0), expected)
          << "displacement " << disp;
    }
  }
}

TEST(BaselineAssembler, MemoryOperandsThroughEveryBaseAndWidth) {
  alignas(8) std::array<std::uint8_t, 64> buffer{};
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = static_cast<std::uint8_t>(0xF0U + k * 37U);
  const auto read_at = [&](std::size_t at, std::size_t n) {
    std::uint64_t value = 0;
    std::memcpy(&value, buffer.data() + at, n);
    return value;
  };
  for (const Reg base : {Reg::kRbx, Reg::kR12, Reg::kR13, Reg::kR14, Reg::kR15, Reg::kRax}) {
    const Reg value = base == Reg::kRax ? Reg::kRcx : Reg::kRax;
    const auto load = [&](auto emit) {
      return binary_function(base, Reg::kRdx, [&](Assembler& as) {
        emit(as);
        as.mov_rr(Width::k64, base, value);
      });
    };
    const auto address = reinterpret_cast<std::uint64_t>(buffer.data());
    EXPECT_EQ(load([&](Assembler& as) { as.mov_load(Width::k64, value, base, 8); })(address, 0), read_at(8, 8));
    EXPECT_EQ(load([&](Assembler& as) { as.mov_load(Width::k32, value, base, 12); })(address, 0), read_at(12, 4));
    EXPECT_EQ(load([&](Assembler& as) { as.load_zero8(value, base, 3); })(address, 0), read_at(3, 1));
    EXPECT_EQ(load([&](Assembler& as) { as.load_zero16(value, base, 5); })(address, 0), read_at(5, 2));
    EXPECT_EQ(load([&](Assembler& as) { as.load_sign8(Width::k32, value, base, 3); })(address, 0),
              static_cast<std::uint32_t>(static_cast<std::int8_t>(read_at(3, 1))));
    EXPECT_EQ(load([&](Assembler& as) { as.load_sign8(Width::k64, value, base, 3); })(address, 0),
              static_cast<std::uint64_t>(static_cast<std::int8_t>(read_at(3, 1))));
    EXPECT_EQ(load([&](Assembler& as) { as.load_sign16(Width::k32, value, base, 5); })(address, 0),
              static_cast<std::uint32_t>(static_cast<std::int16_t>(read_at(5, 2))));
    EXPECT_EQ(load([&](Assembler& as) { as.load_sign16(Width::k64, value, base, 5); })(address, 0),
              static_cast<std::uint64_t>(static_cast<std::int16_t>(read_at(5, 2))));
    EXPECT_EQ(load([&](Assembler& as) { as.load_sign32(value, base, 12); })(address, 0),
              static_cast<std::uint64_t>(static_cast<std::int32_t>(read_at(12, 4))));
    EXPECT_EQ(load([&](Assembler& as) { as.lea(value, base, -3); })(address, 0), address - 3);

    const std::uint64_t pattern = 0x8877665544332211U;
    const Binary store = binary_function(base, Reg::kRcx, [&](Assembler& as) {
      const Reg source = base == Reg::kRcx ? Reg::kRdx : Reg::kRcx;
      as.mov_rr(Width::k64, source, Reg::kRsi);
      as.mov_store(Width::k64, base, 16, source);
      as.mov_store(Width::k32, base, 24, source);
      as.store16(base, 28, source);
      as.store8(base, 30, source);
      as.store_imm32(Width::k64, base, 32, -2);
      as.store_imm32(Width::k32, base, 40, 0x7ABCDEF0);
    });
    buffer.fill(0);
    (void)store(address, pattern);
    EXPECT_EQ(read_at(16, 8), pattern);
    EXPECT_EQ(read_at(24, 4), pattern & 0xFFFFFFFFU);
    EXPECT_EQ(read_at(28, 2), pattern & 0xFFFFU);
    EXPECT_EQ(read_at(30, 1), pattern & 0xFFU);
    EXPECT_EQ(read_at(31, 1), 0U);  // nothing past each store's width
    EXPECT_EQ(read_at(32, 8), ~std::uint64_t{1});
    EXPECT_EQ(read_at(40, 8), 0x7ABCDEF0U);
  }
}

TEST(BaselineAssembler, JumpsToLabelsBoundBeforeAndAfterAndCallsThroughARegister) {
  // rax = sum of 1..a by a backward loop; a forward jcc skips doubling when b is zero; then a
  // call through r11 adds b.
  static constexpr std::uint64_t (*kAdd)(std::uint64_t, std::uint64_t) = [](std::uint64_t x, std::uint64_t y) {
    return x + y;
  };
  Assembler as;
  as.push(Reg::kRbx);
  as.mov_rr(Width::k64, Reg::kRbx, Reg::kRsi);
  as.mov_imm32(Reg::kRax, 0);
  const Label top = as.new_label();
  const Label done = as.new_label();
  const Label skip = as.new_label();
  as.bind(top);
  as.test(Width::k64, Reg::kRdi, Reg::kRdi);
  as.jcc(Cond::kEqual, done);
  as.alu(Width::k64, Alu::kAdd, Reg::kRax, Reg::kRdi);
  as.alu_imm(Width::k64, Alu::kSub, Reg::kRdi, 1);
  as.jmp(top);
  as.bind(done);
  as.test(Width::k64, Reg::kRbx, Reg::kRbx);
  as.jcc(Cond::kEqual, skip);
  as.alu(Width::k64, Alu::kAdd, Reg::kRax, Reg::kRax);
  as.bind(skip);
  as.mov_rr(Width::k64, Reg::kRdi, Reg::kRax);
  as.mov_rr(Width::k64, Reg::kRsi, Reg::kRbx);
  std::uint64_t add_address = 0;
  std::memcpy(&add_address, &kAdd, sizeof(add_address));
  as.mov_imm64(Reg::kR11, add_address);
  as.call(Reg::kR11);
  as.pop(Reg::kRbx);
  as.ret();
  const Binary f = place<Binary>(as);
  EXPECT_EQ(f(10, 0), 55U);
  EXPECT_EQ(f(10, 3), 113U);
  EXPECT_EQ(f(0, 5), 5U);
}

TEST(BaselineAssembler, AJumpToAnUnboundLabelLeavesTheCodeUnfinished) {
  Assembler as;
  const Label never = as.new_label();
  as.jmp(never);
  EXPECT_FALSE(as.finish());
  as.bind(never);
  EXPECT_TRUE(as.finish());
  EXPECT_THROW(as.bind(never), std::logic_error);
}

constexpr std::uint32_t kTrapNone = 0;          // traps.glsl's WASM_TRAP_NONE
constexpr std::uint32_t kTrapDivideByZero = 1;  // ... WASM_TRAP_INTEGER_DIVIDE_BY_ZERO

std::uint64_t f64_bits(double value) {
  return std::bit_cast<std::uint64_t>(value);
}

// A numeric instruction's own helper: its result and trap code.
std::pair<std::uint64_t, std::uint32_t> run_numeric(std::uint32_t opcode, std::uint64_t a, std::uint64_t b) {
  BlockEnv env;
  env.trap = 0xDEAD;  // every helper writes it
  const std::uint64_t result = numeric_helper(opcode)(&env, a, b);
  return {result, env.trap};
}

TEST(BaselineNumericHelpers, EachInstructionsHelperComputesThatInstruction) {
  // Against the host's arithmetic (operands without NaNs, so the bits are the IEEE results).
  const double x = 1.0 / 3.0;
  const double y = -2.75e10;
  EXPECT_EQ(run_numeric(0xA0, f64_bits(x), f64_bits(y)).first, f64_bits(x + y));                          // f64.add
  EXPECT_EQ(run_numeric(0xA3, f64_bits(x), f64_bits(y)).first, f64_bits(x / y));                          // f64.div
  EXPECT_EQ(run_numeric(0x9F, f64_bits(2.0), 0).first, f64_bits(std::sqrt(2.0)));                         // f64.sqrt
  EXPECT_EQ(run_numeric(0x6D, static_cast<std::uint32_t>(-7), 2).first, static_cast<std::uint32_t>(-3));  // i32.div_s
  EXPECT_EQ(run_numeric(0x82, 1000000000007ULL, 97).first, 1000000000007ULL % 97);                        // i64.rem_u
  EXPECT_EQ(run_numeric(0xAA, f64_bits(-12.9), 0).first, static_cast<std::uint32_t>(-12));  // i32.trunc_f64_s
  EXPECT_EQ(run_numeric(0x6D, 1, 0).second, kTrapDivideByZero);
  EXPECT_NE(run_numeric(0xAA, f64_bits(3e10), 0).second, kTrapNone);    // overflow
  EXPECT_EQ(run_numeric(0x103, f64_bits(3e10), 0).first, 0xFFFFFFFFU);  // i32.trunc_sat_f64_u saturates
  EXPECT_EQ(run_numeric(0x6A, 1, 2).second, kTrapNone);
}

TEST(BaselineNumericHelpers, EveryOpcodesHelperIsTheLibrarysCaseOfIt) {
  // The table maps each opcode to its own instantiation: checked on every numeric opcode against
  // the device library's wasm_numeric with the opcode passed at run time.
  namespace device = wavestack::wasm::device;
  std::vector<std::uint32_t> opcodes;
  for (std::uint32_t opcode = 0x45; opcode <= 0xC4; ++opcode) opcodes.push_back(opcode);
  for (std::uint32_t opcode = 0x100; opcode <= 0x107; ++opcode) opcodes.push_back(opcode);
  const std::vector<std::uint64_t> values = samples();
  for (const std::uint32_t opcode : opcodes) {
    ASSERT_NE(numeric_helper(opcode), nullptr) << opcode;
    for (std::size_t k = 0; k + 1 < values.size(); k += 3) {
      device::uint generic_trap = device::WASM_TRAP_NONE;
      const device::uvec2 generic = device::wasm_numeric(
          opcode, device::uvec2(static_cast<device::uint>(values[k]), static_cast<device::uint>(values[k] >> 32U)),
          device::uvec2(static_cast<device::uint>(values[k + 1]), static_cast<device::uint>(values[k + 1] >> 32U)),
          generic_trap);
      const auto [own, trap] = run_numeric(opcode, values[k], values[k + 1]);
      EXPECT_EQ(own, std::uint64_t{generic.x} | (std::uint64_t{generic.y} << 32U)) << "opcode " << opcode;
      EXPECT_EQ(trap, generic_trap) << "opcode " << opcode;
    }
  }
  EXPECT_EQ(numeric_helper(0x44), nullptr);
  EXPECT_EQ(numeric_helper(0xC5), nullptr);
  EXPECT_EQ(numeric_helper(0x108), nullptr);
}

TEST(BaselineCompiler, SupportedOnThisBuildsProcessor) {
#if defined(__x86_64__) && defined(__linux__)
  EXPECT_TRUE(wavestack::wasm::baseline::baseline_supported());
#else
  EXPECT_FALSE(wavestack::wasm::baseline::baseline_supported());
#endif
}

}  // namespace
