#include "wasm/decode/decoder.hpp"

#include "wasm/decode/byte_reader.hpp"
#include "wasm/decode/decode_sections.hpp"
#include "wasm/module/errors.hpp"

namespace wavestack::wasm {
namespace {

constexpr std::uint8_t kCustomSection = 0;
constexpr std::uint8_t kDataCountSection = 12;
constexpr std::uint8_t kTagSection = 13;

// Position of each known section id in the required order: the data count section (12)
// sits between the element (9) and code (10) sections.
int section_rank(std::uint8_t id) {
  switch (id) {
    case 1:
      return 1;  // type
    case 2:
      return 2;  // import
    case 3:
      return 3;  // function
    case 4:
      return 4;  // table
    case 5:
      return 5;  // memory
    case 6:
      return 6;  // global
    case 7:
      return 7;  // export
    case 8:
      return 8;  // start
    case 9:
      return 9;  // element
    case 12:
      return 10;  // data count
    case 10:
      return 11;  // code
    case 11:
      return 12;  // data
    default:
      return -1;
  }
}

void decode_section(std::uint8_t id, ByteReader& reader, Module& module) {
  switch (id) {
    case 1:
      decode_type_section(reader, module);
      break;
    case 2:
      decode_import_section(reader, module);
      break;
    case 3:
      decode_function_section(reader, module);
      break;
    case 4:
      decode_table_section(reader, module);
      break;
    case 5:
      decode_memory_section(reader, module);
      break;
    case 6:
      decode_global_section(reader, module);
      break;
    case 7:
      decode_export_section(reader, module);
      break;
    case 8:
      decode_start_section(reader, module);
      break;
    case 9:
      decode_element_section(reader, module);
      break;
    case 10:
      decode_code_section(reader, module);
      break;
    case 11:
      decode_data_section(reader, module);
      break;
    case kDataCountSection:
      decode_data_count_section(reader, module);
      break;
    default:
      break;
  }
}

void read_header(ByteReader& reader) {
  static constexpr std::uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
  if (reader.remaining() < 4) reader.fail("unexpected end");
  for (std::uint8_t expected : kMagic) {
    if (reader.u8() != expected) reader.fail_at(0, "magic header not detected");
  }
  if (reader.remaining() < 4) reader.fail("unexpected end");
  if (reader.fixed_u32() != 1) reader.fail_at(4, "unknown binary version");
}

}  // namespace

Module decode_module(const std::uint8_t* data, std::size_t size) {
  // Instruction offsets are kept as 32-bit numbers; no real module comes near this.
  if (size > 0xFFFFFFFFULL) {
    throw UnsupportedFeature(0, feature::kImplementationLimits, "a binary larger than 4 GiB");
  }
  ByteReader reader(data, 0, size, "unexpected end");
  read_header(reader);
  Module module;
  int last_rank = 0;
  bool saw_code = false;
  bool saw_data = false;
  while (!reader.at_end()) {
    const std::size_t section_at = reader.offset();
    const std::uint8_t id = reader.u8();
    if (id == kTagSection) throw UnsupportedFeature(section_at, feature::kExceptions, "a tag section");
    if (id != kCustomSection && section_rank(id) < 0) reader.fail_at(section_at, "malformed section id");
    const std::uint32_t size_field = reader.u32();
    if (size_field > reader.remaining()) reader.fail("length out of bounds");
    ByteReader section = reader.take(size_field, "unexpected end of section or function");
    if (id == kCustomSection) {
      section.name();  // validated for UTF-8; the contents (names included) are not used
      continue;
    }
    const int rank = section_rank(id);
    // Each known section at most once, in order; anything else is content after the
    // section that should have been last.
    if (rank <= last_rank) reader.fail_at(section_at, "unexpected content after last section");
    last_rank = rank;
    decode_section(id, section, module);
    if (!section.at_end()) section.fail("section size mismatch");
    saw_code = saw_code || id == 10;
    saw_data = saw_data || id == 11;
  }
  if (!saw_code && module.function_types.size() != module.imported_functions) {
    throw MalformedModule(size, "function and code section have inconsistent lengths");
  }
  if (!saw_data && module.data_count.value_or(0) != 0) {
    throw MalformedModule(size, "data count and data section have inconsistent lengths");
  }
  // WebAssembly requires the data count section whenever code uses a data index. When the
  // module has no data segments at all, the spec's tests treat such an index as unknown
  // (a validation error, "unknown data segment"), so only the case with segments is malformed.
  if (module.data_index_without_count && !module.data.empty()) {
    throw MalformedModule(*module.data_index_without_count, "data count section required");
  }
  return module;
}

}  // namespace wavestack::wasm
