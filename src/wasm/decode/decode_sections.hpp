// One function per known section: each reads the section's contents from a reader
// limited to the section and adds them to the module.
#pragma once

#include "wasm/decode/byte_reader.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm {

void decode_type_section(ByteReader& reader, Module& module);
void decode_import_section(ByteReader& reader, Module& module);
void decode_function_section(ByteReader& reader, Module& module);
void decode_table_section(ByteReader& reader, Module& module);
void decode_memory_section(ByteReader& reader, Module& module);
void decode_global_section(ByteReader& reader, Module& module);
void decode_export_section(ByteReader& reader, Module& module);
void decode_start_section(ByteReader& reader, Module& module);
void decode_element_section(ByteReader& reader, Module& module);
void decode_data_count_section(ByteReader& reader, Module& module);
void decode_code_section(ByteReader& reader, Module& module);
void decode_data_section(ByteReader& reader, Module& module);

}  // namespace wavestack::wasm
