// prelude.hpp's GLSL builtins against independent 64-bit formulas (the GPU differential test
// also compares them with the device's own builtins).
#include <gtest/gtest.h>

#include <bit>

#include "numerics_test_support.hpp"

namespace {

using namespace wavestack::numerics_test;
namespace device = wavestack::wasm::device;

TEST(NumericsPrelude, CarryBorrowAndWideMultiply) {
  Mismatches mismatches("uaddCarry/usubBorrow/umulExtended");
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint a = static_cast<uint>(random.integer());
    const uint b = static_cast<uint>(random.integer());
    uint carry = 9u;
    const uint64_t sum = uint64_t{a} + b;
    NUMERICS_CHECK(mismatches, device::uaddCarry(a, b, carry) == static_cast<uint>(sum) && carry == (sum >> 32),
                   "uaddCarry " + hex32(a) + ", " + hex32(b));
    uint borrow = 9u;
    NUMERICS_CHECK(mismatches, device::usubBorrow(a, b, borrow) == a - b && borrow == (a < b ? 1u : 0u),
                   "usubBorrow " + hex32(a) + ", " + hex32(b));
    uint msb = 0u;
    uint lsb = 0u;
    device::umulExtended(a, b, msb, lsb);
    NUMERICS_CHECK(mismatches, ((uint64_t{msb} << 32) | lsb) == uint64_t{a} * b,
                   "umulExtended " + hex32(a) + ", " + hex32(b));
  }
}

TEST(NumericsPrelude, BitQueries) {
  EXPECT_EQ(device::findMSB(0u), -1);
  EXPECT_EQ(device::findLSB(0u), -1);
  Mismatches mismatches("findMSB/findLSB/bitCount/bitfieldReverse");
  for (int bit = 0; bit < 32; ++bit) {
    const uint one = 1u << bit;
    NUMERICS_CHECK(mismatches, device::findMSB(one) == bit && device::findMSB(one | (one - 1u)) == bit,
                   "findMSB bit " + std::to_string(bit));
    NUMERICS_CHECK(mismatches, device::findLSB(one) == bit && device::findLSB(~(one - 1u)) == bit,
                   "findLSB bit " + std::to_string(bit));
    NUMERICS_CHECK(mismatches, device::bitfieldReverse(one) == 1u << (31 - bit), "reverse bit " + std::to_string(bit));
  }
  RandomFloats random(test_seed());
  for (int i = 0; i < kRandomCases; ++i) {
    const uint v = random.bits32();
    int count = 0;
    for (int bit = 0; bit < 32; ++bit) count += static_cast<int>((v >> bit) & 1u);
    NUMERICS_CHECK(mismatches, device::bitCount(v) == count, "bitCount " + hex32(v));
    NUMERICS_CHECK(mismatches, device::bitfieldReverse(device::bitfieldReverse(v)) == v, "reverse twice " + hex32(v));
  }
}

// Every (offset, bits) pair GLSL defines, against 64-bit masks (no shift-by-32 special case).
TEST(NumericsPrelude, BitfieldExtractAndInsert) {
  Mismatches mismatches("bitfieldExtract/bitfieldInsert");
  RandomFloats random(test_seed());
  for (int offset = 0; offset <= 32; ++offset) {
    for (int bits = 0; offset + bits <= 32; ++bits) {
      for (int i = 0; i < 64; ++i) {
        const uint value = random.bits32();
        const uint insert = random.bits32();
        const uint64_t mask = (uint64_t{1} << bits) - 1;
        const auto field = static_cast<uint>((uint64_t{value} >> offset) & mask);
        const bool negative = bits > 0 && ((field >> (bits - 1)) & 1u) != 0u;
        const uint sign_extended = negative ? static_cast<uint>(field | ~mask) : field;
        const auto inserted =
            static_cast<uint>((uint64_t{value} & ~(mask << offset)) | ((uint64_t{insert} & mask) << offset));
        const std::string where = hex32(value) + " offset " + std::to_string(offset) + " bits " + std::to_string(bits);
        NUMERICS_CHECK(mismatches, device::bitfieldExtract(value, offset, bits) == field, "extract " + where);
        NUMERICS_CHECK(
            mismatches,
            std::bit_cast<uint>(device::bitfieldExtract(std::bit_cast<int>(value), offset, bits)) == sign_extended,
            "signed extract " + where);
        NUMERICS_CHECK(mismatches, device::bitfieldInsert(value, insert, offset, bits) == inserted, "insert " + where);
      }
    }
  }
}

TEST(NumericsPrelude, MinMaxClamp) {
  EXPECT_EQ(device::min(3u, 0xFFFFFFFFu), 3u);
  EXPECT_EQ(device::max(3u, 0xFFFFFFFFu), 0xFFFFFFFFu);
  EXPECT_EQ(device::min(3, -1), -1);
  EXPECT_EQ(device::max(3, -1), 3);
  EXPECT_EQ(device::clamp(7u, 2u, 5u), 5u);
  EXPECT_EQ(device::clamp(1u, 2u, 5u), 2u);
  EXPECT_EQ(device::clamp(-7, -5, 5), -5);
  EXPECT_EQ(device::clamp(3, -5, 5), 3);
  EXPECT_EQ(device::uvec4(1u, 2u, 3u, 4u), device::uvec4(1u, 2u, 3u, 4u));
  EXPECT_NE(device::uvec4(1u, 2u, 3u, 4u), device::uvec4(1u, 2u, 3u, 5u));
  EXPECT_NE(device::uvec2(1u, 2u), device::uvec2(2u, 1u));
}

}  // namespace
