#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "runtime/checksum64.hpp"
#include "runtime/sha256.hpp"
#include "runtime/sha256_blocks.hpp"

using wavestack::runtime::Sha256;
using wavestack::runtime::sha256_hex;

// Reference digests from FIPS 180-4's examples and the NIST test vectors.
TEST(Sha256, MatchesPublishedVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesEqualOneShot) {
  const std::string text = "The quick brown fox jumps over the lazy dog, many times over, across block edges.";
  for (size_t split = 0; split <= text.size(); ++split) {
    Sha256 hash;
    hash.update(std::string_view(text).substr(0, split));
    hash.update(std::string_view(text).substr(split));
    EXPECT_EQ(hash.hex_digest(), sha256_hex(text)) << "split at " << split;
  }
}

// The x86 SHA extensions' blocks give the portable function's state, block after block, from
// random states and data (where the processor lacks them, the call says so and changes nothing).
TEST(Sha256, HardwareBlocksEqualPortableBlocks) {
  std::mt19937 random(20261206);
  for (std::size_t count : {1, 2, 3, 7, 64}) {
    std::vector<std::uint8_t> data(64 * count);
    for (std::uint8_t& byte : data) byte = static_cast<std::uint8_t>(random());
    std::array<std::uint32_t, 8> portable{};
    for (std::uint32_t& word : portable) word = static_cast<std::uint32_t>(random());
    std::array<std::uint32_t, 8> hardware = portable;
    const std::array<std::uint32_t, 8> before = portable;
    wavestack::runtime::sha256_blocks_portable(portable, data.data(), count);
    if (wavestack::runtime::sha256_blocks_x86(hardware, data.data(), count)) {
      EXPECT_EQ(hardware, portable) << count << " blocks";
    } else {
      EXPECT_EQ(hardware, before);
    }
  }
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  EXPECT_NE(Sha256().update_field("ab").update_field("c").hex_digest(),
            Sha256().update_field("a").update_field("bc").hex_digest());
}

// The disk cache's entry checksum is the XXH64 algorithm (seed 0): its published values, and
// inputs that take every path (under 32 bytes, stripes, an 8-byte tail, a 4-byte tail, bytes).
TEST(Checksum64, MatchesXxh64) {
  auto of = [](const std::string& text) {
    return wavestack::runtime::checksum64(std::as_bytes(std::span(text.data(), text.size())));
  };
  EXPECT_EQ(of(""), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(of("a"), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(of("abc"), 0x44BC2CF5AD770999ULL);
  std::string bytes;
  for (int repeat = 0; repeat < 3; ++repeat) {
    for (int k = 0; k < 200; ++k) bytes.push_back(static_cast<char>(k));
  }
  EXPECT_EQ(of(bytes), 0x427ADDC3FC459A2BULL);
  EXPECT_EQ(of("0123456789abcdef0123456789abcdefxyz"), 0xE83667402AFE0154ULL);
}
