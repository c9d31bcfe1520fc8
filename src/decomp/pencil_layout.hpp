// Where each element of a pencil lives in its buffer: the owned box of global indices, the
// memory order (fastest axis first), symmetric halos and trailing padding. This is all the
// packing code needs to know about a buffer, on the host or on a GPU.
#pragma once

#include <array>
#include <cstdint>

#include "cudecomp.h"
#include "decomp/geometry.hpp"

namespace wavestack::decomp {

struct PencilLayout {
  Box box;                            // owned global indices, halos excluded
  std::array<int, 3> order{0, 1, 2};  // global axis at each local position, fastest first
  Int3 halo{0, 0, 0};                 // per global axis, elements on each side
  Int3 padding{0, 0, 0};              // per global axis, after the upper halo
  Int3 extent{0, 0, 0};               // allocated elements per global axis
  Int3 stride{0, 0, 0};               // element stride per global axis
  int64_t size = 0;                   // allocated elements

  // Element offset of allocated index `index` (halo-inclusive, global axis order).
  int64_t offset(const Int3& index) const { return index[0] * stride[0] + index[1] * stride[1] + index[2] * stride[2]; }
  // Allocated index of global coordinate `global` (which may lie in a halo).
  Int3 local_index(const Int3& global) const {
    return {global[0] - box.lo[0] + halo[0], global[1] - box.lo[1] + halo[1], global[2] - box.lo[2] + halo[2]};
  }
  cudecompPencilInfo_t info() const;
};

PencilLayout make_layout(const Box& box, const std::array<int, 3>& order, const Int3& halo, const Int3& padding);

// Memory order of the pencil of `axis` from the configuration: transpose_mem_order when set for
// that axis, else the pencil axis first when transpose_axis_contiguous is set (X: XYZ, Y: YZX,
// Z: ZXY), else XYZ.
std::array<int, 3> memory_order(const cudecompGridDescConfig_t& config, int axis);

}  // namespace wavestack::decomp
