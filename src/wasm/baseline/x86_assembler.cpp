#include "wasm/baseline/x86_assembler.hpp"

#include <array>
#include <stdexcept>
#include <utility>

namespace wavestack::wasm::baseline {
namespace {

std::uint8_t low3(Reg reg) {
  return static_cast<std::uint8_t>(reg) & 7U;
}
bool high(Reg reg) {
  return static_cast<std::uint8_t>(reg) >= 8U;
}
bool wide(Width width) {
  return width == Width::k64;
}

}  // namespace

Label Assembler::new_label() {
  labels_.push_back(-1);
  return Label{static_cast<std::int32_t>(labels_.size() - 1)};
}

void Assembler::bind(Label label) {
  if (labels_.at(label.index) >= 0) throw std::logic_error("baseline: a label bound twice");
  labels_[label.index] = static_cast<std::int64_t>(code_.size());
}

bool Assembler::finish() {
  // Jumps to labels bound after them, patched once at the end (patching at each bind was a
  // scan of every pending jump: quadratic in a unit's blocks).
  for (const Fixup& fixup : fixups_) {
    const std::int64_t bound = labels_[fixup.label];
    if (bound < 0) return false;
    const auto rel =
        static_cast<std::uint32_t>(static_cast<std::int32_t>(bound - static_cast<std::int64_t>(fixup.at + 4)));
    for (int k = 0; k < 4; ++k) code_[fixup.at + k] = static_cast<std::uint8_t>(rel >> (8 * k));
  }
  fixups_.clear();
  return true;
}

void Assembler::u32(std::uint32_t value) {
  const std::array<std::uint8_t, 4> bytes{static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8U),
                                          static_cast<std::uint8_t>(value >> 16U),
                                          static_cast<std::uint8_t>(value >> 24U)};
  code_.insert(code_.end(), bytes.begin(), bytes.end());
}

std::vector<std::uint8_t> Assembler::take_code() {
  labels_.clear();
  fixups_.clear();
  return std::move(code_);
}

void Assembler::rex(bool wide_operand, Reg reg, Reg rm, bool force) {
  const std::uint8_t value = 0x40U | (wide_operand ? 8U : 0U) | (high(reg) ? 4U : 0U) | (high(rm) ? 1U : 0U);
  if (value != 0x40U || force) byte(value);
}

void Assembler::modrm_memory(Reg reg, Reg base, std::int32_t disp) {
  // mod 01 (disp8) where the displacement fits a byte, else mod 10 (disp32): most of a block's
  // accesses are to nearby value-stack and frame slots, and the shorter form makes a third
  // less code.
  const bool short_form = disp >= -128 && disp <= 127;
  byte(static_cast<std::uint8_t>((short_form ? 0x40U : 0x80U) | (low3(reg) << 3U) | low3(base)));
  if (low3(base) == 4U) byte(0x24);  // rsp/r12 as a base need a SIB byte (no index)
  if (short_form) {
    byte(static_cast<std::uint8_t>(static_cast<std::int8_t>(disp)));
  } else {
    u32(static_cast<std::uint32_t>(disp));
  }
}

void Assembler::modrm_register(Reg reg, Reg rm) {
  byte(static_cast<std::uint8_t>(0xC0U | (low3(reg) << 3U) | low3(rm)));
}

void Assembler::memory_op(std::initializer_list<std::uint8_t> opcode, bool wide_operand, Reg reg, Reg base,
                          std::int32_t disp, bool force_rex) {
  rex(wide_operand, reg, base, force_rex);
  for (const std::uint8_t part : opcode) byte(part);
  modrm_memory(reg, base, disp);
}

void Assembler::register_op(std::initializer_list<std::uint8_t> opcode, bool wide_operand, Reg reg, Reg rm,
                            bool force_rex) {
  rex(wide_operand, reg, rm, force_rex);
  for (const std::uint8_t part : opcode) byte(part);
  modrm_register(reg, rm);
}

void Assembler::push(Reg reg) {
  if (high(reg)) byte(0x41);
  byte(static_cast<std::uint8_t>(0x50U + low3(reg)));
}

void Assembler::pop(Reg reg) {
  if (high(reg)) byte(0x41);
  byte(static_cast<std::uint8_t>(0x58U + low3(reg)));
}

void Assembler::ret() {
  byte(0xC3);
}

void Assembler::call(Reg target) {
  if (high(target)) byte(0x41);
  byte(0xFF);
  byte(static_cast<std::uint8_t>(0xD0U + low3(target)));  // FF /2, mod 11
}

void Assembler::jmp_reg(Reg target) {
  if (high(target)) byte(0x41);
  byte(0xFF);
  byte(static_cast<std::uint8_t>(0xE0U + low3(target)));  // FF /4, mod 11
}

void Assembler::mov_load(Width width, Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x8B}, wide(width), dst, base, disp);
}

void Assembler::mov_store(Width width, Reg base, std::int32_t disp, Reg src) {
  memory_op({0x89}, wide(width), src, base, disp);
}

void Assembler::store8(Reg base, std::int32_t disp, Reg src) {
  if (static_cast<std::uint8_t>(src) >= 4U) throw std::logic_error("baseline: store8 takes al, cl, dl or bl");
  memory_op({0x88}, false, src, base, disp);
}

void Assembler::store16(Reg base, std::int32_t disp, Reg src) {
  byte(0x66);
  memory_op({0x89}, false, src, base, disp);
}

void Assembler::load_zero8(Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x0F, 0xB6}, false, dst, base, disp);
}

void Assembler::load_zero16(Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x0F, 0xB7}, false, dst, base, disp);
}

void Assembler::load_sign8(Width width, Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x0F, 0xBE}, wide(width), dst, base, disp);
}

void Assembler::load_sign16(Width width, Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x0F, 0xBF}, wide(width), dst, base, disp);
}

void Assembler::load_sign32(Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x63}, true, dst, base, disp);
}

void Assembler::store_imm32(Width width, Reg base, std::int32_t disp, std::int32_t value) {
  memory_op({0xC7}, wide(width), Reg::kRax, base, disp);  // C7 /0
  u32(static_cast<std::uint32_t>(value));
}

void Assembler::lea(Reg dst, Reg base, std::int32_t disp) {
  memory_op({0x8D}, true, dst, base, disp);
}

void Assembler::mov_rr(Width width, Reg dst, Reg src) {
  register_op({0x89}, wide(width), src, dst);
}

void Assembler::mov_imm32(Reg dst, std::uint32_t value) {
  if (high(dst)) byte(0x41);
  byte(static_cast<std::uint8_t>(0xB8U + low3(dst)));
  u32(value);
}

void Assembler::mov_imm64(Reg dst, std::uint64_t value) {
  byte(static_cast<std::uint8_t>(0x48U | (high(dst) ? 1U : 0U)));
  byte(static_cast<std::uint8_t>(0xB8U + low3(dst)));
  u32(static_cast<std::uint32_t>(value));
  u32(static_cast<std::uint32_t>(value >> 32U));
}

void Assembler::alu(Width width, Alu op, Reg dst, Reg src) {
  register_op({static_cast<std::uint8_t>(op)}, wide(width), src, dst);
}

void Assembler::alu_imm(Width width, Alu op, Reg dst, std::int32_t value) {
  // 81 /digit id; the digit is the ALU opcode's row (add 0, or 1, and 4, sub 5, xor 6, cmp 7).
  const auto digit = static_cast<std::uint8_t>(static_cast<std::uint8_t>(op) >> 3U);
  register_op({0x81}, wide(width), static_cast<Reg>(digit), dst);
  u32(static_cast<std::uint32_t>(value));
}

void Assembler::imul(Width width, Reg dst, Reg src) {
  register_op({0x0F, 0xAF}, wide(width), dst, src);
}

void Assembler::shift_cl(Width width, Shift op, Reg dst) {
  register_op({0xD3}, wide(width), static_cast<Reg>(static_cast<std::uint8_t>(op)), dst);
}

void Assembler::test(Width width, Reg a, Reg b) {
  register_op({0x85}, wide(width), b, a);
}

void Assembler::setcc(Cond cond, Reg dst) {
  // SETcc writes a byte register; a REX prefix makes 4..7 mean spl..dil, not ah..bh.
  register_op({0x0F, static_cast<std::uint8_t>(0x90U | static_cast<std::uint8_t>(cond))}, false, Reg::kRax, dst,
              static_cast<std::uint8_t>(dst) >= 4U);
  register_op({0x0F, 0xB6}, false, dst, dst, static_cast<std::uint8_t>(dst) >= 4U);  // movzx dst32, dst8
}

void Assembler::cmov(Width width, Cond cond, Reg dst, Reg src) {
  register_op({0x0F, static_cast<std::uint8_t>(0x40U | static_cast<std::uint8_t>(cond))}, wide(width), dst, src);
}

void Assembler::jump_to(Label target) {
  const std::int64_t bound = labels_.at(target.index);
  if (bound >= 0) {
    u32(static_cast<std::uint32_t>(static_cast<std::int32_t>(bound - static_cast<std::int64_t>(code_.size() + 4))));
    return;
  }
  fixups_.push_back({code_.size(), target.index});
  u32(0);
}

void Assembler::jmp(Label target) {
  byte(0xE9);
  jump_to(target);
}

void Assembler::jcc(Cond cond, Label target) {
  byte(0x0F);
  byte(static_cast<std::uint8_t>(0x80U | static_cast<std::uint8_t>(cond)));
  jump_to(target);
}

}  // namespace wavestack::wasm::baseline
