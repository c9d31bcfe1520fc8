// The host-side logic of cudecomp's CUDA build, run on the CPU: the shared index arithmetic of
// block copies (block_index.hpp), the kernel's launch geometry, and the copy kernel's loop
// emulated thread by thread. References are independent: loops over global indices.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <vector>

#include "decomp/block_copy.hpp"
#include "decomp/block_index.hpp"
#include "decomp/launch_geometry.hpp"
#include "decomp/pencil_layout.hpp"

namespace wavestack::decomp {
namespace {

TEST(DecompBlockIndex, LoopOrderSortsByDestinationStrideAndKeepsTies) {
  const int64_t count[3] = {2, 3, 4};
  const int64_t src[3] = {1, 2, 6};
  const int64_t dst[3] = {12, 1, 3};  // Y fastest, then Z, then X
  const BlockIndex b = loop_order(count, src, dst);
  EXPECT_EQ((std::array<int64_t, 3>{b.count[0], b.count[1], b.count[2]}), (std::array<int64_t, 3>{3, 4, 2}));
  EXPECT_EQ((std::array<int64_t, 3>{b.src_stride[0], b.src_stride[1], b.src_stride[2]}),
            (std::array<int64_t, 3>{2, 6, 1}));
  EXPECT_EQ((std::array<int64_t, 3>{b.dst_stride[0], b.dst_stride[1], b.dst_stride[2]}),
            (std::array<int64_t, 3>{1, 3, 12}));
  // Equal destination strides (a block one element thick) keep X, Y, Z order.
  const int64_t flat[3] = {1, 1, 1};
  const BlockIndex t = loop_order(count, src, flat);
  EXPECT_EQ(t.count[0], 2);
  EXPECT_EQ(t.count[1], 3);
  EXPECT_EQ(t.count[2], 4);
  EXPECT_EQ(block_volume(t), 24);
}

// Every (source, destination) offset pair of a block, from a loop over global indices.
std::map<int64_t, int64_t> reference_pairs(const StridedBlock& s) {
  std::map<int64_t, int64_t> pairs;  // destination -> source
  for (int64_t z = 0; z < s.count[2]; ++z) {
    for (int64_t y = 0; y < s.count[1]; ++y) {
      for (int64_t x = 0; x < s.count[0]; ++x) {
        pairs[x * s.dst_stride[0] + y * s.dst_stride[1] + z * s.dst_stride[2]] =
            x * s.src_stride[0] + y * s.src_stride[1] + z * s.src_stride[2];
      }
    }
  }
  return pairs;
}

// The layouts of the host build (every memory order, halos, padding) as pack, unpack and
// pencil-to-pencil blocks.
std::vector<StridedBlock> sample_blocks() {
  std::vector<StridedBlock> blocks;
  const std::array<std::array<int, 3>, 4> orders = {{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {2, 1, 0}}};
  const Int3 count{5, 3, 4};
  for (const auto& a : orders) {
    for (const auto& b : orders) {
      Box box;
      box.count = {6, 4, 5};
      const PencilLayout src = make_layout(box, a, {1, 0, 2}, {0, 1, 0});
      const PencilLayout dst = make_layout(box, b, {0, 2, 0}, {2, 0, 1});
      blocks.push_back({count, src.stride, dst.stride});
      blocks.push_back({count, src.stride, packed_strides(count)});
      blocks.push_back({count, packed_strides(count), dst.stride});
    }
  }
  return blocks;
}

TEST(DecompBlockIndex, LinearOffsetsVisitEveryElementOnceInDestinationOrder) {
  for (const StridedBlock& s : sample_blocks()) {
    const BlockIndex b = to_loop_order(s);
    const auto want = reference_pairs(s);
    ASSERT_EQ(block_volume(b), static_cast<int64_t>(want.size()));
    std::map<int64_t, int64_t> got;
    int64_t previous_dst = -1;
    for (int64_t linear = 0; linear < block_volume(b); ++linear) {
      const ElementOffsets at = linear_offsets(b, linear);
      EXPECT_TRUE(got.emplace(at.dst, at.src).second) << "destination written twice: " << at.dst;
      // Loop axis 0 has the smallest destination stride: a row's destinations increase.
      if (linear % b.count[0] != 0) {
        EXPECT_GT(at.dst, previous_dst);
      }
      previous_dst = at.dst;
    }
    EXPECT_EQ(got, want);
  }
}

TEST(DecompLaunchGeometry, CoversSmallAndLargeBlocks) {
  EXPECT_EQ(copy_launch_geometry(int64_t{0}).grid, 0u);
  EXPECT_EQ(copy_launch_geometry(int64_t{-3}).grid, 0u);
  const LaunchGeometry one = copy_launch_geometry(int64_t{1});
  EXPECT_EQ(one.grid, 1u);
  EXPECT_EQ(one.threads, 32u);
  const LaunchGeometry small = copy_launch_geometry(int64_t{70});
  EXPECT_EQ(small.threads, 96u);  // three warps
  EXPECT_EQ(small.grid, 1u);
  const LaunchGeometry medium = copy_launch_geometry(int64_t{1000});
  EXPECT_EQ(medium.threads, 256u);
  EXPECT_EQ(medium.grid, 4u);
  // Huge blocks are capped and loop (grid stride).
  const LaunchGeometry huge = copy_launch_geometry(int64_t{1} << 40);
  EXPECT_EQ(huge.threads, 256u);
  EXPECT_EQ(huge.grid, static_cast<uint32_t>(kMaxCopyBlocks));
  // An empty block along any axis launches nothing, even when the product is positive.
  BlockIndex empty{{0, -1, -1}, {1, 1, 1}, {1, 1, 1}};
  EXPECT_EQ(copy_launch_geometry(empty).grid, 0u);
}

// The kernel of cuda/pack_kernels.cu, thread by thread: the same geometry, the same
// grid-stride loop and the same index functions, on host memory.
void emulate_copy_kernel(const uint64_t* src, uint64_t* dst, const BlockIndex& b, LaunchGeometry g) {
  const int64_t total = block_volume(b);
  const int64_t step = static_cast<int64_t>(g.grid) * g.threads;
  for (uint32_t block = 0; block < g.grid; ++block) {
    for (uint32_t thread = 0; thread < g.threads; ++thread) {
      for (int64_t linear = int64_t{block} * g.threads + thread; linear < total; linear += step) {
        const ElementOffsets at = linear_offsets(b, linear);
        dst[at.dst] = src[at.src];
      }
    }
  }
}

TEST(DecompBlockIndex, EmulatedKernelMatchesTheHostCopy) {
  for (const StridedBlock& s : sample_blocks()) {
    const auto pairs = reference_pairs(s);
    const int64_t dst_size = 1 + std::prev(pairs.end())->first;  // the map is ordered by destination
    int64_t src_size = 0;
    for (const auto& p : pairs) src_size = std::max(src_size, p.second + 1);
    std::vector<uint64_t> in(static_cast<size_t>(src_size + 3));
    std::iota(in.begin(), in.end(), uint64_t{100});
    std::vector<uint64_t> host(static_cast<size_t>(dst_size + 5), 0), kernel(host.size(), 0);
    copy_block(in.data(), 3, host.data(), 5, 8, s);
    const BlockIndex b = to_loop_order(s);
    emulate_copy_kernel(in.data() + 3, kernel.data() + 5, b, copy_launch_geometry(b));
    EXPECT_EQ(kernel, host);
    for (const auto& [d, from] : pairs) ASSERT_EQ(host[static_cast<size_t>(d + 5)], in[static_cast<size_t>(from + 3)]);
  }
}

}  // namespace
}  // namespace wavestack::decomp
