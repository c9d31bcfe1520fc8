// Opcode numbers of the pre-decoded instruction stream. Single-byte WebAssembly opcodes
// keep their byte value; 0xFC-prefixed ones are 0x100 + their sub-opcode; the executable
// form adds a few internal opcodes from 0x200 on. One dense number space lets the device
// interpreter switch on a single field.
#pragma once

#include <cstdint>

namespace wavestack::wasm::op {

// Control.
inline constexpr std::uint16_t kUnreachable = 0x00;
inline constexpr std::uint16_t kNop = 0x01;
inline constexpr std::uint16_t kBlock = 0x02;
inline constexpr std::uint16_t kLoop = 0x03;
inline constexpr std::uint16_t kIf = 0x04;
inline constexpr std::uint16_t kElse = 0x05;
inline constexpr std::uint16_t kEnd = 0x0B;
inline constexpr std::uint16_t kBr = 0x0C;
inline constexpr std::uint16_t kBrIf = 0x0D;
inline constexpr std::uint16_t kBrTable = 0x0E;
inline constexpr std::uint16_t kReturn = 0x0F;
inline constexpr std::uint16_t kCall = 0x10;
inline constexpr std::uint16_t kCallIndirect = 0x11;
// Parametric.
inline constexpr std::uint16_t kDrop = 0x1A;
inline constexpr std::uint16_t kSelect = 0x1B;
inline constexpr std::uint16_t kSelectTyped = 0x1C;
// Variables.
inline constexpr std::uint16_t kLocalGet = 0x20;
inline constexpr std::uint16_t kLocalSet = 0x21;
inline constexpr std::uint16_t kLocalTee = 0x22;
inline constexpr std::uint16_t kGlobalGet = 0x23;
inline constexpr std::uint16_t kGlobalSet = 0x24;
inline constexpr std::uint16_t kTableGet = 0x25;
inline constexpr std::uint16_t kTableSet = 0x26;
// Memory: loads 0x28..0x35, stores 0x36..0x3E.
inline constexpr std::uint16_t kFirstLoad = 0x28;
inline constexpr std::uint16_t kLastLoad = 0x35;
inline constexpr std::uint16_t kFirstStore = 0x36;
inline constexpr std::uint16_t kLastStore = 0x3E;
inline constexpr std::uint16_t kMemorySize = 0x3F;
inline constexpr std::uint16_t kMemoryGrow = 0x40;
// Constants.
inline constexpr std::uint16_t kI32Const = 0x41;
inline constexpr std::uint16_t kI64Const = 0x42;
inline constexpr std::uint16_t kF32Const = 0x43;
inline constexpr std::uint16_t kF64Const = 0x44;
// Numeric 0x45..0xC4 (comparisons, arithmetic, conversions, sign extension) carry no immediates.
inline constexpr std::uint16_t kFirstNumeric = 0x45;
inline constexpr std::uint16_t kLastNumeric = 0xC4;
// Reference types.
inline constexpr std::uint16_t kRefNull = 0xD0;
inline constexpr std::uint16_t kRefIsNull = 0xD1;
inline constexpr std::uint16_t kRefFunc = 0xD2;

// 0xFC prefix: 0x100 + sub-opcode.
inline constexpr std::uint16_t kPrefixFC = 0x100;
inline constexpr std::uint16_t kTruncSatFirst = 0x100;  // i32.trunc_sat_f32_s .. i64.trunc_sat_f64_u (0..7)
inline constexpr std::uint16_t kTruncSatLast = 0x107;
inline constexpr std::uint16_t kMemoryInit = 0x108;
inline constexpr std::uint16_t kDataDrop = 0x109;
inline constexpr std::uint16_t kMemoryCopy = 0x10A;
inline constexpr std::uint16_t kMemoryFill = 0x10B;
inline constexpr std::uint16_t kTableInit = 0x10C;
inline constexpr std::uint16_t kElemDrop = 0x10D;
inline constexpr std::uint16_t kTableCopy = 0x10E;
inline constexpr std::uint16_t kTableGrow = 0x10F;
inline constexpr std::uint16_t kTableSize = 0x110;
inline constexpr std::uint16_t kTableFill = 0x111;

// Internal opcodes of the executable form (never in a binary).
inline constexpr std::uint16_t kJump = 0x200;          // a = target pc
inline constexpr std::uint16_t kJumpIfZero = 0x201;    // pops i32; a = target pc when it is 0 (lowered `if`)
inline constexpr std::uint16_t kBrTableEntry = 0x202;  // follows br_table: a = target pc, b = arity, c = height

}  // namespace wavestack::wasm::op
