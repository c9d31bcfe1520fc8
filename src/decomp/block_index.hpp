// The index arithmetic of a strided 3-D block copy, shared by the host copy (block_copy.cpp)
// and the CUDA kernels (cuda/pack_kernels.cu). Every layout cudecomp supports (memory orders,
// transpose_axis_contiguous, halos, padding, packed messages) reduces to a block of counts with
// a source and a destination stride per axis plus two base offsets, so the host build's
// element-wise tests check the very functions the kernels run.
//
// Plain structs and C arrays only (no std::array, no exceptions): nvcc compiles this for the
// device without --expt-relaxed-constexpr, and a plain C++ compiler sees inline functions.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WAVESTACK_HOST_DEVICE __host__ __device__
#else
#define WAVESTACK_HOST_DEVICE
#endif

namespace wavestack::decomp {

// A block in loop order: axis 0 is the innermost loop (the one with the smallest destination
// stride, so writes are as sequential as the layout allows), axis 2 the outermost.
struct BlockIndex {
  int64_t count[3];
  int64_t src_stride[3];
  int64_t dst_stride[3];
};

// Source and destination element offsets of one element, relative to the bases.
struct ElementOffsets {
  int64_t src;
  int64_t dst;
};

WAVESTACK_HOST_DEVICE inline int64_t block_volume(const BlockIndex& b) {
  return b.count[0] * b.count[1] * b.count[2];
}

// Reorders the axes of a block given in global axis order (count/strides per X, Y, Z) into
// loop order: a stable sort by destination stride, so ties keep X before Y before Z.
WAVESTACK_HOST_DEVICE inline BlockIndex loop_order(const int64_t count[3], const int64_t src_stride[3],
                                                   const int64_t dst_stride[3]) {
  int axes[3] = {0, 1, 2};
  // Insertion sort of three entries; strict comparison keeps equal strides in axis order.
  for (int i = 1; i < 3; ++i) {
    for (int j = i; j > 0 && dst_stride[axes[j]] < dst_stride[axes[j - 1]]; --j) {
      const int t = axes[j];
      axes[j] = axes[j - 1];
      axes[j - 1] = t;
    }
  }
  BlockIndex b{};
  for (int i = 0; i < 3; ++i) {
    b.count[i] = count[axes[i]];
    b.src_stride[i] = src_stride[axes[i]];
    b.dst_stride[i] = dst_stride[axes[i]];
  }
  return b;
}

// Offsets of the first element of row (j, k): the row runs along loop axis 0.
WAVESTACK_HOST_DEVICE inline ElementOffsets row_offsets(const BlockIndex& b, int64_t j, int64_t k) {
  return {j * b.src_stride[1] + k * b.src_stride[2], j * b.dst_stride[1] + k * b.dst_stride[2]};
}

// Offsets of element (i, j, k) in loop order.
WAVESTACK_HOST_DEVICE inline ElementOffsets element_offsets(const BlockIndex& b, int64_t i, int64_t j, int64_t k) {
  const ElementOffsets row = row_offsets(b, j, k);
  return {row.src + i * b.src_stride[0], row.dst + i * b.dst_stride[0]};
}

// Offsets of the element at position `linear` of the loop order (axis 0 fastest), for a flat
// grid-stride loop over the block: consecutive threads get consecutive destinations whenever
// the destination is contiguous along axis 0.
WAVESTACK_HOST_DEVICE inline ElementOffsets linear_offsets(const BlockIndex& b, int64_t linear) {
  const int64_t i = linear % b.count[0];
  const int64_t rest = linear / b.count[0];
  return element_offsets(b, i, rest % b.count[1], rest / b.count[1]);
}

// Whether whole rows are contiguous on both sides (one memcpy per row on the host).
WAVESTACK_HOST_DEVICE inline bool rows_contiguous(const BlockIndex& b) {
  return b.src_stride[0] == 1 && b.dst_stride[0] == 1;
}

}  // namespace wavestack::decomp
