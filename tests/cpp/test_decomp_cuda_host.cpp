// The CUDA library of cudecomp (src/decomp/cuda) as far as a machine without a GPU can run it:
// every call here takes one of two checked branches, a device present or not. Linking this
// program also proves the library's CUDA runtime and NCCL symbols resolve.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "decomp/cuda/device_memory.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/cuda/nccl_comm.hpp"
#include "decomp/cuda/nccl_transpose.hpp"
#include "decomp/cuda/pinned_allocations.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp::cuda {
namespace {

bool have_device() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  return ok;
}

TEST(DecompCudaHost, HostPointersAreNotDevicePointers) {
  double value = 1.0;
  EXPECT_FALSE(is_device_pointer(&value));
  EXPECT_FALSE(is_device_pointer(nullptr));
  // With a driver, the query leaves no error behind for later calls. (Without one, every call,
  // cudaGetLastError included, reports the failed initialization: cudaErrorInsufficientDriver
  // or cudaErrorNoDevice.)
  if (have_device()) {
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  } else {
    const cudaError_t status = cudaGetLastError();
    EXPECT_TRUE(status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) << cudaGetErrorName(status);
  }
}

TEST(DecompCudaHost, DeviceAllocationSucceedsOnlyWithADevice) {
  if (have_device()) {
    void* memory = device_allocate(1024);
    EXPECT_TRUE(is_device_pointer(memory));
    device_release(memory);
    return;
  }
  try {
    device_allocate(1024);
    FAIL() << "cudaMalloc succeeded without a device";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_CUDA_ERROR);
    EXPECT_EQ(std::string(error.what()).rfind("cudaMalloc failed: cudaError", 0), 0u) << error.what();
  }
}

TEST(DecompCudaHost, PinnedMemoryIsRecordedAndOnlyRecordedPointersAreReleased) {
  double plain = 0.0;
  EXPECT_FALSE(pinned_release(&plain));  // never pinned by us: not CUDA's to free
  EXPECT_FALSE(pinned_release(nullptr));
  if (have_device()) {
    void* memory = pinned_allocate(1024);
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, memory), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
    EXPECT_FALSE(is_device_pointer(memory));  // host memory to the dispatch: the host path
    EXPECT_TRUE(pinned_release(memory));
    EXPECT_FALSE(pinned_release(memory));  // forgotten once released
    return;
  }
  try {
    pinned_allocate(1024);
    FAIL() << "cudaMallocHost succeeded without a device";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_CUDA_ERROR);
    EXPECT_EQ(std::string(error.what()).rfind("cudaMallocHost failed: cudaError", 0), 0u) << error.what();
  }
}

TEST(DecompCudaHost, DeviceMoverReportsBadElementSizesAndLaunchFailures) {
  const DeviceMover mover(nullptr);
  EXPECT_FALSE(mover.host_memory());
  const StridedBlock block{{2, 2, 2}, {1, 2, 4}, {1, 2, 4}};
  try {
    mover.copy(nullptr, 0, nullptr, 0, 2, block);
    FAIL() << "element size 2 accepted";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_CUDA_ERROR);
    EXPECT_EQ(std::string(error.what()), "copy_block_async failed: cudaErrorInvalidValue (invalid argument)");
  }
  // An empty block launches nothing, with or without a device.
  mover.copy(nullptr, 0, nullptr, 0, 8, {{0, 2, 2}, {1, 0, 0}, {1, 0, 0}});
  if (!have_device()) {
    EXPECT_THROW(mover.copy(nullptr, 0, nullptr, 0, 8, block), DecompError);
  }
}

TEST(DecompCudaHost, NcclErrorsNameTheCall) {
  EXPECT_NO_THROW(check_nccl(ncclSuccess, "ncclSend"));
  try {
    check_nccl(ncclInvalidArgument, "ncclSend");
    FAIL() << "no exception";
  } catch (const DecompError& error) {
    EXPECT_EQ(error.code(), CUDECOMP_RESULT_NCCL_ERROR);
    EXPECT_EQ(std::string(error.what()).rfind("ncclSend failed: ", 0), 0u) << error.what();
  }
  // Referenced so that the NCCL transpose's symbols must resolve when this program links.
  EXPECT_NE(&nccl_transpose, nullptr);
}

}  // namespace
}  // namespace wavestack::decomp::cuda
