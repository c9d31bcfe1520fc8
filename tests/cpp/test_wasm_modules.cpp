// Hand-built modules through decode, validation and lowering: the error type, offset and
// reason of each refusal, and the executable form of accepted functions.
#include <gtest/gtest.h>

#include <string>

#include "wasm/decode/decoder.hpp"
#include "wasm/load/loader.hpp"
#include "wasm/module/errors.hpp"
#include "wasm/module/opcodes.hpp"
#include "wasm/validate/validator.hpp"
#include "wasm_test_modules.hpp"

namespace wasm = wavestack::wasm;
using wavestack::testing::add_section;
using wavestack::testing::Bytes;
using wavestack::testing::one_function_module;
using wavestack::testing::wasm_header;

namespace {

wasm::Module load(const Bytes& bytes) {
  wasm::LoadOptions options;
  options.host_modules = {"spectest"};
  return wasm::load_module(bytes.data(), bytes.size(), options);
}

// Loads `bytes` expecting error type E; returns it for inspection.
template <typename E>
E expect_error(const Bytes& bytes) {
  try {
    load(bytes);
  } catch (const E& error) {
    return error;
  } catch (const std::exception& other) {
    ADD_FAILURE() << "unexpected error: " << other.what();
    throw;
  }
  ADD_FAILURE() << "the module was accepted";
  throw std::runtime_error("accepted");
}

const Bytes kVoidType = {0x60, 0x00, 0x00};
const Bytes kI32ToI32 = {0x60, 0x01, 0x7F, 0x01, 0x7F};

}  // namespace

TEST(WasmDecoder, EmptyModuleLoads) {
  const wasm::Module module = load(wasm_header());
  EXPECT_TRUE(module.types.empty());
  EXPECT_TRUE(module.program.functions.empty());
}

TEST(WasmDecoder, HeaderErrors) {
  EXPECT_EQ(expect_error<wasm::MalformedModule>({0x00, 0x61, 0x73}).reason(), "unexpected end");
  EXPECT_EQ(expect_error<wasm::MalformedModule>({0x00, 0x41, 0x53, 0x4D, 1, 0, 0, 0}).reason(),
            "magic header not detected");
  const auto version = expect_error<wasm::MalformedModule>({0x00, 0x61, 0x73, 0x6D, 2, 0, 0, 0});
  EXPECT_EQ(version.reason(), "unknown binary version");
  EXPECT_EQ(version.offset(), 4U);
}

TEST(WasmDecoder, SectionFraming) {
  Bytes bad_id = wasm_header();
  add_section(bad_id, 14, {});
  EXPECT_EQ(expect_error<wasm::MalformedModule>(bad_id).reason(), "malformed section id");
  EXPECT_EQ(expect_error<wasm::MalformedModule>(bad_id).offset(), 8U);

  Bytes out_of_order = wasm_header();
  add_section(out_of_order, 3, {0x00});
  add_section(out_of_order, 1, {0x00});
  EXPECT_EQ(expect_error<wasm::MalformedModule>(out_of_order).reason(), "unexpected content after last section");

  Bytes too_long = wasm_header();
  add_section(too_long, 1, {0x00, 0x00});  // one byte left over after a zero-type vector
  EXPECT_EQ(expect_error<wasm::MalformedModule>(too_long).reason(), "section size mismatch");

  Bytes custom_anywhere = wasm_header();
  add_section(custom_anywhere, 0, {0x01, 'x', 0xAA});
  add_section(custom_anywhere, 1, {0x00});
  add_section(custom_anywhere, 0, {0x00});
  EXPECT_NO_THROW(load(custom_anywhere));

  Bytes bad_custom_name = wasm_header();
  add_section(bad_custom_name, 0, {0x01, 0xFF});
  EXPECT_EQ(expect_error<wasm::MalformedModule>(bad_custom_name).reason(), "malformed UTF-8 encoding");
}

TEST(WasmDecoder, FunctionWithoutCodeIsMalformed) {
  Bytes module = wasm_header();
  add_section(module, 1, {0x01, 0x60, 0x00, 0x00});
  add_section(module, 3, {0x01, 0x00});
  EXPECT_EQ(expect_error<wasm::MalformedModule>(module).reason(),
            "function and code section have inconsistent lengths");
}

TEST(WasmDecoder, UnsupportedEncodingsNameTheirFeature) {
  // v128 parameter.
  Bytes simd = wasm_header();
  add_section(simd, 1, {0x01, 0x60, 0x01, 0x7B, 0x00});
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(simd).feature(), "SIMD");
  // 0xFD prefix in a body.
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(one_function_module(kVoidType, {0x00, 0xFD, 0x0C, 0x0B})).feature(),
            "SIMD");
  // return_call 0.
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(one_function_module(kVoidType, {0x00, 0x12, 0x00, 0x0B})).feature(),
            "tail calls");
  // An atomic fence (0xFE 0x03 0x00).
  EXPECT_EQ(
      expect_error<wasm::UnsupportedFeature>(one_function_module(kVoidType, {0x00, 0xFE, 0x03, 0x00, 0x0B})).feature(),
      "threads");
  // memory64 limits.
  Bytes memory64 = wasm_header();
  add_section(memory64, 5, {0x01, 0x04, 0x01});
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(memory64).feature(), "memory64");
  // Tag section.
  Bytes tags = wasm_header();
  add_section(tags, 13, {0x00});
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(tags).feature(), "exception handling");
}

TEST(WasmValidator, TypeMismatchPointsAtTheInstruction) {
  // (func (result i32) i64.const 0 end): the mismatch is found at `end`, byte 5 of the body.
  const Bytes module = one_function_module({0x60, 0x00, 0x01, 0x7F}, {0x00, 0x42, 0x00, 0x0B});
  const auto error = expect_error<wasm::InvalidModule>(module);
  EXPECT_EQ(error.reason().rfind("type mismatch", 0), 0U) << error.reason();
  EXPECT_EQ(module[error.offset()], 0x0B);
}

TEST(WasmValidator, UnknownIndicesAndAlignment) {
  EXPECT_EQ(expect_error<wasm::InvalidModule>(one_function_module(kVoidType, {0x00, 0x0C, 0x01, 0x0B})).reason(),
            "unknown label 1");
  EXPECT_EQ(expect_error<wasm::InvalidModule>(one_function_module(kVoidType, {0x00, 0x10, 0x05, 0x0B})).reason(),
            "unknown function 5");
  EXPECT_EQ(expect_error<wasm::InvalidModule>(
                one_function_module(kVoidType, {0x00, 0x41, 0x00, 0x28, 0x02, 0x00, 0x1A, 0x0B}))
                .reason(),
            "unknown memory 0");
  // i32.load with alignment 2^3 > 4 bytes.
  Bytes aligned = wasm_header();
  add_section(aligned, 1, {0x01, 0x60, 0x00, 0x00});
  add_section(aligned, 3, {0x01, 0x00});
  add_section(aligned, 5, {0x01, 0x00, 0x01});
  add_section(aligned, 10, {0x01, 0x08, 0x00, 0x41, 0x00, 0x28, 0x03, 0x00, 0x1A, 0x0B});
  EXPECT_EQ(expect_error<wasm::InvalidModule>(aligned).reason(), "alignment must not be larger than natural");
}

TEST(WasmValidator, UnreachableCodeIsPolymorphic) {
  // (func (result i32) unreachable i32.add end) is valid: both operands come from the bottom type.
  EXPECT_NO_THROW(load(one_function_module({0x60, 0x00, 0x01, 0x7F}, {0x00, 0x00, 0x6A, 0x0B})));
  // ... but a concrete wrong type still mismatches: unreachable f32.const 0 i32.add.
  EXPECT_THROW(
      load(one_function_module({0x60, 0x00, 0x01, 0x7F}, {0x00, 0x00, 0x43, 0x00, 0x00, 0x00, 0x00, 0x6A, 0x0B})),
      wasm::InvalidModule);
}

TEST(WasmLowering, LoopBranchGoesBackAndBlockBranchForward) {
  // (func (param i32) (result i32)
  //   block (result i32)  loop  local.get 0  br_if 0  end  i32.const 7  end)
  const Bytes body = {0x00, 0x02, 0x7F, 0x03, 0x40, 0x20, 0x00, 0x0D, 0x00, 0x0B, 0x41, 0x07, 0x0B, 0x0B};
  const wasm::Module module = load(one_function_module(kI32ToI32, body));
  const wasm::Program& program = module.program;
  ASSERT_EQ(program.functions.size(), 1U);
  const wasm::FunctionRecord& record = program.functions[0];
  // local.get, br_if, i32.const, return: block, loop and end leave nothing behind.
  ASSERT_EQ(record.code_end - record.code_begin, 4U);
  const wasm::Instruction& br_if = program.code[record.code_begin + 1];
  EXPECT_EQ(br_if.opcode, wasm::op::kBrIf);
  EXPECT_EQ(br_if.a, record.code_begin);  // the loop starts at the local.get
  EXPECT_EQ(br_if.b, 0U);                 // a loop label carries its (no) parameters
  EXPECT_EQ(br_if.c, 0U);
  EXPECT_EQ(program.code[record.code_begin + 3].opcode, wasm::op::kReturn);
  EXPECT_EQ(program.code[record.code_begin + 3].a, 1U);
  EXPECT_EQ(record.param_count, 1U);
  EXPECT_EQ(record.result_count, 1U);
  EXPECT_EQ(record.max_stack, 1U);
}

TEST(WasmLowering, BranchCarriesValuesAndCutsTheStack) {
  // (func (result i32) i32.const 1  block (result i32) i32.const 2 i32.const 3 br 0 end  i32.add)
  const Bytes body = {0x00, 0x41, 0x01, 0x02, 0x7F, 0x41, 0x02, 0x41, 0x03, 0x0C, 0x00, 0x0B, 0x6A, 0x0B};
  const wasm::Module module = load(one_function_module({0x60, 0x00, 0x01, 0x7F}, body));
  const wasm::FunctionRecord& record = module.program.functions[0];
  const wasm::Instruction& br = module.program.code[record.code_begin + 3];
  EXPECT_EQ(br.opcode, wasm::op::kBr);
  EXPECT_EQ(br.a, record.code_begin + 4);  // just after the block: the i32.add
  EXPECT_EQ(br.b, 1U);                     // keeps the top value (3)
  EXPECT_EQ(br.c, 1U);                     // over the one value below the block (1)
  EXPECT_EQ(record.max_stack, 3U);
}

TEST(WasmLowering, LocalsAreExpandedAfterParameters) {
  // (func (param i32) (result i32) (local i64 i64 f32) local.get 0)
  const Bytes body = {0x02, 0x02, 0x7E, 0x01, 0x7D, 0x20, 0x00, 0x0B};
  const wasm::Module module = load(one_function_module(kI32ToI32, body));
  const wasm::FunctionRecord& record = module.program.functions[0];
  EXPECT_EQ(record.local_count, 3U);
  const auto* types = module.program.local_types.data() + record.local_types_begin;
  EXPECT_EQ(types[0], 0x7F);
  EXPECT_EQ(types[1], 0x7E);
  EXPECT_EQ(types[2], 0x7E);
  EXPECT_EQ(types[3], 0x7D);
}

TEST(WasmLoader, ImportsOutsideTheHostModulesAreUnsupported) {
  // (import "env" "m" (memory 1))
  Bytes module = wasm_header();
  add_section(module, 2, {0x01, 0x03, 'e', 'n', 'v', 0x01, 'm', 0x02, 0x00, 0x01});
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(module).feature(), "imported memories");
  wasm::LoadOptions env_host;
  env_host.host_modules = {"env"};
  EXPECT_NO_THROW((void)wasm::load_module(module.data(), module.size(), env_host));
}

TEST(WasmDecoder, ElseOutsideIfIsMalformed) {
  // block else end end: `else` belongs to the grammar of `if` only.
  EXPECT_EQ(expect_error<wasm::MalformedModule>(one_function_module(kVoidType, {0x00, 0x02, 0x40, 0x05, 0x0B, 0x0B}))
                .reason(),
            "END opcode expected");
  // if else else end: a second else.
  EXPECT_THROW(load(one_function_module(kVoidType, {0x00, 0x41, 0x00, 0x04, 0x40, 0x05, 0x05, 0x0B, 0x0B})),
               wasm::MalformedModule);
}

TEST(WasmValidator, LimitErrorsPointAtTheDeclaration) {
  // memory 2 max 1: the second memory-section entry byte is the declaration.
  Bytes module = wasm_header();
  add_section(module, 5, {0x01, 0x01, 0x02, 0x01});
  const auto error = expect_error<wasm::InvalidModule>(module);
  EXPECT_EQ(error.reason(), "size minimum must not be greater than maximum");
  EXPECT_EQ(error.offset(), 11U);  // header 8, section id and size 2, count 1
  Bytes huge = wasm_header();
  add_section(huge, 5, {0x01, 0x00, 0x81, 0x80, 0x04});  // 65537 pages
  EXPECT_EQ(expect_error<wasm::InvalidModule>(huge).reason(), "memory size must be at most 65536 pages (4GiB)");
}

TEST(WasmLowering, CallIndirectCarriesTheCanonicalTypeId) {
  // Types 0 and 1 are both [] -> []; type 2 is [i32] -> [i32]. The function has type 1 and
  // does call_indirect (type 1) through table 0.
  Bytes module = wasm_header();
  add_section(module, 1, {0x03, 0x60, 0x00, 0x00, 0x60, 0x00, 0x00, 0x60, 0x01, 0x7F, 0x01, 0x7F});
  add_section(module, 3, {0x01, 0x01});
  add_section(module, 4, {0x01, 0x70, 0x00, 0x01});
  add_section(module, 10, {0x01, 0x07, 0x00, 0x41, 0x00, 0x11, 0x01, 0x00, 0x0B});
  const wasm::Module loaded = load(module);
  const wasm::Program& program = loaded.program;
  EXPECT_EQ(program.type_ids, (std::vector<std::uint32_t>{0, 0, 2}));
  EXPECT_EQ(program.function_type_ids, (std::vector<std::uint32_t>{0}));
  const wasm::Instruction& call = program.code[program.functions[0].code_begin + 1];
  EXPECT_EQ(call.opcode, wasm::op::kCallIndirect);
  EXPECT_EQ(call.a, 1U);
  EXPECT_EQ(call.b, 0U);
  EXPECT_EQ(call.c, 0U);
}

TEST(WasmValidator, AtMost50000LocalsPerFunction) {
  // One group of 50,000 i32 locals loads; 50,001 is over the implementation limit.
  EXPECT_NO_THROW(load(one_function_module(kVoidType, {0x01, 0xD0, 0x86, 0x03, 0x7F, 0x0B})));
  EXPECT_EQ(expect_error<wasm::UnsupportedFeature>(one_function_module(kVoidType, {0x01, 0xD1, 0x86, 0x03, 0x7F, 0x0B}))
                .feature(),
            "implementation limits");
  // Beyond 2^32 - 1 in total the binary itself is malformed.
  EXPECT_EQ(expect_error<wasm::MalformedModule>(
                one_function_module(kVoidType, {0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x7F, 0x02, 0x7E, 0x0B}))
                .reason(),
            "too many locals");
}
