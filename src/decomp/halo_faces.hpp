// The four faces of a halo update along one dimension of a pencil buffer: the two halos and the
// two interior slabs that fill the neighbours' halos. Faces span the other two dimensions' full
// allocated extent (their halos included), so X, Y and Z updates in turn fill edges and
// corners. Shared by the MPI halo updates (halo_exchange.cpp) and the NCCL one (cuda/).
#pragma once

#include <cstdint>

#include "decomp/block_copy.hpp"
#include "decomp/geometry.hpp"
#include "decomp/pencil_layout.hpp"

namespace wavestack::decomp {

// A region of the pencil buffer in allocated (halo-inclusive) indices, global axis order.
struct Region {
  Int3 start{0, 0, 0};
  Int3 count{0, 0, 0};
};

struct HaloFaces {
  Region lower_halo, lower_interior, upper_interior, upper_halo;
  int64_t volume = 0;  // elements of one face
};

inline HaloFaces halo_faces(const PencilLayout& layout, int dim) {
  HaloFaces faces;
  const int64_t h = layout.halo[dim];
  Region base;
  for (int d = 0; d < 3; ++d) base.count[d] = layout.box.count[d] + 2 * layout.halo[d];
  base.count[dim] = h;
  faces.lower_halo = faces.lower_interior = faces.upper_interior = faces.upper_halo = base;
  faces.lower_interior.start[dim] = h;
  faces.upper_interior.start[dim] = layout.box.count[dim];
  faces.upper_halo.start[dim] = layout.box.count[dim] + h;
  faces.volume = base.count[0] * base.count[1] * base.count[2];
  return faces;
}

// Copy of a region into a packed buffer (X fastest), and back.
inline StridedBlock region_to_packed(const PencilLayout& layout, const Region& region) {
  return {region.count, layout.stride, packed_strides(region.count)};
}
inline StridedBlock packed_to_region(const PencilLayout& layout, const Region& region) {
  return {region.count, packed_strides(region.count), layout.stride};
}

}  // namespace wavestack::decomp
