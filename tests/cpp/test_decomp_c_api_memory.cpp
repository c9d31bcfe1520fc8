// cudecompMalloc, cudecompMallocHost (a wavestack extension) and cudecompFree on real ranks,
// part of decomp_c_api_tests (mpiexec, 1 and 4 ranks). Without a GPU, in the CPU-only build
// (device_dispatch_none.cpp) and in CI's CUDA build (cuda/device_dispatch.cpp, no device), both
// allocations are 64-byte aligned host memory; these tests check that, the argument checks, and
// that a transpose runs on the buffers. On a GPU, test_decomp_cuda_device.cpp checks the pinned
// and device memory.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cudecomp.h"
#include "decomp/device_dispatch.hpp"
#include "mpi_test_support.hpp"

namespace {

using wavestack::testing::world_size;

using Allocator = cudecompResult_t (*)(cudecompHandle_t, cudecompGridDesc_t, void**, size_t);

class DecompCApiMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudecompInit(&handle_, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
    cudecompGridDescConfig_t config{};
    ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
    config.gdims[0] = 9;
    config.gdims[1] = 7;
    config.gdims[2] = 5;
    config.pdims[0] = world_size() % 2 == 0 ? 2 : 1;
    config.pdims[1] = world_size() / config.pdims[0];
    ASSERT_EQ(cudecompGridDescCreate(handle_, &grid_, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(cudecompGridDescDestroy(handle_, grid_), CUDECOMP_RESULT_SUCCESS);
    EXPECT_EQ(cudecompFinalize(handle_), CUDECOMP_RESULT_SUCCESS);
  }

  // Without a device anywhere, both calls give host memory; on a GPU this file is not the test.
  static bool host_memory_expected() { return !wavestack::decomp::device_available(); }

  cudecompHandle_t handle_ = nullptr;
  cudecompGridDesc_t grid_ = nullptr;
};

// Every byte of `bytes` can be written and read back (a short allocation would corrupt the heap
// or read back wrong), and the start is 64-byte aligned.
void expect_usable_host_memory(void* buffer, size_t bytes, const char* what) {
  ASSERT_NE(buffer, nullptr) << what;
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer) % 64, 0u) << what;
  auto* data = static_cast<unsigned char*>(buffer);
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 7 + 3);
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i) wrong += data[i] != static_cast<unsigned char>(i * 7 + 3);
  EXPECT_EQ(wrong, 0u) << what;
}

TEST_F(DecompCApiMemory, MallocHostGivesAlignedWritableHostMemory) {
  ASSERT_TRUE(host_memory_expected()) << "this test runs where no rank sees a CUDA device";
  for (const size_t bytes : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 20}) {
    void* buffer = nullptr;
    ASSERT_EQ(cudecompMallocHost(handle_, grid_, &buffer, bytes), CUDECOMP_RESULT_SUCCESS)
        << cudecompGetLastErrorMessage();
    expect_usable_host_memory(buffer, bytes, "cudecompMallocHost");
    EXPECT_FALSE(wavestack::decomp::is_device_buffer(buffer));
    EXPECT_EQ(cudecompFree(handle_, grid_, buffer), CUDECOMP_RESULT_SUCCESS) << cudecompGetLastErrorMessage();
  }
}

TEST_F(DecompCApiMemory, MallocGivesTheSameHostMemoryWithoutADevice) {
  ASSERT_TRUE(host_memory_expected()) << "this test runs where no rank sees a CUDA device";
  void* buffer = nullptr;
  ASSERT_EQ(cudecompMalloc(handle_, grid_, &buffer, 4097), CUDECOMP_RESULT_SUCCESS);
  expect_usable_host_memory(buffer, 4097, "cudecompMalloc");
  EXPECT_EQ(cudecompFree(handle_, grid_, buffer), CUDECOMP_RESULT_SUCCESS);
}

TEST_F(DecompCApiMemory, NoPinnedOrDeviceMemoryWithoutADevice) {
  ASSERT_TRUE(host_memory_expected()) << "this test runs where no rank sees a CUDA device";
  // The dispatch's answer behind both calls: none, so the C API allocates host memory itself...
  EXPECT_EQ(wavestack::decomp::allocate_caller_pinned_memory(64), nullptr);
  EXPECT_EQ(wavestack::decomp::allocate_caller_device_memory(64), nullptr);
  // ...and gives it back to std::free, not to CUDA.
  std::vector<double> host(8);
  EXPECT_FALSE(wavestack::decomp::release_caller_cuda_memory(host.data()));
  EXPECT_FALSE(wavestack::decomp::release_caller_cuda_memory(nullptr));
}

TEST_F(DecompCApiMemory, AllocationsCheckTheirArgumentsAsCudecompMalloc) {
  const struct {
    Allocator allocate;
    const char* name;
  } allocators[] = {{cudecompMalloc, "cudecompMalloc"}, {cudecompMallocHost, "cudecompMallocHost"}};
  for (const auto& [allocate, name] : allocators) {
    const std::string prefix = std::string(name) + ": ";
    void* buffer = reinterpret_cast<void*>(std::uintptr_t{0x40});  // must stay untouched on failure
    EXPECT_EQ(allocate(handle_, grid_, &buffer, 0), CUDECOMP_RESULT_INVALID_USAGE) << name;
    EXPECT_EQ(std::string(cudecompGetLastErrorMessage()), prefix + "buffer_size_bytes: must be > 0");
    EXPECT_EQ(buffer, reinterpret_cast<void*>(std::uintptr_t{0x40})) << name;
    EXPECT_EQ(allocate(handle_, grid_, nullptr, 64), CUDECOMP_RESULT_INVALID_USAGE) << name;
    EXPECT_EQ(std::string(cudecompGetLastErrorMessage()), prefix + "buffer: null pointer");
    EXPECT_EQ(allocate(nullptr, grid_, &buffer, 64), CUDECOMP_RESULT_INVALID_USAGE) << name;
    EXPECT_EQ(std::string(cudecompGetLastErrorMessage()).rfind(prefix + "handle: ", 0), 0u)
        << cudecompGetLastErrorMessage();
    EXPECT_EQ(allocate(handle_, nullptr, &buffer, 64), CUDECOMP_RESULT_INVALID_USAGE) << name;
    EXPECT_EQ(std::string(cudecompGetLastErrorMessage()).rfind(prefix + "grid_desc: ", 0), 0u)
        << cudecompGetLastErrorMessage();
    EXPECT_EQ(buffer, reinterpret_cast<void*>(std::uintptr_t{0x40})) << name;
  }
}

TEST_F(DecompCApiMemory, FreeReleasesEitherKindAndAcceptsNull) {
  // Many rounds of both kinds, interleaved: freeing one kind the other's way would crash or,
  // under the sanitizers, report.
  for (int round = 0; round < 200; ++round) {
    void* plain = nullptr;
    void* pinned = nullptr;
    ASSERT_EQ(cudecompMalloc(handle_, grid_, &plain, 256 + static_cast<size_t>(round)), CUDECOMP_RESULT_SUCCESS);
    ASSERT_EQ(cudecompMallocHost(handle_, grid_, &pinned, 512 + static_cast<size_t>(round)), CUDECOMP_RESULT_SUCCESS);
    ASSERT_EQ(cudecompFree(handle_, grid_, pinned), CUDECOMP_RESULT_SUCCESS);
    ASSERT_EQ(cudecompFree(handle_, grid_, plain), CUDECOMP_RESULT_SUCCESS);
  }
  EXPECT_EQ(cudecompFree(handle_, grid_, nullptr), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFree(nullptr, grid_, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

// Pinned memory is host memory to the library: a transpose between two cudecompMallocHost
// buffers, with a cudecompMallocHost workspace, takes the host path and moves every element.
TEST_F(DecompCApiMemory, TransposeRunsOnMallocHostBuffers) {
  cudecompPencilInfo_t x{}, y{};
  ASSERT_EQ(cudecompGetPencilInfo(handle_, grid_, &x, 0, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompGetPencilInfo(handle_, grid_, &y, 1, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
  int64_t work_elements = 0;
  ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle_, grid_, &work_elements), CUDECOMP_RESULT_SUCCESS);
  void* input = nullptr;
  void* output = nullptr;
  void* work = nullptr;
  const auto bytes = [](int64_t elements) { return static_cast<size_t>(elements > 0 ? elements : 1) * sizeof(double); };
  ASSERT_EQ(cudecompMallocHost(handle_, grid_, &input, bytes(x.size)), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompMallocHost(handle_, grid_, &output, bytes(y.size)), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompMallocHost(handle_, grid_, &work, bytes(work_elements)), CUDECOMP_RESULT_SUCCESS);
  // Value of a global index (gx, gy, gz); X-pencils are x-fastest in memory by default.
  const auto value = [](int64_t gx, int64_t gy, int64_t gz) { return static_cast<double>(gx + 100 * gy + 10000 * gz); };
  auto* in = static_cast<double*>(input);
  for (int64_t k = 0; k < x.shape[2]; ++k) {
    for (int64_t j = 0; j < x.shape[1]; ++j) {
      for (int64_t i = 0; i < x.shape[0]; ++i) {
        int64_t g[3] = {};
        const int64_t local[3] = {i, j, k};
        for (int p = 0; p < 3; ++p) g[x.order[p]] = x.lo[p] + local[p];
        in[i + x.shape[0] * (j + x.shape[1] * k)] = value(g[0], g[1], g[2]);
      }
    }
  }
  std::memset(output, 0xff, bytes(y.size));
  ASSERT_EQ(cudecompTransposeXToY(handle_, grid_, input, output, work, CUDECOMP_DOUBLE, nullptr, nullptr, nullptr,
                                  nullptr, nullptr),
            CUDECOMP_RESULT_SUCCESS)
      << cudecompGetLastErrorMessage();
  const auto* out = static_cast<const double*>(output);
  int64_t wrong = 0;
  for (int64_t k = 0; k < y.shape[2]; ++k) {
    for (int64_t j = 0; j < y.shape[1]; ++j) {
      for (int64_t i = 0; i < y.shape[0]; ++i) {
        int64_t g[3] = {};
        const int64_t local[3] = {i, j, k};
        for (int p = 0; p < 3; ++p) g[y.order[p]] = y.lo[p] + local[p];
        wrong += out[i + y.shape[0] * (j + y.shape[1] * k)] != value(g[0], g[1], g[2]);
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  for (void* buffer : {input, output, work}) EXPECT_EQ(cudecompFree(handle_, grid_, buffer), CUDECOMP_RESULT_SUCCESS);
}

}  // namespace
