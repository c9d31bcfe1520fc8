#include "wasm/validate/opcode_signatures.hpp"

#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm {
namespace {

constexpr ValType I32 = ValType::kI32;
constexpr ValType I64 = ValType::kI64;
constexpr ValType F32 = ValType::kF32;
constexpr ValType F64 = ValType::kF64;

SimpleSignature unary(ValType operand, ValType result) {
  return {{operand, ValType::kUnknown}, 1, result};
}
SimpleSignature binary(ValType operand, ValType result) {
  return {{operand, operand}, 2, result};
}

bool in(std::uint16_t opcode, std::uint16_t first, std::uint16_t last) {
  return opcode >= first && opcode <= last;
}

}  // namespace

std::optional<SimpleSignature> numeric_signature(std::uint16_t opcode) noexcept {
  // Ranges follow the opcode table of the binary format (section 5.4.7).
  if (opcode == 0x45) return unary(I32, I32);           // i32.eqz
  if (in(opcode, 0x46, 0x4F)) return binary(I32, I32);  // i32 comparisons
  if (opcode == 0x50) return unary(I64, I32);           // i64.eqz
  if (in(opcode, 0x51, 0x5A)) return binary(I64, I32);  // i64 comparisons
  if (in(opcode, 0x5B, 0x60)) return binary(F32, I32);  // f32 comparisons
  if (in(opcode, 0x61, 0x66)) return binary(F64, I32);  // f64 comparisons
  if (in(opcode, 0x67, 0x69)) return unary(I32, I32);   // clz ctz popcnt
  if (in(opcode, 0x6A, 0x78)) return binary(I32, I32);  // i32 arithmetic
  if (in(opcode, 0x79, 0x7B)) return unary(I64, I64);
  if (in(opcode, 0x7C, 0x8A)) return binary(I64, I64);
  if (in(opcode, 0x8B, 0x91)) return unary(F32, F32);   // abs .. sqrt
  if (in(opcode, 0x92, 0x98)) return binary(F32, F32);  // add .. copysign
  if (in(opcode, 0x99, 0x9F)) return unary(F64, F64);
  if (in(opcode, 0xA0, 0xA6)) return binary(F64, F64);
  switch (opcode) {
    case 0xA7:
      return unary(I64, I32);  // i32.wrap_i64
    case 0xA8:
    case 0xA9:
      return unary(F32, I32);  // i32.trunc_f32_*
    case 0xAA:
    case 0xAB:
      return unary(F64, I32);
    case 0xAC:
    case 0xAD:
      return unary(I32, I64);  // i64.extend_i32_*
    case 0xAE:
    case 0xAF:
      return unary(F32, I64);
    case 0xB0:
    case 0xB1:
      return unary(F64, I64);
    case 0xB2:
    case 0xB3:
      return unary(I32, F32);  // f32.convert_i32_*
    case 0xB4:
    case 0xB5:
      return unary(I64, F32);
    case 0xB6:
      return unary(F64, F32);  // f32.demote_f64
    case 0xB7:
    case 0xB8:
      return unary(I32, F64);
    case 0xB9:
    case 0xBA:
      return unary(I64, F64);
    case 0xBB:
      return unary(F32, F64);  // f64.promote_f32
    case 0xBC:
      return unary(F32, I32);  // reinterpretations
    case 0xBD:
      return unary(F64, I64);
    case 0xBE:
      return unary(I32, F32);
    case 0xBF:
      return unary(I64, F64);
    case 0xC0:
    case 0xC1:
      return unary(I32, I32);  // i32.extend8_s, extend16_s
    case 0xC2:
    case 0xC3:
    case 0xC4:
      return unary(I64, I64);  // i64.extend8/16/32_s
    // Saturating truncations (0xFC 0..7).
    case op::kTruncSatFirst + 0:
    case op::kTruncSatFirst + 1:
      return unary(F32, I32);
    case op::kTruncSatFirst + 2:
    case op::kTruncSatFirst + 3:
      return unary(F64, I32);
    case op::kTruncSatFirst + 4:
    case op::kTruncSatFirst + 5:
      return unary(F32, I64);
    case op::kTruncSatFirst + 6:
    case op::kTruncSatFirst + 7:
      return unary(F64, I64);
    default:
      return std::nullopt;
  }
}

std::optional<MemoryAccess> memory_access(std::uint16_t opcode) noexcept {
  switch (opcode) {
    case 0x28:
      return MemoryAccess{I32, 2, false};  // i32.load
    case 0x29:
      return MemoryAccess{I64, 3, false};  // i64.load
    case 0x2A:
      return MemoryAccess{F32, 2, false};
    case 0x2B:
      return MemoryAccess{F64, 3, false};
    case 0x2C:
    case 0x2D:
      return MemoryAccess{I32, 0, false};  // i32.load8_*
    case 0x2E:
    case 0x2F:
      return MemoryAccess{I32, 1, false};  // i32.load16_*
    case 0x30:
    case 0x31:
      return MemoryAccess{I64, 0, false};
    case 0x32:
    case 0x33:
      return MemoryAccess{I64, 1, false};
    case 0x34:
    case 0x35:
      return MemoryAccess{I64, 2, false};  // i64.load32_*
    case 0x36:
      return MemoryAccess{I32, 2, true};  // i32.store
    case 0x37:
      return MemoryAccess{I64, 3, true};
    case 0x38:
      return MemoryAccess{F32, 2, true};
    case 0x39:
      return MemoryAccess{F64, 3, true};
    case 0x3A:
      return MemoryAccess{I32, 0, true};  // i32.store8
    case 0x3B:
      return MemoryAccess{I32, 1, true};
    case 0x3C:
      return MemoryAccess{I64, 0, true};  // i64.store8
    case 0x3D:
      return MemoryAccess{I64, 1, true};
    case 0x3E:
      return MemoryAccess{I64, 2, true};  // i64.store32
    default:
      return std::nullopt;
  }
}

}  // namespace wavestack::wasm
