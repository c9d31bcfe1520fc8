#include "wasm/decode/decode_types.hpp"

#include "wasm/module/errors.hpp"

namespace wavestack::wasm {
namespace {

bool is_number_type(std::uint8_t byte) {
  return byte >= 0x7C && byte <= 0x7F;
}
bool is_reference_type(std::uint8_t byte) {
  return byte == 0x70 || byte == 0x6F;
}

Limits read_limits(ByteReader& reader, std::uint8_t flags) {
  Limits limits;
  limits.min = reader.u32();
  if ((flags & 1U) != 0) limits.max = reader.u32();
  return limits;
}

}  // namespace

void reject_unsupported_type_byte(const ByteReader& reader, std::uint8_t byte) {
  const std::size_t at = reader.offset() - 1;
  if (byte == 0x7B) throw UnsupportedFeature(at, feature::kSimd, "the v128 value type");
  if (byte == 0x69 || byte == 0x74) throw UnsupportedFeature(at, feature::kExceptions, "the exnref type");
  if (byte == 0x63 || byte == 0x64) {
    throw UnsupportedFeature(at, feature::kTypedFunctionReferences, "a (ref ...) type");
  }
  if ((byte >= 0x6A && byte <= 0x6E) || (byte >= 0x71 && byte <= 0x73)) {
    throw UnsupportedFeature(at, feature::kGc, "a GC reference type");
  }
}

ValType read_value_type(ByteReader& reader) {
  const std::uint8_t byte = reader.u8();
  if (is_number_type(byte) || is_reference_type(byte)) return static_cast<ValType>(byte);
  reject_unsupported_type_byte(reader, byte);
  // Types are signed LEB128 in the spec's grammar, so a continuation bit reads as an
  // over-long integer.
  if ((byte & 0x80U) != 0) reader.fail_at(reader.offset() - 1, "integer representation too long");
  reader.fail_at(reader.offset() - 1, "malformed value type");
}

ValType read_reference_type(ByteReader& reader) {
  const std::uint8_t byte = reader.u8();
  if (is_reference_type(byte)) return static_cast<ValType>(byte);
  reject_unsupported_type_byte(reader, byte);
  reader.fail_at(reader.offset() - 1, "malformed reference type");
}

FuncType read_function_type(ByteReader& reader) {
  const std::uint8_t form = reader.u8();
  if (form != 0x60) {
    const std::size_t at = reader.offset() - 1;
    if (form == 0x5E || form == 0x5F || form == 0x50 || form == 0x4F || form == 0x4E) {
      throw UnsupportedFeature(at, feature::kGc, "a struct, array, sub or rec type definition");
    }
    if ((form & 0x80U) != 0) reader.fail_at(at, "integer representation too long");
    reader.fail_at(at, "integer too large");
  }
  FuncType type;
  const std::uint32_t param_count = reader.u32();
  for (std::uint32_t k = 0; k < param_count; ++k) type.params.push_back(read_value_type(reader));
  const std::uint32_t result_count = reader.u32();
  for (std::uint32_t k = 0; k < result_count; ++k) type.results.push_back(read_value_type(reader));
  return type;
}

TableType read_table_type(ByteReader& reader) {
  TableType table;
  table.element = read_reference_type(reader);
  const std::size_t at = reader.offset();
  const std::uint8_t flags = reader.u8();
  if ((flags & 0x80U) != 0) reader.fail_at(at, "integer representation too long");
  if (flags >= 4 && flags <= 7) throw UnsupportedFeature(at, feature::kMemory64, "a table with 64-bit limits");
  if (flags > 1) reader.fail_at(at, "integer too large");
  table.limits = read_limits(reader, flags);
  return table;
}

MemoryType read_memory_type(ByteReader& reader) {
  const std::size_t at = reader.offset();
  const std::uint8_t flags = reader.u8();
  if ((flags & 0x80U) != 0) reader.fail_at(at, "integer representation too long");
  if (flags == 2 || flags == 3) {
    throw UnsupportedFeature(at, feature::kThreads, "limits flag 2 or 3 declares a shared memory",
                             SpecVerdict::kMalformed, "integer too large");
  }
  if (flags >= 4 && flags <= 7) throw UnsupportedFeature(at, feature::kMemory64, "a memory with 64-bit limits");
  if (flags >= 8 && flags <= 15) throw UnsupportedFeature(at, feature::kCustomPageSizes, "a memory page size");
  if (flags > 1) reader.fail_at(at, "integer too large");
  return MemoryType{read_limits(reader, flags)};
}

GlobalType read_global_type(ByteReader& reader) {
  GlobalType global;
  global.type = read_value_type(reader);
  const std::size_t at = reader.offset();
  const std::uint8_t mutability = reader.u8();
  if (mutability > 1) reader.fail_at(at, "malformed mutability");
  global.is_mutable = mutability == 1;
  return global;
}

}  // namespace wavestack::wasm
