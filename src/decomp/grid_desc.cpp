#include "decomp/grid_desc.hpp"

#include <algorithm>
#include <string>

#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "decomp/group_split.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {
namespace {

void check_non_negative(const Int3& values, const char* argument) {
  for (int64_t value : values) {
    if (value < 0) invalid_argument(argument, "entries must be >= 0");
  }
}

void check_axis(int axis, const char* argument) {
  if (axis < 0 || axis > 2) invalid_argument(argument, "must be 0 (X), 1 (Y) or 2 (Z), got " + std::to_string(axis));
}

}  // namespace

GridDesc::GridDesc(const Handle& handle, const cudecompGridDescConfig_t& config) : handle_(handle), config_(config) {
  for (int dim = 0; dim < 3; ++dim) {
    gdims_[dim] = config.gdims[dim];
    gdims_dist_[dim] = config.gdims_dist[dim] == 0 ? config.gdims[dim] : config.gdims_dist[dim];
  }
  grid_.pdims = {config.pdims[0], config.pdims[1]};
  grid_.order = resolve_rank_order(config.rank_order);
  if (grid_.size() != handle.size()) {
    invalid_argument("config.pdims", "product " + std::to_string(grid_.size()) + " differs from the " +
                                         std::to_string(handle.size()) + " ranks of the communicator");
  }
  coords_ = grid_.coords(handle.rank());
  for (int g = 0; g < 2; ++g) {
    // The NCCL groups are split from the handle's NCCL communicator with the same colour and key.
    const GroupSplit split = group_split(grid_, handle.rank(), g);
    check_mpi(MPI_Comm_split(handle.comm(), split.color, split.key, &group_comms_[g]), "MPI_Comm_split");
    MPI_Comm_set_errhandler(group_comms_[g], MPI_ERRORS_RETURN);
  }
}

GridDesc::~GridDesc() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (auto& comm : group_comms_) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
}

NcclGroup GridDesc::nccl_group(int g) const {
  const GroupSplit split = group_split(grid_, handle_.rank(), g);
  return {handle_.comm(), &handle_.nccl_comm_cache(), group_comms_[g], split.color, split.key, &nccl_comms_[g]};
}

void GridDesc::set_config_backends(cudecompTransposeCommBackend_t transpose, cudecompHaloCommBackend_t halo) {
  config_.transpose_comm_backend = transpose;
  config_.halo_comm_backend = halo;
}

Box GridDesc::box(int axis, std::array<int, 2> coords) const {
  return pencil_box(gdims_, gdims_dist_, grid_, axis, coords);
}

bool GridDesc::any_pencil_empty() const {
  return leaves_a_pencil_empty(gdims_dist_, grid_.pdims);
}

PencilLayout GridDesc::layout(int axis, const Int3& halo, const Int3& padding) const {
  return make_layout(box(axis, coords_), memory_order(config_, axis), halo, padding);
}

int64_t GridDesc::largest_layout_size(int axis, const Int3& halo, const Int3& padding) const {
  int64_t largest = 0;
  for (int rank = 0; rank < grid_.size(); ++rank) {
    largest =
        std::max(largest, make_layout(box(axis, grid_.coords(rank)), memory_order(config_, axis), halo, padding).size);
  }
  return largest;
}

cudecompPencilInfo_t GridDesc::pencil_info(int axis, const Int3& halo, const Int3& padding) const {
  check_axis(axis, "axis");
  check_non_negative(halo, "halo_extents");
  check_non_negative(padding, "padding");
  return layout(axis, halo, padding).info();
}

int64_t GridDesc::transpose_workspace_size() const {
  // Send and receive areas of the largest transpose on any rank (halos never travel).
  int64_t largest = 0;
  for (int rank = 0; rank < grid_.size(); ++rank) {
    const auto c = grid_.coords(rank);
    // Built through make_layout so that a grid too large to count in int64 is refused.
    const auto volume = [&](int axis) { return make_layout(box(axis, c), {0, 1, 2}, {0, 0, 0}, {0, 0, 0}).size; };
    const int64_t x = volume(0), y = volume(1), z = volume(2);
    int64_t xy = 0, yz = 0;
    if (__builtin_add_overflow(x, y, &xy) || __builtin_add_overflow(y, z, &yz)) {
      invalid_argument("gdims", "the transpose workspace exceeds INT64_MAX elements");
    }
    largest = std::max({largest, xy, yz});
  }
  return largest;
}

int64_t GridDesc::halo_workspace_size(int axis, const Int3& halo) const {
  check_axis(axis, "axis");
  check_non_negative(halo, "halo_extents");
  // Two faces out and two in, for the largest face of any dimension on any rank.
  int64_t largest = 0;
  for (int rank = 0; rank < grid_.size(); ++rank) {
    const Box b = box(axis, grid_.coords(rank));
    for (int dim = 0; dim < 3; ++dim) {
      int64_t face = halo[dim];
      bool overflow = false;
      for (int other = 0; other < 3; ++other) {
        if (other != dim) overflow |= __builtin_mul_overflow(face, b.count[other] + 2 * halo[other], &face);
      }
      overflow |= __builtin_mul_overflow(face, int64_t{4}, &face);
      if (overflow) invalid_argument("halo_extents", "the halo workspace exceeds INT64_MAX elements");
      largest = std::max(largest, face);
    }
  }
  return largest;
}

int GridDesc::shifted_rank(int axis, int dim, int displacement, bool periodic) const {
  check_axis(axis, "axis");
  check_axis(dim, "dim");
  const int g = splitting_grid_dim(axis, dim);
  if (g < 0) {
    // The whole dimension is on this rank.
    return (periodic || displacement == 0) ? handle_.rank() : -1;
  }
  const int parts = grid_.pdims[g];
  int index = coords_[g] + displacement;
  if (periodic) {
    index = ((index % parts) + parts) % parts;
  } else if (index < 0 || index >= parts) {
    return -1;
  }
  auto c = coords_;
  c[g] = index;
  return grid_.rank_of(c);
}

bool GridDesc::is_noop(TransposeOp op, const TransposeArgs& args, const PencilLayout& in,
                       const PencilLayout& out) const {
  // In place on a group of one whose two pencils put every element at the same address.
  const TransposePlan plan = make_transpose_plan(gdims_, gdims_dist_, grid_, coords_, op);
  return plan.group_size() == 1 && args.input == args.output && in.stride == out.stride &&
         in.local_index(in.box.lo) == out.local_index(out.box.lo) && in.box.count == out.box.count;
}

bool GridDesc::transpose_needs_work(TransposeOp op, const TransposeArgs& args) const {
  const PencilLayout in = layout(input_axis(op), args.input_halo, args.input_padding);
  const PencilLayout out = layout(output_axis(op), args.output_halo, args.output_padding);
  if (is_noop(op, args, in, out)) return false;
  const int peers = grid_.pdims[(input_axis(op) == 2 || output_axis(op) == 2) ? 1 : 0];
  return peers > 1 || args.input == args.output;
}

void GridDesc::check_transpose(TransposeOp op, const TransposeArgs& args) const {
  data_type_size(args.dtype, "dtype");
  check_non_negative(args.input_halo, "input_halo_extents");
  check_non_negative(args.output_halo, "output_halo_extents");
  check_non_negative(args.input_padding, "input_padding");
  check_non_negative(args.output_padding, "output_padding");
  const PencilLayout in = layout(input_axis(op), args.input_halo, args.input_padding);
  const PencilLayout out = layout(output_axis(op), args.output_halo, args.output_padding);
  if (args.input == nullptr && in.size > 0) invalid_argument("input", "null pointer");
  if (args.output == nullptr && out.size > 0) invalid_argument("output", "null pointer");
  if (args.work == nullptr && transpose_workspace_size() > 0 && transpose_needs_work(op, args)) {
    invalid_argument("work", "null pointer; allocate cudecompGetTransposeWorkspaceSize elements");
  }
}

void GridDesc::check_halo(const HaloArgs& args) const {
  check_axis(args.axis, "axis");
  data_type_size(args.dtype, "dtype");
  check_axis(args.dim, "dim");
  check_non_negative(args.halo, "halo_extents");
  check_non_negative(args.padding, "padding");
  const int64_t h = args.halo[args.dim];
  if (h == 0) return;
  // Every rank that takes part must own at least h elements along dim to fill its neighbours.
  const int g = splitting_grid_dim(args.axis, args.dim);
  int64_t smallest = gdims_[args.dim];
  if (g >= 0) {
    for (int part = 0; part < grid_.pdims[g]; ++part) {
      smallest = std::min(smallest, split_range(gdims_[args.dim], gdims_dist_[args.dim], grid_.pdims[g], part).count);
    }
  }
  const bool exchanges = g >= 0 ? (grid_.pdims[g] > 1 || args.periods[args.dim]) : args.periods[args.dim];
  if (exchanges && h > smallest) {
    invalid_argument("halo_extents", "halo extent " + std::to_string(h) + " along dim " + std::to_string(args.dim) +
                                         " exceeds the smallest pencil extent " + std::to_string(smallest));
  }
  if (args.data == nullptr) invalid_argument("input", "null pointer");
  if (args.work == nullptr && exchanges && g >= 0 && grid_.pdims[g] > 1) {
    invalid_argument("work", "null pointer; allocate cudecompGetHaloWorkspaceSize elements");
  }
}

}  // namespace wavestack::decomp
