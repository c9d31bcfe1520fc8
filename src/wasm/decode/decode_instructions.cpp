#include "wasm/decode/decode_instructions.hpp"

#include <string>

#include "wasm/decode/decode_types.hpp"
#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm {
namespace {

void read_zero_byte(ByteReader& reader) {
  const std::size_t at = reader.offset();
  if (reader.u8() != 0) reader.fail_at(at, "zero byte expected");
}

void read_block_type(ByteReader& reader, Instruction& instruction) {
  const std::uint8_t byte = reader.peek_u8();
  if (byte == 0x40) {
    reader.u8();
    instruction.flags = static_cast<std::uint16_t>(BlockTypeKind::kEmpty);
    return;
  }
  if ((byte >= 0x7C && byte <= 0x7F) || byte == 0x70 || byte == 0x6F) {
    reader.u8();
    instruction.flags = static_cast<std::uint16_t>(BlockTypeKind::kValue);
    instruction.a = byte;
    return;
  }
  if ((byte & 0xC0U) == 0x40U) {
    // A single-byte negative s33 that is not a value type of the profile.
    reader.u8();
    reject_unsupported_type_byte(reader, byte);
    reader.fail_at(reader.offset() - 1, "malformed block type");
  }
  const std::size_t at = reader.offset();
  const std::int64_t index = reader.s33();
  if (index < 0) reader.fail_at(at, "malformed block type");
  instruction.flags = static_cast<std::uint16_t>(BlockTypeKind::kTypeIndex);
  instruction.a = static_cast<std::uint32_t>(index);
}

void read_memarg(ByteReader& reader, Instruction& instruction) {
  const std::size_t at = reader.offset();
  instruction.a = reader.u32();
  // Bit 6 of the alignment field announces a memory index (multi-memory proposal).
  if ((instruction.a & 0x40U) != 0 && instruction.a < 0x80U) {
    throw UnsupportedFeature(at, feature::kMultipleMemories, "a memory access with a memory index");
  }
  instruction.b = reader.u32();
}

[[noreturn]] void unsupported_opcode(std::size_t at, std::uint8_t byte) {
  switch (byte) {
    case 0x06:
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0A:
    case 0x18:
    case 0x19:
    case 0x1F:
      throw UnsupportedFeature(at, feature::kExceptions, "an exception-handling instruction");
    case 0x12:
    case 0x13:
      throw UnsupportedFeature(at, feature::kTailCalls, "return_call / return_call_indirect");
    case 0x14:
    case 0x15:
    case 0xD3:
    case 0xD4:
    case 0xD6:
      throw UnsupportedFeature(at, feature::kTypedFunctionReferences, "a typed function reference instruction");
    case 0xD5:
    case 0xFB:
      throw UnsupportedFeature(at, feature::kGc, "a GC instruction");
    case 0xFD:
      throw UnsupportedFeature(at, feature::kSimd, "a SIMD (0xFD) instruction");
    case 0xFE:
      throw UnsupportedFeature(at, feature::kThreads, "an atomic (0xFE) instruction");
    default:
      throw MalformedModule(at, "illegal opcode");
  }
}

void note_data_index(const ExpressionContext& context, std::size_t at) {
  if (context.has_data_count) return;
  if (context.data_index_without_count == nullptr) throw MalformedModule(at, "data count section required");
  if (!context.data_index_without_count->has_value()) *context.data_index_without_count = at;
}

void read_prefixed_fc(ByteReader& reader, const ExpressionContext& context, std::size_t at, Instruction& instruction) {
  const std::uint32_t sub = reader.u32();
  if (sub > 17) throw MalformedModule(at, "illegal opcode");
  instruction.opcode = static_cast<std::uint16_t>(op::kPrefixFC + sub);
  switch (instruction.opcode) {
    case op::kMemoryInit:
      note_data_index(context, at);
      instruction.a = reader.u32();
      read_zero_byte(reader);
      break;
    case op::kDataDrop:
      note_data_index(context, at);
      instruction.a = reader.u32();
      break;
    case op::kMemoryCopy:
      read_zero_byte(reader);
      read_zero_byte(reader);
      break;
    case op::kMemoryFill:
      read_zero_byte(reader);
      break;
    case op::kTableInit:
      instruction.a = reader.u32();  // element segment
      instruction.b = reader.u32();  // table
      break;
    case op::kElemDrop:
      instruction.a = reader.u32();
      break;
    case op::kTableCopy:
      instruction.a = reader.u32();  // destination table
      instruction.b = reader.u32();  // source table
      break;
    case op::kTableGrow:
    case op::kTableSize:
    case op::kTableFill:
      instruction.a = reader.u32();
      break;
    default:
      break;  // saturating truncations: no immediates
  }
}

}  // namespace

void decode_expression(ByteReader& reader, const ExpressionContext& context, std::vector<Instruction>& code,
                       std::vector<std::uint32_t>& offsets) {
  // The open constructs, innermost last: an `else` is part of the binary grammar of `if`
  // only, so one anywhere else (or a second one) is malformed, not merely ill-typed.
  enum class Open : std::uint8_t { kBody, kBlock, kIf, kElse };
  std::vector<Open> open{Open::kBody};
  while (!open.empty()) {
    const std::size_t at = reader.offset();
    const std::uint8_t byte = reader.u8();
    Instruction instruction;
    instruction.opcode = byte;
    switch (byte) {
      case op::kUnreachable:
      case op::kNop:
      case op::kReturn:
      case op::kDrop:
      case op::kSelect:
      case op::kRefIsNull:
        break;
      case op::kBlock:
      case op::kLoop:
      case op::kIf:
        read_block_type(reader, instruction);
        open.push_back(byte == op::kIf ? Open::kIf : Open::kBlock);
        break;
      case op::kElse:
        if (open.back() != Open::kIf) throw MalformedModule(at, "END opcode expected");
        open.back() = Open::kElse;
        break;
      case op::kEnd:
        open.pop_back();
        break;
      case op::kBr:
      case op::kBrIf:
        instruction.a = reader.u32();
        break;
      case op::kBrTable: {
        const std::uint32_t count = reader.u32();
        instruction.a = count;
        code.push_back(instruction);
        offsets.push_back(static_cast<std::uint32_t>(at));
        // The labels follow as entries (count + 1 with the default), each holding a depth.
        for (std::uint64_t k = 0; k <= count; ++k) {
          Instruction entry;
          entry.opcode = op::kBrTableEntry;
          const std::size_t entry_at = reader.offset();
          entry.a = reader.u32();
          code.push_back(entry);
          offsets.push_back(static_cast<std::uint32_t>(entry_at));
        }
        continue;
      }
      case op::kCall:
        instruction.a = reader.u32();
        break;
      case op::kCallIndirect:
        instruction.a = reader.u32();  // type
        instruction.b = reader.u32();  // table
        break;
      case op::kSelectTyped: {
        const std::uint32_t count = reader.u32();
        instruction.b = count;
        for (std::uint32_t k = 0; k < count; ++k) {
          const ValType type = read_value_type(reader);
          if (k == 0) instruction.a = static_cast<std::uint32_t>(type);
        }
        break;
      }
      case op::kLocalGet:
      case op::kLocalSet:
      case op::kLocalTee:
      case op::kGlobalGet:
      case op::kGlobalSet:
      case op::kTableGet:
      case op::kTableSet:
        instruction.a = reader.u32();
        break;
      case op::kMemorySize:
      case op::kMemoryGrow:
        read_zero_byte(reader);
        break;
      case op::kI32Const:
        instruction.a = static_cast<std::uint32_t>(reader.s32());
        break;
      case op::kI64Const: {
        const auto value = static_cast<std::uint64_t>(reader.s64());
        instruction.a = static_cast<std::uint32_t>(value);
        instruction.b = static_cast<std::uint32_t>(value >> 32U);
        break;
      }
      case op::kF32Const:
        instruction.a = reader.fixed_u32();
        break;
      case op::kF64Const: {
        const std::uint64_t bits = reader.fixed_u64();
        instruction.a = static_cast<std::uint32_t>(bits);
        instruction.b = static_cast<std::uint32_t>(bits >> 32U);
        break;
      }
      case op::kRefNull: {
        const std::uint8_t heap = reader.u8();
        if (heap != 0x70 && heap != 0x6F) {
          reject_unsupported_type_byte(reader, heap);
          if (heap <= 0x3F) {
            throw UnsupportedFeature(at, feature::kTypedFunctionReferences, "ref.null with a type index");
          }
          reader.fail_at(reader.offset() - 1, "malformed reference type");
        }
        instruction.a = heap;
        break;
      }
      case op::kRefFunc:
        instruction.a = reader.u32();
        break;
      case 0xFC:
        read_prefixed_fc(reader, context, at, instruction);
        break;
      default:
        if (byte >= op::kFirstLoad && byte <= op::kLastStore) {
          read_memarg(reader, instruction);
        } else if (byte < op::kFirstNumeric || byte > op::kLastNumeric) {
          unsupported_opcode(at, byte);
        }
        break;
    }
    code.push_back(instruction);
    offsets.push_back(static_cast<std::uint32_t>(at));
  }
}

}  // namespace wavestack::wasm
