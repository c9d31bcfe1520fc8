// ChaCha20 and random_get: the RFC 8439 test vectors for the block function (2.3.2) and the
// keystream of the encryption example (2.4.2), and random_get's stream against keystreams
// computed independently (Python's `cryptography` package, ChaCha20 with the documented key,
// nonce (instance, 0, 0) and counter 0), whatever the instance count or the split into calls.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

#include "wasi_test_harness.hpp"

namespace wavestack::wasi_test {
namespace {

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t k = 0; k + 1 < hex.size(); k += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(k, 2)), nullptr, 16)));
  }
  return out;
}

dev::WasiChachaBlock rfc_key() {
  dev::WasiChachaBlock key{};
  for (uint k = 0; k < 8; ++k) {  // bytes 00 01 .. 1f, little-endian words
    key.w[k] = (4 * k) | ((4 * k + 1) << 8) | ((4 * k + 2) << 16) | ((4 * k + 3) << 24);
  }
  return key;
}

std::string serialize(const dev::WasiChachaBlock& block) {
  std::string out;
  for (uint k = 0; k < 64; ++k) out.push_back(static_cast<char>(dev::wasi_chacha_byte(block, k)));
  return out;
}

TEST(WasiChaCha20, Rfc8439BlockFunction) {
  // Section 2.3.2: nonce 00:00:00:09:00:00:00:4a:00:00:00:00, block count 1.
  const dev::WasiChachaBlock out = dev::wasi_chacha20_block(rfc_key(), 1u, 0x09000000u, 0x4a000000u, 0u);
  const std::array<uint, 16> expected = {0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
                                         0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
                                         0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  for (uint k = 0; k < 16; ++k) EXPECT_EQ(out.w[k], expected[k]) << "word " << k;
  EXPECT_EQ(serialize(out), from_hex("10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e"
                                     "d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"));
}

TEST(WasiChaCha20, Rfc8439EncryptionKeystream) {
  // Section 2.4.2: nonce 00:00:00:00:00:00:00:4a:00:00:00:00, initial counter 1.
  const std::string plaintext =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would "
      "be it.";
  const std::string ciphertext = from_hex(
      "6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0bf91b65c5524733ab8f593dabcd62b357163"
      "9d624e65152ab8f530c359f0861d807ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab77937365af90b"
      "bf74a35be6b40b8eedf2785e42874d");
  ASSERT_EQ(plaintext.size(), 114u);
  ASSERT_EQ(ciphertext.size(), 114u);
  std::string keystream;
  for (uint counter = 1; keystream.size() < plaintext.size(); ++counter) {
    keystream += serialize(dev::wasi_chacha20_block(rfc_key(), counter, 0u, 0x4a000000u, 0u));
  }
  for (std::size_t k = 0; k < plaintext.size(); ++k) {
    EXPECT_EQ(static_cast<char>(plaintext[k] ^ keystream[k]), ciphertext[k]) << "byte " << k;
  }
}

// random_get of `total` bytes in calls of `piece` bytes, each run with `budget`.
std::string random_stream(Guest& g, uint total, uint piece) {
  std::string out;
  while (out.size() < total) {
    const uint n = std::min<uint>(piece, total - static_cast<uint>(out.size()));
    EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_random_get(kData, n, b, p); }), 0u);
    out += g.get(kData, n);
  }
  return out;
}

TEST(WasiChaCha20, RandomGetIsTheDocumentedStream) {
  // Independent keystreams (Python cryptography): key word 0 = seed 5, nonce (3, 0, 0).
  const std::string seed5_instance3 = from_hex(
      "a33f0dfc9b70757c77d499cba5fca1e9ebaba09534d7e27e4f161eae0f92a196782acd200c920ccd9862f4d140983eee94"
      "fc00c1f273ad4079dfeb925e1e8fd975b85031cb571c9a468b8dfb4dc41d3ac39cccc43dd5fe49468766f4b7e96ede6bc2"
      "678a4b7ddaceed97ab6396b4ba3bdc3abca6cf87d9ae0a313a83eb74aa2f185a60ae5701f937f0aaf33017dcdcce6ed337"
      "b631727f96bb3c2c2ba728335d8d7200b5da8c3be543ef74d015555f604986559bd8c50767281633229f31e13beb5086a6"
      "5411f17e");
  wasm::WasiConfig config;
  config.seed = 5u;
  for (uint budget : {1u, 7u, 0xFFFFFFFFu}) {
    for (uint piece : {1u, 13u, 64u, 200u}) {
      Guest g(config, 65536, budget);
      wasm::set_wasi_instance(g.region, 3);
      EXPECT_EQ(random_stream(g, 200, piece), seed5_instance3) << "budget " << budget << " piece " << piece;
    }
  }
  // A 32-byte key: bytes 100..131 as RFC 8439 reads a key, instance 0.
  std::array<std::uint8_t, 32> key{};
  for (std::size_t k = 0; k < key.size(); ++k) key[k] = static_cast<std::uint8_t>(100 + k);
  config.seed = key;
  Guest g(config);
  EXPECT_EQ(random_stream(g, 130, 50),
            from_hex("cb4a8eff9a7d6cdd0e92e9ba827b0aafa9a73c5d53f26e2be18dfeb92622a270e0092c7b62040cb2050c7033"
                     "ce4cc15d4ef3da5c6c04210a1573f21b5905d04d18536b5773e80b426e7ce2922c98d56598b16be378a842deb8"
                     "a6f180147d0a5c981c49d2bd8df31c45386147675b64c74a0af0ffb61c2863f8f7998c2105402d689f"));
  // The default seed (1) for instance 7.
  Guest d(wasm::WasiConfig{});
  wasm::set_wasi_instance(d.region, 7);
  EXPECT_EQ(random_stream(d, 64, 64), from_hex("b475acabcfeca0a60d3bdb2bfead916a0b73a292fcdeb3530b3b91980be1ee97"
                                               "73b75cbe8c1d86961d4efbccac4ca9024618dbed1294eedd325ac0828f507b81"));
}

TEST(WasiChaCha20, InstancesHaveIndependentPersistentStreams) {
  wasm::WasiConfig config;
  config.seed = 42u;
  // Instance i's stream depends only on i: the same bytes whether or not other instances run,
  // and in any split of calls; different instances differ.
  std::vector<std::string> streams;
  for (uint instance = 0; instance < 4; ++instance) {
    Guest alone(config);
    wasm::set_wasi_instance(alone.region, instance);
    const std::string whole = random_stream(alone, 300, 300);
    Guest split(config, 65536, 5);
    wasm::set_wasi_instance(split.region, instance);
    EXPECT_EQ(random_stream(split, 300, 17), whole);
    // The position persists in the region (300 bytes used).
    EXPECT_EQ(split.region[dev::WASI_H_RANDOM_POS], 300u);
    for (const std::string& other : streams) EXPECT_NE(other, whole);
    streams.push_back(whole);
  }
  // Zero-length and out-of-bounds requests.
  Guest g(config);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_random_get(kData, 0, b, p); }), 0u);
  const auto before = g.region;
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_random_get(65530, 7, b, p); }), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_random_get(0xFFFFFFF0u, 0x20, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(g.region, before);
}

}  // namespace
}  // namespace wavestack::wasi_test
