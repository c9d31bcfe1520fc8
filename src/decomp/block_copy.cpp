#include "decomp/block_copy.hpp"

#include <algorithm>
#include <cstring>

#include "decomp/block_mover.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

// An opaque element of N bytes: packing moves bits, never values.
template <size_t N>
struct Element {
  unsigned char bytes[N];
};

// Loops over the block in loop order (block_index.hpp: the axis of smallest destination stride
// innermost, so writes are sequential). Rows contiguous on both sides become one memcpy.
// Transposing copies whose innermost source stride is large are tiled so that reads and writes
// both stay in cache. All offsets come from the shared index functions the CUDA kernels use.
template <size_t N>
void copy_typed(const Element<N>* src, Element<N>* dst, const StridedBlock& block) {
  const BlockIndex b = to_loop_order(block);
  const int64_t n0 = b.count[0], n1 = b.count[1], n2 = b.count[2];
  if (rows_contiguous(b)) {
    const size_t run = static_cast<size_t>(n0) * N;
    for (int64_t k = 0; k < n2; ++k) {
      for (int64_t j = 0; j < n1; ++j) {
        const ElementOffsets row = row_offsets(b, j, k);
        std::memcpy(dst + row.dst, src + row.src, run);
      }
    }
    return;
  }
  // Tile the two innermost loops when the source is read with a large stride along axis 0 but
  // is contiguous along axis 1: a 2-D transpose in each plane.
  if (b.src_stride[1] == 1 && b.src_stride[0] != 1) {
    constexpr int64_t kTile = 32;
    for (int64_t k = 0; k < n2; ++k) {
      for (int64_t jj = 0; jj < n1; jj += kTile) {
        const int64_t j_end = std::min(n1, jj + kTile);
        for (int64_t ii = 0; ii < n0; ii += kTile) {
          const int64_t i_end = std::min(n0, ii + kTile);
          for (int64_t j = jj; j < j_end; ++j) {
            for (int64_t i = ii; i < i_end; ++i) {
              const ElementOffsets at = element_offsets(b, i, j, k);
              dst[at.dst] = src[at.src];
            }
          }
        }
      }
    }
    return;
  }
  for (int64_t k = 0; k < n2; ++k) {
    for (int64_t j = 0; j < n1; ++j) {
      const ElementOffsets row = row_offsets(b, j, k);
      const Element<N>* s = src + row.src;
      Element<N>* d = dst + row.dst;
      for (int64_t i = 0; i < n0; ++i) d[i * b.dst_stride[0]] = s[i * b.src_stride[0]];
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

BlockIndex to_loop_order(const StridedBlock& block) {
  return loop_order(block.count.data(), block.src_stride.data(), block.dst_stride.data());
}

namespace {

class HostMover final : public BlockMover {
 public:
  void copy(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
            const StridedBlock& block) const override {
    copy_block(src, src_offset, dst, dst_offset, element_bytes, block);
  }
  void before_communication() const override {}
  bool host_memory() const override { return true; }
};

}  // namespace

const BlockMover& host_mover() {
  static const HostMover mover;
  return mover;
}

Int3 packed_strides(const Int3& count) {
  return {1, count[0], count[0] * count[1]};
}

}  // namespace wavestack::decomp
