#include "decomp/pencil_layout.hpp"

namespace wavestack::decomp {

PencilLayout make_layout(const Box& box, const std::array<int, 3>& order, const Int3& halo, const Int3& padding) {
  PencilLayout layout;
  layout.box = box;
  layout.order = order;
  layout.halo = halo;
  layout.padding = padding;
  for (int dim = 0; dim < 3; ++dim) layout.extent[dim] = box.count[dim] + 2 * halo[dim] + padding[dim];
  int64_t stride = 1;
  for (int position = 0; position < 3; ++position) {
    layout.stride[order[position]] = stride;
    stride *= layout.extent[order[position]];
  }
  layout.size = stride;
  return layout;
}

cudecompPencilInfo_t PencilLayout::info() const {
  cudecompPencilInfo_t info{};
  for (int position = 0; position < 3; ++position) {
    const int dim = order[position];
    info.shape[position] = static_cast<int32_t>(extent[dim]);
    info.lo[position] = static_cast<int32_t>(box.lo[dim]);
    info.hi[position] = static_cast<int32_t>(box.lo[dim] + box.count[dim] - 1);
    info.order[position] = dim;
    info.halo_extents[position] = static_cast<int32_t>(halo[position]);
    info.padding[position] = static_cast<int32_t>(padding[position]);
  }
  info.size = size;
  return info;
}

std::array<int, 3> memory_order(const cudecompGridDescConfig_t& config, int axis) {
  if (config.transpose_mem_order[axis][0] >= 0) {
    return {config.transpose_mem_order[axis][0], config.transpose_mem_order[axis][1],
            config.transpose_mem_order[axis][2]};
  }
  if (config.transpose_axis_contiguous[axis]) return {axis, (axis + 1) % 3, (axis + 2) % 3};
  return {0, 1, 2};
}

}  // namespace wavestack::decomp
