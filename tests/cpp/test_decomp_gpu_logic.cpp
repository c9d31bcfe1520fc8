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
#include <string>
#include <utility>
#include <vector>

#include "decomp/backend_support.hpp"
#include "decomp/block_copy.hpp"
#include "decomp/block_index.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/device_support.hpp"
#include "decomp/error.hpp"
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

TEST(DecompDeviceWorkspace, BytesAreRoundedToTheDeviceAlignment) {
  EXPECT_EQ(device_workspace_bytes(0, 8, "w"), 0);
  EXPECT_EQ(device_workspace_bytes(1, 4, "w"), 256);
  EXPECT_EQ(device_workspace_bytes(64, 4, "w"), 256);
  EXPECT_EQ(device_workspace_bytes(65, 4, "w"), 512);
  EXPECT_EQ(device_workspace_bytes(1000, 16, "w"), 16128);  // 16000 rounded up to 63 * 256
  EXPECT_EQ(device_recv_area_offset(3, 8), 256);
  try {
    device_workspace_bytes(int64_t{1} << 62, 16, "workspace_size");
    FAIL() << "overflow not detected";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_INVALID_USAGE);
    EXPECT_EQ(std::string(error.what()).rfind("workspace_size:", 0), 0u) << error.what();
  }
  EXPECT_THROW(device_workspace_bytes(-1, 8, "w"), DecompError);
}

TEST(DecompDeviceErrors, NameTheCallAndCarryTheResultCode) {
  const DecompError cuda = cuda_failure("cudaMalloc", "cudaErrorMemoryAllocation", "out of memory");
  EXPECT_EQ(cuda.code(), CUDECOMP_RESULT_CUDA_ERROR);
  EXPECT_STREQ(cuda.what(), "cudaMalloc failed: cudaErrorMemoryAllocation (out of memory)");
  const DecompError nccl = nccl_failure("ncclSend", "invalid argument");
  EXPECT_EQ(nccl.code(), CUDECOMP_RESULT_NCCL_ERROR);
  EXPECT_STREQ(nccl.what(), "ncclSend failed: invalid argument");
}

// The result code and message of check_*_backend, "" when accepted.
template <typename Check>
std::pair<cudecompResult_t, std::string> outcome(Check check) {
  try {
    check();
  } catch (const DecompError& error) {
    return {error.code(), error.what()};
  }
  return {CUDECOMP_RESULT_SUCCESS, ""};
}

TEST(DecompBackendSupport, CpuAndCudaBuildsOfferTheirBackends) {
  const BuildFeatures cpu{false}, gpu{true};
  EXPECT_EQ(transpose_backend_list(offered_transpose_backends(cpu)), "MPI_P2P, MPI_P2P_PL, MPI_A2A");
  EXPECT_EQ(transpose_backend_list(offered_transpose_backends(gpu)), "MPI_P2P, MPI_P2P_PL, MPI_A2A, NCCL, NCCL_PL");
  EXPECT_EQ(halo_backend_list(offered_halo_backends(cpu)), "MPI, MPI_BLOCKING");
  EXPECT_EQ(halo_backend_list(offered_halo_backends(gpu)), "MPI, MPI_BLOCKING, NCCL");

  for (const auto& build : {cpu, gpu}) {
    for (const auto backend : offered_transpose_backends(build)) {
      EXPECT_EQ(outcome([&] { check_transpose_backend(backend, "config.transpose_comm_backend", build); }).first,
                CUDECOMP_RESULT_SUCCESS);
    }
    // NVSHMEM: never built, always NOT_SUPPORTED with a message naming the field and why.
    for (const auto backend :
         {CUDECOMP_TRANSPOSE_COMM_NVSHMEM, CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL, CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM}) {
      const auto [code, message] =
          outcome([&] { check_transpose_backend(backend, "config.transpose_comm_backend", build); });
      EXPECT_EQ(code, CUDECOMP_RESULT_NOT_SUPPORTED);
      EXPECT_EQ(message.rfind("config.transpose_comm_backend: transpose backend NVSHMEM", 0), 0u) << message;
      EXPECT_NE(message.find("NVSHMEM backends are not implemented"), std::string::npos) << message;
    }
    for (const auto backend : {CUDECOMP_HALO_COMM_NVSHMEM, CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING}) {
      const auto [code, message] = outcome([&] { check_halo_backend(backend, "config.halo_comm_backend", build); });
      EXPECT_EQ(code, CUDECOMP_RESULT_NOT_SUPPORTED);
      EXPECT_NE(message.find("not supported in this build"), std::string::npos) << message;
    }
    const auto unknown =
        outcome([&] { check_transpose_backend(static_cast<cudecompTransposeCommBackend_t>(12), "backend", build); });
    EXPECT_EQ(unknown.first, CUDECOMP_RESULT_INVALID_USAGE);
    EXPECT_EQ(unknown.second, "backend: unknown transpose backend value 12");
  }
  const auto nccl_on_cpu =
      outcome([&] { check_halo_backend(CUDECOMP_HALO_COMM_NCCL, "config.halo_comm_backend", cpu); });
  EXPECT_EQ(nccl_on_cpu.first, CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_EQ(nccl_on_cpu.second,
            "config.halo_comm_backend: halo backend NCCL is not supported in this build (CPU-only: MPI, MPI_BLOCKING)");
  EXPECT_EQ(outcome([&] { check_halo_backend(CUDECOMP_HALO_COMM_NCCL, "h", gpu); }).first, CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(outcome([&] { check_transpose_backend(CUDECOMP_TRANSPOSE_COMM_NCCL_PL, "t", gpu); }).first,
            CUDECOMP_RESULT_SUCCESS);
  // The library's answer follows how it was compiled.
  EXPECT_EQ(this_build().cuda, device_backend_built());
}

}  // namespace
}  // namespace wavestack::decomp
