#include "wasm/decode/decode_sections.hpp"

#include "wasm/decode/decode_instructions.hpp"
#include "wasm/decode/decode_types.hpp"
#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"

namespace wavestack::wasm {
namespace {

constexpr const char* kEndOfSection = "unexpected end of section or function";

ConstExpr read_const_expr(ByteReader& reader, const Module& module) {
  ConstExpr expr;
  decode_expression(reader, ExpressionContext{module.data_count.has_value()}, expr.code, expr.offsets);
  return expr;
}

ConstExpr ref_func_expr(std::uint32_t function_index, std::size_t at) {
  ConstExpr expr;
  Instruction ref_func;
  ref_func.opcode = op::kRefFunc;
  ref_func.a = function_index;
  Instruction end;
  end.opcode = op::kEnd;
  expr.code = {ref_func, end};
  expr.offsets = {static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at)};
  return expr;
}

// The element kind of the function-index forms: only 0x00 (funcref) exists.
void read_element_kind(ByteReader& reader) {
  const std::size_t at = reader.offset();
  if (reader.u8() != 0x00) reader.fail_at(at, "malformed element kind");
}

}  // namespace

void decode_type_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) module.types.push_back(read_function_type(reader));
}

void decode_import_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    Import import;
    import.offset = reader.offset();
    import.module = reader.name();
    import.name = reader.name();
    const std::size_t kind_at = reader.offset();
    const std::uint8_t kind = reader.u8();
    switch (kind) {
      case 0:
        import.kind = ExternKind::kFunction;
        import.type_index = reader.u32();
        module.function_types.push_back(import.type_index);
        module.function_offsets.push_back(import.offset);
        ++module.imported_functions;
        break;
      case 1:
        import.kind = ExternKind::kTable;
        import.table = read_table_type(reader);
        module.tables.push_back(import.table);
        module.table_offsets.push_back(import.offset);
        ++module.imported_tables;
        break;
      case 2:
        import.kind = ExternKind::kMemory;
        import.memory = read_memory_type(reader);
        module.memories.push_back(import.memory);
        module.memory_offsets.push_back(import.offset);
        ++module.imported_memories;
        break;
      case 3:
        import.kind = ExternKind::kGlobal;
        import.global = read_global_type(reader);
        module.global_types.push_back(import.global);
        ++module.imported_globals;
        break;
      case 4:
        throw UnsupportedFeature(kind_at, feature::kExceptions, "kind 4 imports a tag", SpecVerdict::kMalformed,
                                 "malformed import kind");
      default:
        reader.fail_at(kind_at, "malformed import kind");
    }
    module.imports.push_back(std::move(import));
  }
}

void decode_function_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    module.function_offsets.push_back(reader.offset());
    module.function_types.push_back(reader.u32());
  }
}

void decode_table_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::size_t at = reader.offset();
    if (reader.peek_u8() == 0x40) {
      throw UnsupportedFeature(at, feature::kTypedFunctionReferences, "a table with an initialiser expression");
    }
    module.table_offsets.push_back(at);
    module.tables.push_back(read_table_type(reader));
  }
}

void decode_memory_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    module.memory_offsets.push_back(reader.offset());
    module.memories.push_back(read_memory_type(reader));
  }
}

void decode_global_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    Global global;
    global.byte_offset = reader.offset();
    global.type = read_global_type(reader);
    global.init = read_const_expr(reader, module);
    module.global_types.push_back(global.type);
    module.globals.push_back(std::move(global));
  }
}

void decode_export_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    Export entry;
    entry.offset = reader.offset();
    entry.name = reader.name();
    const std::size_t kind_at = reader.offset();
    const std::uint8_t kind = reader.u8();
    if (kind == 4) {
      throw UnsupportedFeature(kind_at, feature::kExceptions, "kind 4 exports a tag", SpecVerdict::kMalformed,
                               "malformed export kind");
    }
    if (kind > 3) reader.fail_at(kind_at, "malformed export kind");
    entry.kind = static_cast<ExternKind>(kind);
    entry.index = reader.u32();
    module.exports.push_back(std::move(entry));
  }
}

void decode_start_section(ByteReader& reader, Module& module) {
  module.start_offset = reader.offset();
  module.start = reader.u32();
}

void decode_element_section(ByteReader& reader, Module& module) {
  const std::uint32_t count = reader.u32();
  for (std::uint32_t k = 0; k < count; ++k) {
    ElementSegment segment;
    segment.byte_offset = reader.offset();
    const std::uint32_t flags = reader.u32();
    if (flags > 7) reader.fail_at(segment.byte_offset, "malformed elements segment kind");
    // Bit 0: passive or declarative (else active); bit 1: explicit table index (active) or
    // declarative (otherwise); bit 2: items are expressions rather than function indices.
    const bool not_active = (flags & 1U) != 0;
    const bool bit1 = (flags & 2U) != 0;
    const bool expressions = (flags & 4U) != 0;
    if (not_active) {
      segment.mode = bit1 ? SegmentMode::kDeclarative : SegmentMode::kPassive;
    } else {
      segment.mode = SegmentMode::kActive;
      if (bit1) segment.table = reader.u32();
      segment.offset = read_const_expr(reader, module);
    }
    // Forms 0 and 4 have an implicit funcref type; the others state it.
    if (not_active || bit1) {
      if (expressions) {
        segment.type = read_reference_type(reader);
      } else {
        read_element_kind(reader);
      }
    }
    const std::uint32_t item_count = reader.u32();
    for (std::uint32_t item = 0; item < item_count; ++item) {
      if (expressions) {
        segment.items.push_back(read_const_expr(reader, module));
      } else {
        const std::size_t at = reader.offset();
        segment.items.push_back(ref_func_expr(reader.u32(), at));
      }
    }
    module.elements.push_back(std::move(segment));
  }
}

void decode_data_count_section(ByteReader& reader, Module& module) {
  module.data_count = reader.u32();
}

void decode_code_section(ByteReader& reader, Module& module) {
  const std::size_t count_at = reader.offset();
  const std::uint32_t count = reader.u32();
  const std::size_t declared = module.function_types.size() - module.imported_functions;
  if (count != declared) reader.fail_at(count_at, "function and code section have inconsistent lengths");
  const ExpressionContext context{module.data_count.has_value(), &module.data_index_without_count};
  for (std::uint32_t k = 0; k < count; ++k) {
    FunctionBody body;
    body.byte_offset = reader.offset();
    const std::uint32_t size = reader.u32();
    ByteReader function = reader.take(size, kEndOfSection);
    const std::uint32_t group_count = function.u32();
    for (std::uint32_t group = 0; group < group_count; ++group) {
      const std::size_t at = function.offset();
      LocalGroup locals;
      locals.count = function.u32();
      body.local_count += locals.count;
      if (body.local_count > 0xFFFFFFFFULL) function.fail_at(at, "too many locals");
      locals.type = read_value_type(function);
      body.locals.push_back(locals);
    }
    decode_expression(function, context, body.code, body.offsets);
    if (!function.at_end()) function.fail("section size mismatch");
    module.bodies.push_back(std::move(body));
  }
}

void decode_data_section(ByteReader& reader, Module& module) {
  const std::size_t count_at = reader.offset();
  const std::uint32_t count = reader.u32();
  if (module.data_count && *module.data_count != count) {
    reader.fail_at(count_at, "data count and data section have inconsistent lengths");
  }
  for (std::uint32_t k = 0; k < count; ++k) {
    DataSegment segment;
    segment.byte_offset = reader.offset();
    const std::uint32_t flags = reader.u32();
    switch (flags) {
      case 0:
        segment.offset = read_const_expr(reader, module);
        break;
      case 1:
        segment.mode = SegmentMode::kPassive;
        break;
      case 2:
        segment.memory = reader.u32();
        segment.offset = read_const_expr(reader, module);
        break;
      default:
        reader.fail_at(segment.byte_offset, "malformed data segment kind");
    }
    const std::uint32_t length = reader.u32();
    if (length > reader.remaining()) reader.fail("unexpected end of section or function");
    const std::uint8_t* bytes = reader.data() + reader.offset();
    segment.bytes.assign(bytes, bytes + length);
    reader.skip(length);
    module.data.push_back(std::move(segment));
  }
}

}  // namespace wavestack::wasm
