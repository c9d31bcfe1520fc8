// LEB128 edge cases: the exact size and range rules of the binary format.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "wasm/decode/leb128.hpp"
#include "wasm/decode/utf8.hpp"

using wavestack::wasm::decode_signed_leb128;
using wavestack::wasm::decode_unsigned_leb128;
using wavestack::wasm::is_valid_utf8;
using wavestack::wasm::LebResult;
using wavestack::wasm::LebStatus;

namespace {

LebResult u(const std::vector<std::uint8_t>& bytes, unsigned bits) {
  return decode_unsigned_leb128(bytes.data(), bytes.size(), bits);
}
LebResult s(const std::vector<std::uint8_t>& bytes, unsigned bits) {
  return decode_signed_leb128(bytes.data(), bytes.size(), bits);
}

}  // namespace

TEST(WasmLeb128, UnsignedSmallAndNonMinimal) {
  EXPECT_EQ(u({0x00}, 32).value, 0U);
  EXPECT_EQ(u({0x7F}, 32).value, 127U);
  EXPECT_EQ(u({0xE5, 0x8E, 0x26}, 32).value, 624485U);
  // Non-minimal encodings are allowed while they fit in ceil(N/7) bytes.
  const LebResult padded = u({0x82, 0x80, 0x80, 0x80, 0x00}, 32);
  EXPECT_EQ(padded.status, LebStatus::kOk);
  EXPECT_EQ(padded.value, 2U);
  EXPECT_EQ(padded.length, 5U);
}

TEST(WasmLeb128, UnsignedLimits) {
  EXPECT_EQ(u({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 32).value, 0xFFFFFFFFU);
  // A sixth byte: too long. Bits above 32 in the fifth byte: too large.
  EXPECT_EQ(u({0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32).status, LebStatus::kTooLong);
  EXPECT_EQ(u({0x82, 0x80, 0x80, 0x80, 0x10}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(u({0x82, 0x80, 0x80, 0x80, 0x70}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(u({0x80, 0x80}, 32).status, LebStatus::kUnexpectedEnd);
  EXPECT_EQ(u({}, 32).status, LebStatus::kUnexpectedEnd);
  const std::vector<std::uint8_t> max64 = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  EXPECT_EQ(u(max64, 64).value, ~std::uint64_t{0});
  const std::vector<std::uint8_t> over64 = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x03};
  EXPECT_EQ(u(over64, 64).status, LebStatus::kTooLarge);
}

TEST(WasmLeb128, SignedValues) {
  EXPECT_EQ(static_cast<std::int64_t>(s({0x7F}, 32).value), -1);
  EXPECT_EQ(static_cast<std::int64_t>(s({0x40}, 32).value), -64);
  EXPECT_EQ(static_cast<std::int64_t>(s({0x3F}, 32).value), 63);
  EXPECT_EQ(static_cast<std::int64_t>(s({0xC0, 0xBB, 0x78}, 32).value), -123456);
  EXPECT_EQ(static_cast<std::int64_t>(s({0x80, 0x80, 0x80, 0x80, 0x78}, 32).value), INT32_MIN);
  EXPECT_EQ(static_cast<std::int64_t>(s({0xFF, 0xFF, 0xFF, 0xFF, 0x07}, 32).value), INT32_MAX);
  // Padded -1 is fine when the padding is sign bits.
  EXPECT_EQ(static_cast<std::int64_t>(s({0xFF, 0xFF, 0xFF, 0xFF, 0x7F}, 32).value), -1);
}

TEST(WasmLeb128, SignedUnusedBitsMustCopyTheSign) {
  // From the spec's binary tests: i32.const 0 and -1 with wrong unused bits.
  EXPECT_EQ(s({0x80, 0x80, 0x80, 0x80, 0x70}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(s({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(s({0x80, 0x80, 0x80, 0x80, 0x1F}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(s({0xFF, 0xFF, 0xFF, 0xFF, 0x4F}, 32).status, LebStatus::kTooLarge);
  EXPECT_EQ(s({0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 32).status, LebStatus::kTooLong);
  const std::vector<std::uint8_t> i64_zero_bad = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7E};
  EXPECT_EQ(s(i64_zero_bad, 64).status, LebStatus::kTooLarge);
  const std::vector<std::uint8_t> i64_minus_one = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  EXPECT_EQ(static_cast<std::int64_t>(s(i64_minus_one, 64).value), -1);
  const std::vector<std::uint8_t> i64_min = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F};
  EXPECT_EQ(static_cast<std::int64_t>(s(i64_min, 64).value), INT64_MIN);
}

TEST(WasmLeb128, Signed33ForBlockTypes) {
  // Type index 2^32 - 1 is representable in s33; 2^32 is not (it would need bit 33).
  EXPECT_EQ(s({0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, 33).value, 0xFFFFFFFFU);
  EXPECT_EQ(s({0x80, 0x80, 0x80, 0x80, 0x20}, 33).status, LebStatus::kTooLarge);
}

TEST(WasmUtf8, AcceptsWellFormedAndRejectsTheRest) {
  auto valid = [](const std::vector<std::uint8_t>& bytes) { return is_valid_utf8(bytes.data(), bytes.size()); };
  EXPECT_TRUE(valid({}));
  EXPECT_TRUE(valid({'a', 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80}));
  EXPECT_FALSE(valid({0x80}));                    // lone continuation byte
  EXPECT_FALSE(valid({0xC0, 0x80}));              // overlong NUL
  EXPECT_FALSE(valid({0xE0, 0x80, 0x80}));        // overlong
  EXPECT_FALSE(valid({0xED, 0xA0, 0x80}));        // surrogate U+D800
  EXPECT_FALSE(valid({0xF4, 0x90, 0x80, 0x80}));  // above U+10FFFF
  EXPECT_FALSE(valid({0xF8, 0x88, 0x80, 0x80, 0x80}));
  EXPECT_FALSE(valid({0xE2, 0x82}));  // truncated
}
