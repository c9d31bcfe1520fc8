#include "decomp/pencil_layout.hpp"

#include <limits>
#include <string>

#include "decomp/error.hpp"

namespace wavestack::decomp {

PencilLayout make_layout(const Box& box, const std::array<int, 3>& order, const Int3& halo, const Int3& padding) {
  PencilLayout layout;
  layout.box = box;
  layout.order = order;
  layout.halo = halo;
  layout.padding = padding;
  // cudecompPencilInfo_t reports extents as int32 and the size as int64: a layout that does not
  // fit them is refused here rather than reported with wrapped, negative numbers.
  constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();
  for (int dim = 0; dim < 3; ++dim) {
    // halo and padding come from int32 arguments, so this sum cannot overflow int64.
    layout.extent[dim] = box.count[dim] + 2 * halo[dim] + padding[dim];
    if (layout.extent[dim] > kMaxExtent) {
      invalid_argument("halo_extents/padding", "the pencil extent along dim " + std::to_string(dim) + " (" +
                                                   std::to_string(layout.extent[dim]) + ") exceeds INT32_MAX");
    }
  }
  int64_t stride = 1;
  for (int position = 0; position < 3; ++position) {
    layout.stride[order[position]] = stride;
    if (__builtin_mul_overflow(stride, layout.extent[order[position]], &stride)) {
      invalid_argument("gdims", "the pencil holds more than INT64_MAX elements");
    }
  }
  layout.size = stride;
  return layout;
}

cudecompPencilInfo_t PencilLayout::info() const {
  cudecompPencilInfo_t info{};
  info.struct_size = static_cast<int64_t>(sizeof(info));
  info.magic = CUDECOMP_PENCIL_INFO_MAGIC;
  info.version = CUDECOMP_PENCIL_INFO_VERSION;
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
