// The x86-64 instructions the baseline compiler emits, encoded into a byte buffer: moves
// between registers and [base + disp32] memory, the integer ALU, shifts by CL, compares with
// SETcc/CMOVcc, and jumps to labels (rel32, patched when the label is bound). Only what
// block_compiler.cpp needs: every memory operand is a base register plus a 32-bit displacement.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace wavestack::wasm::baseline {

enum class Reg : std::uint8_t {
  kRax = 0,
  kRcx = 1,
  kRdx = 2,
  kRbx = 3,
  kRsp = 4,
  kRbp = 5,
  kRsi = 6,
  kRdi = 7,
  kR8 = 8,
  kR9 = 9,
  kR10 = 10,
  kR11 = 11,
  kR12 = 12,
  kR13 = 13,
  kR14 = 14,
  kR15 = 15,
};

// Condition codes (the low nibble of Jcc/SETcc/CMOVcc).
enum class Cond : std::uint8_t {
  kOverflow = 0x0,
  kBelow = 0x2,         // unsigned <
  kAboveOrEqual = 0x3,  // unsigned >=
  kEqual = 0x4,
  kNotEqual = 0x5,
  kBelowOrEqual = 0x6,  // unsigned <=
  kAbove = 0x7,         // unsigned >
  kLess = 0xC,          // signed <
  kGreaterOrEqual = 0xD,
  kLessOrEqual = 0xE,
  kGreater = 0xF,
};

// The two-operand ALU operations ("op r/m, reg" opcodes).
enum class Alu : std::uint8_t { kAdd = 0x01, kOr = 0x09, kAnd = 0x21, kSub = 0x29, kXor = 0x31, kCmp = 0x39 };

// Shifts and rotates by CL (the /digit of opcode D3).
enum class Shift : std::uint8_t { kRol = 0, kRor = 1, kShl = 4, kShr = 5, kSar = 7 };

// Operand width of an instruction: 32 bits (the upper half of the destination is cleared) or 64.
enum class Width : std::uint8_t { k32, k64 };

// A position in the code that jumps refer to; bound once.
struct Label {
  std::int32_t index = -1;
};

class Assembler {
 public:
  Assembler() { code_.reserve(4096); }
  // Writes into `buffer` (emptied; its capacity kept: a compiler reuses one across units).
  explicit Assembler(std::vector<std::uint8_t> buffer) : code_(std::move(buffer)) { code_.clear(); }
  // The code, leaving this assembler empty (for the next unit's).
  [[nodiscard]] std::vector<std::uint8_t> take_code();
  [[nodiscard]] const std::vector<std::uint8_t>& code() const { return code_; }
  [[nodiscard]] std::size_t size() const { return code_.size(); }

  [[nodiscard]] Label new_label();
  void bind(Label label);  // here
  // Patches every jump to its label; false when a label a jump refers to was never bound.
  [[nodiscard]] bool finish();

  void push(Reg reg);
  void pop(Reg reg);
  void ret();
  void call(Reg target);     // call *target
  void jmp_reg(Reg target);  // jmp *target

  void mov_load(Width width, Reg dst, Reg base, std::int32_t disp);   // dst = [base + disp]
  void mov_store(Width width, Reg base, std::int32_t disp, Reg src);  // [base + disp] = src
  void store8(Reg base, std::int32_t disp, Reg src);                  // src's low byte (al, cl, dl, bl)
  void store16(Reg base, std::int32_t disp, Reg src);
  // Narrow loads into a 32-bit or 64-bit register, zero- or sign-extended.
  void load_zero8(Reg dst, Reg base, std::int32_t disp);
  void load_zero16(Reg dst, Reg base, std::int32_t disp);
  void load_sign8(Width width, Reg dst, Reg base, std::int32_t disp);
  void load_sign16(Width width, Reg dst, Reg base, std::int32_t disp);
  void load_sign32(Reg dst, Reg base, std::int32_t disp);                          // movsxd: 64-bit dst
  void store_imm32(Width width, Reg base, std::int32_t disp, std::int32_t value);  // 64: sign-extended
  void lea(Reg dst, Reg base, std::int32_t disp);

  void mov_rr(Width width, Reg dst, Reg src);
  void mov_imm32(Reg dst, std::uint32_t value);  // zero-extended into the 64-bit register
  void mov_imm64(Reg dst, std::uint64_t value);

  void alu(Width width, Alu op, Reg dst, Reg src);                 // dst op= src (kCmp: flags only)
  void alu_imm(Width width, Alu op, Reg dst, std::int32_t value);  // 64: sign-extended
  void imul(Width width, Reg dst, Reg src);
  void shift_cl(Width width, Shift op, Reg dst);
  void test(Width width, Reg a, Reg b);
  void setcc(Cond cond, Reg dst);  // dst = cond ? 1 : 0, the whole 64-bit register
  void cmov(Width width, Cond cond, Reg dst, Reg src);

  void jmp(Label target);
  void jcc(Cond cond, Label target);

 private:
  void byte(std::uint8_t value) { code_.push_back(value); }
  void u32(std::uint32_t value);
  // REX prefix for a ModRM instruction (omitted when it would be 0x40 and `force` is false).
  void rex(bool wide, Reg reg, Reg rm, bool force = false);
  void modrm_memory(Reg reg, Reg base, std::int32_t disp);  // mod 10, disp32 (SIB for rsp/r12)
  void modrm_register(Reg reg, Reg rm);
  void memory_op(std::initializer_list<std::uint8_t> opcode, bool wide, Reg reg, Reg base, std::int32_t disp,
                 bool force_rex = false);
  void register_op(std::initializer_list<std::uint8_t> opcode, bool wide, Reg reg, Reg rm, bool force_rex = false);
  void jump_to(Label target);  // rel32 to be patched

  std::vector<std::uint8_t> code_;
  std::vector<std::int64_t> labels_;  // bound offsets, -1 while unbound
  struct Fixup {
    std::size_t at;  // the rel32's offset
    std::int32_t label;
  };
  std::vector<Fixup> fixups_;
};

}  // namespace wavestack::wasm::baseline
