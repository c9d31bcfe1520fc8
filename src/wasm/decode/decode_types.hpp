// Decoding of the type encodings shared by several sections: value types, reference
// types, function types, limits, table/memory/global types, block types. Encodings that
// belong to features outside the profile raise UnsupportedFeature naming the feature.
#pragma once

#include "wasm/decode/byte_reader.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm {

ValType read_value_type(ByteReader& reader);
ValType read_reference_type(ByteReader& reader);
FuncType read_function_type(ByteReader& reader);
TableType read_table_type(ByteReader& reader);
MemoryType read_memory_type(ByteReader& reader);
GlobalType read_global_type(ByteReader& reader);

// Throws UnsupportedFeature when `byte` is a type encoding of a feature outside the
// profile; returns when it is not one (the caller then reports it as malformed).
void reject_unsupported_type_byte(const ByteReader& reader, std::uint8_t byte);

}  // namespace wavestack::wasm
