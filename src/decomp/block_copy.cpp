#include "decomp/block_copy.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

// An opaque element of N bytes: packing moves bits, never values.
template <size_t N>
struct Element {
  unsigned char bytes[N];
};

// Loops over the block with the axis of smallest destination stride innermost (sequential
// writes). Runs that are contiguous on both sides become one memcpy. Transposing copies whose
// innermost source stride is large are tiled so that reads and writes both stay in cache.
template <size_t N>
void copy_typed(const Element<N>* src, Element<N>* dst, const StridedBlock& block) {
  std::array<int, 3> axes{0, 1, 2};
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) { return block.dst_stride[a] < block.dst_stride[b]; });
  const int a0 = axes[0], a1 = axes[1], a2 = axes[2];
  const int64_t n0 = block.count[a0], n1 = block.count[a1], n2 = block.count[a2];
  const int64_t s0 = block.src_stride[a0], s1 = block.src_stride[a1], s2 = block.src_stride[a2];
  const int64_t d0 = block.dst_stride[a0], d1 = block.dst_stride[a1], d2 = block.dst_stride[a2];
  if (s0 == 1 && d0 == 1) {
    const size_t run = static_cast<size_t>(n0) * N;
    for (int64_t k = 0; k < n2; ++k) {
      for (int64_t j = 0; j < n1; ++j) std::memcpy(dst + j * d1 + k * d2, src + j * s1 + k * s2, run);
    }
    return;
  }
  // Tile the two innermost loops when the source is read with a large stride along a0 but is
  // contiguous along a1: a 2-D transpose in each plane.
  if (s1 == 1 && s0 != 1) {
    constexpr int64_t kTile = 32;
    for (int64_t k = 0; k < n2; ++k) {
      const Element<N>* src_plane = src + k * s2;
      Element<N>* dst_plane = dst + k * d2;
      for (int64_t jj = 0; jj < n1; jj += kTile) {
        const int64_t j_end = std::min(n1, jj + kTile);
        for (int64_t ii = 0; ii < n0; ii += kTile) {
          const int64_t i_end = std::min(n0, ii + kTile);
          for (int64_t j = jj; j < j_end; ++j) {
            for (int64_t i = ii; i < i_end; ++i) dst_plane[i * d0 + j * d1] = src_plane[i * s0 + j * s1];
          }
        }
      }
    }
    return;
  }
  for (int64_t k = 0; k < n2; ++k) {
    for (int64_t j = 0; j < n1; ++j) {
      const Element<N>* s = src + j * s1 + k * s2;
      Element<N>* d = dst + j * d1 + k * d2;
      for (int64_t i = 0; i < n0; ++i) d[i * d0] = s[i * s0];
    }
  }
}

template <size_t N>
void copy_sized(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, const StridedBlock& block) {
  copy_typed<N>(static_cast<const Element<N>*>(src) + src_offset, static_cast<Element<N>*>(dst) + dst_offset, block);
}

}  // namespace

void copy_block(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                const StridedBlock& block) {
  if (block.count[0] <= 0 || block.count[1] <= 0 || block.count[2] <= 0) return;
  switch (element_bytes) {
    case 4:
      return copy_sized<4>(src, src_offset, dst, dst_offset, block);
    case 8:
      return copy_sized<8>(src, src_offset, dst, dst_offset, block);
    case 16:
      return copy_sized<16>(src, src_offset, dst, dst_offset, block);
    default:
      throw DecompError(CUDECOMP_RESULT_INTERNAL_ERROR, "copy_block: element size must be 4, 8 or 16 bytes");
  }
}

Int3 packed_strides(const Int3& count) {
  return {1, count[0], count[0] * count[1]};
}

}  // namespace wavestack::decomp
