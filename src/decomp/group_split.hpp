// How a grid's ranks form its row and column groups, as a colour and a key per rank: the MPI
// communicators (MPI_Comm_split) and the NCCL ones (ncclCommSplit of the handle's NCCL
// communicator) are split with the same numbers, so a rank's index in an NCCL group is its
// index in the matching MPI group. Plain C++ over ProcessGrid: unit-tested on the CPU.
#pragma once

#include <array>
#include <vector>

#include "decomp/geometry.hpp"

namespace wavestack::decomp {

struct GroupSplit {
  int color = 0;  // the ranks of one group share it: the coordinate in the other grid dimension
  int key = 0;    // the rank's index in its group: its coordinate along the group's dimension
};

// Group `g` (0: the ranks that share the column coordinate and differ in the row one, 1: the
// converse) of the handle rank `rank` on `grid`.
inline GroupSplit group_split(const ProcessGrid& grid, int rank, int g) {
  const std::array<int, 2> c = grid.coords(rank);
  return {c[1 - g], c[g]};
}

// The handle ranks of `rank`'s group `g`, in key order (position i has key i).
inline std::vector<int> group_members(const ProcessGrid& grid, int rank, int g) {
  std::array<int, 2> c = grid.coords(rank);
  std::vector<int> members;
  for (int i = 0; i < grid.pdims[g]; ++i) {
    c[g] = i;
    members.push_back(grid.rank_of(c));
  }
  return members;
}

}  // namespace wavestack::decomp
