// The communication plan of one transpose: which block of global indices goes to and comes
// from each rank of the process-grid row or column that takes part. Pure geometry, computed the
// same way on every rank; the backends (transpose_backends.cpp) only execute it.
#pragma once

#include <cstdint>
#include <vector>

#include "decomp/geometry.hpp"

namespace wavestack::decomp {

enum class TransposeOp { kXToY = 0, kYToZ = 1, kZToY = 2, kYToX = 3 };

int input_axis(TransposeOp op);
int output_axis(TransposeOp op);
const char* op_name(TransposeOp op);

struct TransposePlan {
  int group_dim = 0;                        // process-grid dimension whose coordinate varies within the exchange group
  int self = 0;                             // this rank's index in the group
  std::vector<Box> send_boxes, recv_boxes;  // per group index
  std::vector<int64_t> send_offsets, recv_offsets;  // packed element offsets in the send/recv areas
  int64_t send_total = 0, recv_total = 0;           // elements

  int group_size() const { return static_cast<int>(send_boxes.size()); }
};

TransposePlan make_transpose_plan(const Int3& gdims, const Int3& gdims_dist, const ProcessGrid& grid,
                                  std::array<int, 2> coords, TransposeOp op);

}  // namespace wavestack::decomp
