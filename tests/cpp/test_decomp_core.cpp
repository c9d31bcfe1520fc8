// The decomposition core without MPI: splits, process grids, layouts, block copies and
// transpose plans, each against an independent reference (plain loops over indices).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <set>
#include <tuple>
#include <vector>

#include "decomp/block_copy.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "decomp/geometry.hpp"
#include "decomp/pencil_layout.hpp"
#include "decomp/transpose_plan.hpp"

namespace wavestack::decomp {
namespace {

TEST(DecompGeometry, SplitGivesRemaindersToTheLowestParts) {
  // 10 over 4: 3, 3, 2, 2.
  const int64_t expected_count[] = {3, 3, 2, 2};
  const int64_t expected_start[] = {0, 3, 6, 8};
  for (int part = 0; part < 4; ++part) {
    const Range range = split_range(10, 10, 4, part);
    EXPECT_EQ(range.start, expected_start[part]);
    EXPECT_EQ(range.count, expected_count[part]);
  }
  // gdims_dist 8 of 11 over 3: 3, 3, 2 + the 3 extra on the last part.
  EXPECT_EQ(split_range(11, 8, 3, 2).start, 6);
  EXPECT_EQ(split_range(11, 8, 3, 2).count, 5);
  // More parts than elements: empty parts at the end.
  EXPECT_EQ(split_range(2, 2, 4, 3).count, 0);
}

TEST(DecompGeometry, PencilsAreSplitAsCuDecompDocuments) {
  EXPECT_EQ(splitting_grid_dim(0, 0), -1);
  EXPECT_EQ(splitting_grid_dim(0, 1), 0);
  EXPECT_EQ(splitting_grid_dim(0, 2), 1);
  EXPECT_EQ(splitting_grid_dim(1, 0), 0);
  EXPECT_EQ(splitting_grid_dim(1, 2), 1);
  EXPECT_EQ(splitting_grid_dim(2, 0), 0);
  EXPECT_EQ(splitting_grid_dim(2, 1), 1);
}

TEST(DecompGeometry, RankOrders) {
  ProcessGrid grid;
  grid.pdims = {2, 3};
  grid.order = CUDECOMP_RANK_ORDER_ROW_MAJOR;
  EXPECT_EQ(grid.coords(4), (std::array<int, 2>{1, 1}));
  EXPECT_EQ(grid.coords(2), (std::array<int, 2>{0, 2}));
  grid.order = CUDECOMP_RANK_ORDER_COL_MAJOR;
  EXPECT_EQ(grid.coords(4), (std::array<int, 2>{0, 2}));
  EXPECT_EQ(grid.coords(1), (std::array<int, 2>{1, 0}));
  for (int rank = 0; rank < 6; ++rank) EXPECT_EQ(grid.rank_of(grid.coords(rank)), rank);
}

TEST(DecompLayout, StridesAndInfoFollowTheMemoryOrder) {
  Box box;
  box.lo = {2, 0, 5};
  box.count = {4, 6, 3};
  // Y fastest, then Z, then X; halos (1, 0, 2), padding (0, 3, 1).
  const PencilLayout layout = make_layout(box, {1, 2, 0}, {1, 0, 2}, {0, 3, 1});
  EXPECT_EQ(layout.extent, (Int3{6, 9, 8}));
  EXPECT_EQ(layout.stride, (Int3{72, 1, 9}));
  EXPECT_EQ(layout.size, 6 * 9 * 8);
  const cudecompPencilInfo_t info = layout.info();
  EXPECT_EQ(info.shape[0], 9);
  EXPECT_EQ(info.shape[1], 8);
  EXPECT_EQ(info.shape[2], 6);
  EXPECT_EQ(info.lo[1], 5);
  EXPECT_EQ(info.hi[1], 7);
  EXPECT_EQ(info.order[2], 0);
  EXPECT_EQ(info.halo_extents[2], 2);
  EXPECT_EQ(info.padding[1], 3);
  EXPECT_EQ(layout.offset(layout.local_index({2, 0, 5})), 1 * 72 + 0 + 2 * 9);
}

TEST(DecompLayout, DefaultAndContiguousOrders) {
  cudecompGridDescConfig_t config = default_config();
  EXPECT_EQ(memory_order(config, 1), (std::array<int, 3>{0, 1, 2}));
  config.transpose_axis_contiguous[1] = true;
  config.transpose_axis_contiguous[2] = true;
  EXPECT_EQ(memory_order(config, 1), (std::array<int, 3>{1, 2, 0}));
  EXPECT_EQ(memory_order(config, 2), (std::array<int, 3>{2, 0, 1}));
  config.transpose_mem_order[2][0] = 1;
  config.transpose_mem_order[2][1] = 0;
  config.transpose_mem_order[2][2] = 2;
  EXPECT_EQ(memory_order(config, 2), (std::array<int, 3>{1, 0, 2}));
}

TEST(DecompBlockCopy, MatchesAnIndexLoopForEveryElementSizeAndOrder) {
  const Int3 count{5, 4, 3};
  const std::array<std::array<int, 3>, 3> orders = {{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}}};
  for (size_t elem : {size_t{4}, size_t{8}, size_t{16}}) {
    for (const auto& src_order : orders) {
      for (const auto& dst_order : orders) {
        Box box;
        box.count = {7, 6, 5};  // a larger buffer; the block starts at (1, 2, 1)
        const PencilLayout src = make_layout(box, src_order, {0, 0, 0}, {0, 0, 0});
        const PencilLayout dst = make_layout(box, dst_order, {0, 0, 0}, {1, 0, 0});
        std::vector<uint32_t> in(static_cast<size_t>(src.size) * elem / 4),
            out(static_cast<size_t>(dst.size) * elem / 4, 0);
        std::iota(in.begin(), in.end(), 1u);
        const Int3 start{1, 2, 1};
        copy_block(in.data(), src.offset(start), out.data(), dst.offset(start), elem, {count, src.stride, dst.stride});
        const size_t words = elem / 4;
        for (int64_t z = 0; z < box.count[2]; ++z) {
          for (int64_t y = 0; y < box.count[1]; ++y) {
            for (int64_t x = 0; x < box.count[0]; ++x) {
              const bool inside =
                  x >= 1 && x < 1 + count[0] && y >= 2 && y < 2 + count[1] && z >= 1 && z < 1 + count[2];
              for (size_t w = 0; w < words; ++w) {
                const uint32_t got = out[static_cast<size_t>(dst.offset({x, y, z})) * words + w];
                const uint32_t want = inside ? in[static_cast<size_t>(src.offset({x, y, z})) * words + w] : 0u;
                ASSERT_EQ(got, want) << "elem " << elem << " at " << x << "," << y << "," << z;
              }
            }
          }
        }
      }
    }
  }
  EXPECT_THROW(copy_block(nullptr, 0, nullptr, 0, 2, {count, {1, 5, 20}, {1, 5, 20}}), DecompError);
}

TEST(DecompTransposePlan, BlocksPartitionBothPencils) {
  const Int3 gdims{13, 11, 7};
  for (const auto& pdims : std::vector<std::array<int, 2>>{{1, 4}, {2, 2}, {4, 1}, {3, 2}, {2, 3}}) {
    ProcessGrid grid;
    grid.pdims = pdims;
    for (int op = 0; op < 4; ++op) {
      const auto transpose = static_cast<TransposeOp>(op);
      for (int rank = 0; rank < grid.size(); ++rank) {
        const auto coords = grid.coords(rank);
        const TransposePlan plan = make_transpose_plan(gdims, gdims, grid, coords, transpose);
        const Box in = pencil_box(gdims, gdims, grid, input_axis(transpose), coords);
        const Box out = pencil_box(gdims, gdims, grid, output_axis(transpose), coords);
        // Every element of the input is sent exactly once and every output element received once.
        std::multiset<std::tuple<int64_t, int64_t, int64_t>> sent, received;
        for (int peer = 0; peer < plan.group_size(); ++peer) {
          const Box& s = plan.send_boxes[peer];
          for (int64_t z = 0; z < s.count[2]; ++z)
            for (int64_t y = 0; y < s.count[1]; ++y)
              for (int64_t x = 0; x < s.count[0]; ++x) sent.insert({s.lo[0] + x, s.lo[1] + y, s.lo[2] + z});
          const Box& r = plan.recv_boxes[peer];
          for (int64_t z = 0; z < r.count[2]; ++z)
            for (int64_t y = 0; y < r.count[1]; ++y)
              for (int64_t x = 0; x < r.count[0]; ++x) received.insert({r.lo[0] + x, r.lo[1] + y, r.lo[2] + z});
        }
        EXPECT_EQ(static_cast<int64_t>(sent.size()), in.volume());
        EXPECT_EQ(static_cast<int64_t>(received.size()), out.volume());
        EXPECT_EQ(std::set(sent.begin(), sent.end()).size(), sent.size());
        EXPECT_EQ(std::set(received.begin(), received.end()).size(), received.size());
        EXPECT_EQ(plan.send_total, in.volume());
        EXPECT_EQ(plan.recv_total, out.volume());
      }
    }
  }
}

TEST(DecompConfig, ValidationNamesTheField) {
  cudecompGridDescConfig_t config = default_config();
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 8;
  config.pdims[0] = 2;
  config.pdims[1] = 0;
  try {
    validate_config(config);
    FAIL() << "expected a DecompError";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_INVALID_USAGE);
    EXPECT_EQ(std::string(error.what()).rfind("config.pdims:", 0), 0u);
  }
  config.pdims[1] = 2;
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL;
  try {
    validate_config(config);
    FAIL() << "expected a DecompError";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_NOT_SUPPORTED);
  }
}

}  // namespace
}  // namespace wavestack::decomp
