#include "decomp/transpose_plan.hpp"

namespace wavestack::decomp {

int input_axis(TransposeOp op) {
  switch (op) {
    case TransposeOp::kXToY:
      return 0;
    case TransposeOp::kYToZ:
    case TransposeOp::kYToX:
      return 1;
    case TransposeOp::kZToY:
      return 2;
  }
  return 0;
}

int output_axis(TransposeOp op) {
  switch (op) {
    case TransposeOp::kXToY:
    case TransposeOp::kZToY:
      return 1;
    case TransposeOp::kYToZ:
      return 2;
    case TransposeOp::kYToX:
      return 0;
  }
  return 0;
}

const char* op_name(TransposeOp op) {
  static const char* names[] = {"XToY", "YToZ", "ZToY", "YToX"};
  return names[static_cast<int>(op)];
}

TransposePlan make_transpose_plan(const Int3& gdims, const Int3& gdims_dist, const ProcessGrid& grid,
                                  std::array<int, 2> coords, TransposeOp op) {
  const int in_axis = input_axis(op);
  const int out_axis = output_axis(op);
  TransposePlan plan;
  // X<->Y exchanges within a process-grid column (rows vary); Y<->Z within a row.
  plan.group_dim = (in_axis == 2 || out_axis == 2) ? 1 : 0;
  plan.self = coords[plan.group_dim];
  const int peers = grid.pdims[plan.group_dim];
  const Box mine_in = pencil_box(gdims, gdims_dist, grid, in_axis, coords);
  const Box mine_out = pencil_box(gdims, gdims_dist, grid, out_axis, coords);
  for (int peer = 0; peer < peers; ++peer) {
    auto peer_coords = coords;
    peer_coords[plan.group_dim] = peer;
    const Box send = intersect(mine_in, pencil_box(gdims, gdims_dist, grid, out_axis, peer_coords));
    const Box recv = intersect(pencil_box(gdims, gdims_dist, grid, in_axis, peer_coords), mine_out);
    plan.send_boxes.push_back(send);
    plan.recv_boxes.push_back(recv);
    plan.send_offsets.push_back(plan.send_total);
    plan.recv_offsets.push_back(plan.recv_total);
    plan.send_total += send.volume();
    plan.recv_total += recv.volume();
  }
  return plan;
}

}  // namespace wavestack::decomp
