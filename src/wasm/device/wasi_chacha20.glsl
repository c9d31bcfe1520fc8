// ChaCha20 for random_get (RFC 8439, section 2.3: the block function; 32-bit words, 20 rounds).
//
// The random stream of an instance is the ChaCha20 keystream
//   key     = the 8 key words in WASI_H_KEY. A 32-byte seed gives them as RFC 8439 reads a
//             key (bytes 4k..4k+3, little-endian, are word k); a u32 seed s gives
//             (s, 0, 0, 0, 0, 0, 0, 0).
//   nonce   = (instance index, 0, 0) as the three 32-bit nonce words (state words 13..15),
//             the instance index being WASI_H_INSTANCE.
//   counter = the stream position / 64 (state word 12; the stream repeats after 2^32 blocks,
//             256 GiB per instance).
// Byte p of the stream is byte p % 64 of the serialized block p / 64. The position
// (WASI_H_RANDOM_POS, u64) persists in the region, so an instance's stream does not depend on
// how many instances run, how they are batched, or how random_get calls split it.

struct WasiChachaBlock {
  uint w[16];
};

uint wasi_rotl32(uint x, uint n) { return (x << n) | (x >> (32u - n)); }

void wasi_chacha_quarter(INOUT(WasiChachaBlock) s, uint a, uint b, uint c, uint d) {
  s.w[a] += s.w[b];
  s.w[d] = wasi_rotl32(s.w[d] ^ s.w[a], 16u);
  s.w[c] += s.w[d];
  s.w[b] = wasi_rotl32(s.w[b] ^ s.w[c], 12u);
  s.w[a] += s.w[b];
  s.w[d] = wasi_rotl32(s.w[d] ^ s.w[a], 8u);
  s.w[c] += s.w[d];
  s.w[b] = wasi_rotl32(s.w[b] ^ s.w[c], 7u);
}

// The block function: the 16 output words for `key` (8 words in key.w[0..7]), `counter` and
// the nonce words n0, n1, n2. Serialize the words little-endian for the 64 keystream bytes.
WasiChachaBlock wasi_chacha20_block(WasiChachaBlock key, uint counter, uint n0, uint n1, uint n2) {
  WasiChachaBlock init;
  init.w[0] = 0x61707865u;  // "expand 32-byte k"
  init.w[1] = 0x3320646Eu;
  init.w[2] = 0x79622D32u;
  init.w[3] = 0x6B206574u;
  for (uint k = 0u; k < 8u; k++) init.w[4u + k] = key.w[k];
  init.w[12] = counter;
  init.w[13] = n0;
  init.w[14] = n1;
  init.w[15] = n2;
  WasiChachaBlock s = init;
  for (uint double_round = 0u; double_round < 10u; double_round++) {  // 10 double rounds: columns, then diagonals
    wasi_chacha_quarter(s, 0u, 4u, 8u, 12u);
    wasi_chacha_quarter(s, 1u, 5u, 9u, 13u);
    wasi_chacha_quarter(s, 2u, 6u, 10u, 14u);
    wasi_chacha_quarter(s, 3u, 7u, 11u, 15u);
    wasi_chacha_quarter(s, 0u, 5u, 10u, 15u);
    wasi_chacha_quarter(s, 1u, 6u, 11u, 12u);
    wasi_chacha_quarter(s, 2u, 7u, 8u, 13u);
    wasi_chacha_quarter(s, 3u, 4u, 9u, 14u);
  }
  for (uint k = 0u; k < 16u; k++) s.w[k] += init.w[k];
  return s;
}

// The keystream block of this instance's random stream that holds stream byte `position`.
WasiChachaBlock wasi_random_block(uvec2 position) {
  WasiChachaBlock key;
  for (uint k = 0u; k < 16u; k++) key.w[k] = k < 8u ? wasi_get(WASI_H_KEY + k) : 0u;
  uint counter = (position.x >> 6u) | (position.y << 26u);
  return wasi_chacha20_block(key, counter, wasi_get(WASI_H_INSTANCE), 0u, 0u);
}

uint wasi_chacha_byte(WasiChachaBlock b, uint k) { return (b.w[k >> 2u] >> ((k & 3u) * 8u)) & 0xFFu; }
