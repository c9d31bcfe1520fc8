// SHA-256 blocks with the x86 SHA extensions (SHA256RNDS2 does two rounds, SHA256MSG1 and
// SHA256MSG2 the message schedule), chosen at run time so that the build needs no -m flags.
#include "runtime/sha256_blocks.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define WAVESTACK_SHA_X86 1
#endif

namespace wavestack::runtime {

#if WAVESTACK_SHA_X86
namespace {

bool has_sha_extensions() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool ssse3 = (c & (1U << 9)) != 0;
  const bool sse41 = (c & (1U << 19)) != 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool sha = (b & (1U << 29)) != 0;
  return ssse3 && sse41 && sha;
}

__attribute__((target("sha,sse4.1,ssse3"))) void compress_x86(std::array<std::uint32_t, 8>& state,
                                                              const std::uint8_t* blocks, std::size_t count) {
  // Message words are big-endian: a byte swap within each 32-bit lane.
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  // SHA256RNDS2 keeps the state as ABEF and CDGH (A in the highest lane).
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data()));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state.data() + 4));
  const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);
  for (std::size_t block = 0; block < count; ++block) {
    const std::uint8_t* bytes = blocks + 64 * block;
    const __m128i abef_before = abef;
    const __m128i cdgh_before = cdgh;
    // The last four groups of four schedule words (a C array: std::array drops the vector
    // type's alignment attribute).
    __m128i words[4];
    for (unsigned group = 0; group < 16; ++group) {
      __m128i& current = words[group % 4];  // holds the words of group - 4 until replaced
      if (group < 4) {
        current = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16 * group)), swap);
      } else {
        const __m128i& minus3 = words[(group + 1) % 4];
        const __m128i& minus2 = words[(group + 2) % 4];
        const __m128i& minus1 = words[(group + 3) % 4];
        // W[t] = sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16], four at a time.
        const __m128i partial =
            _mm_add_epi32(_mm_sha256msg1_epu32(current, minus3), _mm_alignr_epi8(minus1, minus2, 4));
        current = _mm_sha256msg2_epu32(partial, minus1);
      }
      const __m128i message = _mm_add_epi32(
          current, _mm_loadu_si128(reinterpret_cast<const __m128i*>(kSha256RoundConstants.data() + 4 * group)));
      // Two rounds make the new ABEF from CDGH and ABEF, and the old ABEF is then the new
      // CDGH: so the registers trade roles twice per group of four rounds.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data()), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state.data() + 4), hgfe);
}

}  // namespace

bool sha256_blocks_x86(std::array<std::uint32_t, 8>& state, const std::uint8_t* blocks, std::size_t count) {
  static const bool available = has_sha_extensions();
  if (!available) return false;
  compress_x86(state, blocks, count);
  return true;
}

#else

bool sha256_blocks_x86(std::array<std::uint32_t, 8>& /*state*/, const std::uint8_t* /*blocks*/, std::size_t /*count*/) {
  return false;
}

#endif

}  // namespace wavestack::runtime
