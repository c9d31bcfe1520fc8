// Plain geometry of a pencil decomposition: how one global axis is split over one process-grid
// dimension, and where a rank sits on the process grid. No MPI and no memory here, so the same
// answers serve the host and the CUDA builds and every rank can compute any other rank's share.
#pragma once

#include <array>
#include <cstdint>

#include "cudecomp.h"

namespace wavestack::decomp {

using Int3 = std::array<int64_t, 3>;

// The global index range [start, start + count) of one part of a split axis.
struct Range {
  int64_t start = 0;
  int64_t count = 0;
};

// Splits `dist` elements over `parts` parts, remainders to the lowest parts (cuDecomp's rule);
// the `total - dist` elements beyond the distributed grid (gdims_dist < gdims) go to the last part.
Range split_range(int64_t total, int64_t dist, int parts, int index);

// Whether `pdims` leave some rank an empty share of the distributed grid `gdims_dist`: more
// process rows than its X or Y extent, or more columns than its Y or Z extent (upstream's rule,
// which also counts a part that only the `gdims - gdims_dist` elements of the last part fill).
bool leaves_a_pencil_empty(const Int3& gdims_dist, std::array<int, 2> pdims);

// Which process-grid dimension splits global axis `dim` in the pencil aligned with `axis`:
// 0 (rows, pdims[0]), 1 (columns, pdims[1]), or -1 when `dim` is the pencil axis (not split).
// X-pencil [X, Y/Pr, Z/Pc], Y-pencil [X/Pr, Y, Z/Pc], Z-pencil [X/Pr, Y/Pc, Z].
int splitting_grid_dim(int axis, int dim);

// Rank order resolved against CUDECOMP_USE_COL_MAJOR_RANK_ORDER when it is DEFAULT.
cudecompRankOrder_t resolve_rank_order(cudecompRankOrder_t order);

struct ProcessGrid {
  std::array<int, 2> pdims{1, 1};
  cudecompRankOrder_t order = CUDECOMP_RANK_ORDER_ROW_MAJOR;  // resolved, never DEFAULT

  std::array<int, 2> coords(int rank) const;
  int rank_of(std::array<int, 2> coords) const;
  int size() const { return pdims[0] * pdims[1]; }
};

// The box of global indices owned by the pencil of `axis` on the process at `coords`
// (halos excluded).
struct Box {
  Int3 lo{0, 0, 0};
  Int3 count{0, 0, 0};
  int64_t volume() const { return count[0] * count[1] * count[2]; }
};

Box pencil_box(const Int3& gdims, const Int3& gdims_dist, const ProcessGrid& grid, int axis, std::array<int, 2> coords);

// Intersection of two boxes (empty box when they do not overlap).
Box intersect(const Box& a, const Box& b);

}  // namespace wavestack::decomp
