#include "decomp/geometry.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace wavestack::decomp {

Range split_range(int64_t total, int64_t dist, int parts, int index) {
  const int64_t base = dist / parts;
  const int64_t extra = dist % parts;
  Range range;
  range.start = index * base + std::min<int64_t>(index, extra);
  range.count = base + (index < extra ? 1 : 0);
  if (index == parts - 1) range.count += total - dist;
  return range;
}

bool leaves_a_pencil_empty(const Int3& gdims_dist, std::array<int, 2> pdims) {
  return pdims[0] > std::min(gdims_dist[0], gdims_dist[1]) || pdims[1] > std::min(gdims_dist[1], gdims_dist[2]);
}

int splitting_grid_dim(int axis, int dim) {
  if (dim == axis) return -1;
  // The lower of the two remaining axes is split by rows, the higher one by columns.
  const int first = axis == 0 ? 1 : 0;
  return dim == first ? 0 : 1;
}

cudecompRankOrder_t resolve_rank_order(cudecompRankOrder_t order) {
  if (order != CUDECOMP_RANK_ORDER_DEFAULT) return order;
  const char* value = std::getenv("CUDECOMP_USE_COL_MAJOR_RANK_ORDER");
  if (value != nullptr && std::string_view(value) == "1") return CUDECOMP_RANK_ORDER_COL_MAJOR;
  return CUDECOMP_RANK_ORDER_ROW_MAJOR;
}

std::array<int, 2> ProcessGrid::coords(int rank) const {
  if (order == CUDECOMP_RANK_ORDER_COL_MAJOR) return {rank % pdims[0], rank / pdims[0]};
  return {rank / pdims[1], rank % pdims[1]};
}

int ProcessGrid::rank_of(std::array<int, 2> c) const {
  if (order == CUDECOMP_RANK_ORDER_COL_MAJOR) return c[1] * pdims[0] + c[0];
  return c[0] * pdims[1] + c[1];
}

Box pencil_box(const Int3& gdims, const Int3& gdims_dist, const ProcessGrid& grid, int axis,
               std::array<int, 2> coords) {
  Box box;
  for (int dim = 0; dim < 3; ++dim) {
    const int grid_dim = splitting_grid_dim(axis, dim);
    if (grid_dim < 0) {
      box.lo[dim] = 0;
      box.count[dim] = gdims[dim];
    } else {
      const Range range = split_range(gdims[dim], gdims_dist[dim], grid.pdims[grid_dim], coords[grid_dim]);
      box.lo[dim] = range.start;
      box.count[dim] = range.count;
    }
  }
  return box;
}

Box intersect(const Box& a, const Box& b) {
  Box out;
  for (int dim = 0; dim < 3; ++dim) {
    const int64_t lo = std::max(a.lo[dim], b.lo[dim]);
    const int64_t hi = std::min(a.lo[dim] + a.count[dim], b.lo[dim] + b.count[dim]);
    out.lo[dim] = lo;
    out.count[dim] = std::max<int64_t>(0, hi - lo);
  }
  if (out.volume() == 0) out.count = {0, 0, 0};
  return out;
}

}  // namespace wavestack::decomp
