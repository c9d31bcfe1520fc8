// cudecomp's CUDA library on a real GPU (run by scripts/gpu-check.sh under mpirun with 1, 2 and
// 4 ranks; not registered with ctest, since CI machines have no GPU, and it fails rather than
// skips without one). Device buffers go through every transpose backend: MPI_P2P, MPI_P2P_PL and
// MPI_A2A over CUDA-aware MPI with the device mover, NCCL and NCCL_PL (GridDesc's lazily created
// NCCL communicators), halo updates with MPI, MPI_BLOCKING and NCCL, and the C API entry points with
// device pointers, a stream and a workspace from cudecompMalloc (a null one is INVALID_USAGE). Every
// element is checked against its global index.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cudecomp.h"
#include "decomp/config.hpp"
#include "decomp/cuda/cuda_check.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/geometry.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "decomp/mpi_device_support.hpp"
#include "mpi_test_support.hpp"

namespace wavestack::decomp::cuda {
namespace {

using wavestack::testing::world_rank;
using wavestack::testing::world_size;

double value_at(const Int3& g) {
  return static_cast<double>(g[0] + 100 * g[1] + 10000 * g[2]) + 0.25;
}
constexpr double kSentinel = -3.5;

// A device buffer of doubles with host copies in and out.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    check_cuda(cudaMalloc(&data_, std::max<size_t>(count, 1) * sizeof(double)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  double* get() const { return static_cast<double*>(data_); }
  void upload(const std::vector<double>& host) const {
    check_cuda(cudaMemcpy(data_, host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  std::vector<double> download() const {
    std::vector<double> host(count_);
    check_cuda(cudaMemcpy(host.data(), data_, count_ * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  void* data_ = nullptr;
  size_t count_;
};

std::vector<double> filled(const PencilLayout& layout, size_t size) {
  std::vector<double> data(size, kSentinel);
  const Box& b = layout.box;
  for (int64_t z = b.lo[2]; z < b.lo[2] + b.count[2]; ++z) {
    for (int64_t y = b.lo[1]; y < b.lo[1] + b.count[1]; ++y) {
      for (int64_t x = b.lo[0]; x < b.lo[0] + b.count[0]; ++x) {
        data[static_cast<size_t>(layout.offset(layout.local_index({x, y, z})))] = value_at({x, y, z});
      }
    }
  }
  return data;
}

int64_t wrong_owned(const PencilLayout& layout, const std::vector<double>& data) {
  int64_t wrong = 0;
  const Box& b = layout.box;
  for (int64_t z = b.lo[2]; z < b.lo[2] + b.count[2]; ++z) {
    for (int64_t y = b.lo[1]; y < b.lo[1] + b.count[1]; ++y) {
      for (int64_t x = b.lo[0]; x < b.lo[0] + b.count[0]; ++x) {
        wrong += data[static_cast<size_t>(layout.offset(layout.local_index({x, y, z})))] != value_at({x, y, z});
      }
    }
  }
  return wrong;
}

class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess) << "no CUDA device: this program needs a GPU";
    ASSERT_GT(devices, 0);
    check_cuda(cudaStreamCreate(&stream_), "cudaStreamCreate");
  }
  void TearDown() override { cudaStreamDestroy(stream_); }

  // The grid of these tests (uneven on 4 ranks, Y pencils Y-fastest); the C API tests create
  // theirs from the same config, so make_grid's layouts check their results.
  static cudecompGridDescConfig_t grid_config(cudecompTransposeCommBackend_t backend, cudecompHaloCommBackend_t halo) {
    cudecompGridDescConfig_t config = default_config();
    config.gdims[0] = 17;
    config.gdims[1] = 13;
    config.gdims[2] = 11;
    config.pdims[0] = world_size() >= 4 ? 2 : 1;
    config.pdims[1] = world_size() / config.pdims[0];
    config.transpose_axis_contiguous[1] = true;
    config.transpose_comm_backend = backend;
    config.halo_comm_backend = halo;
    return config;
  }

  GridDesc make_grid(cudecompTransposeCommBackend_t backend, cudecompHaloCommBackend_t halo) const {
    return GridDesc(handle_, grid_config(backend, halo));
  }

  // Whether an MPI backend can run on device buffers here: with one rank (no remote peer) or
  // over an MPI that takes device buffers (mpi_device_support.hpp). Elsewhere the library
  // refuses before any work, which expect_refused checks instead.
  static bool mpi_runs_on_device(const char* what) {
    if (world_size() == 1 || this_mpi_takes_device_buffers()) return true;
    if (world_rank() == 0) std::printf("MPI backend %s refused on device buffers: MPI is not CUDA-aware\n", what);
    return false;
  }

  static void expect_refused(const std::function<void()>& call, const std::string& backend) {
    try {
      call();
      ADD_FAILURE() << backend << " ran on device buffers over an MPI that is not CUDA-aware";
    } catch (const DecompError& error) {
      EXPECT_EQ(error.code(), CUDECOMP_RESULT_NOT_SUPPORTED) << error.what();
      EXPECT_NE(std::string(error.what()).find("backend " + backend + " would hand device buffers to MPI"),
                std::string::npos)
          << error.what();
    }
  }

  // Whether an NCCL backend can run here: NCCL refuses two ranks on one GPU, which the one-GPU
  // check has with 2 and 4 ranks. Says so, once per test, where it cannot.
  bool nccl_runs(const char* what) const {
    if (!handle_.device_shared_by_ranks()) return true;
    if (world_rank() == 0) std::printf("NCCL not run (%s): the ranks share a GPU\n", what);
    return false;
  }

  Handle handle_{MPI_COMM_WORLD};
  cudaStream_t stream_ = nullptr;
};

TEST_F(DeviceTest, TransposesOfEveryBackendInAndOutOfPlace) {
  const std::array<TransposeOp, 4> ops = {TransposeOp::kXToY, TransposeOp::kYToZ, TransposeOp::kZToY,
                                          TransposeOp::kYToX};
  for (const auto backend :
       {CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, CUDECOMP_TRANSPOSE_COMM_MPI_A2A,
        CUDECOMP_TRANSPOSE_COMM_NCCL, CUDECOMP_TRANSPOSE_COMM_NCCL_PL}) {
    const bool nccl = backend == CUDECOMP_TRANSPOSE_COMM_NCCL || backend == CUDECOMP_TRANSPOSE_COMM_NCCL_PL;
    if (nccl && !nccl_runs(transpose_backend_name(backend))) continue;
    const GridDesc grid = make_grid(backend, CUDECOMP_HALO_COMM_MPI);
    const bool refused = !nccl && !mpi_runs_on_device(transpose_backend_name(backend));
    for (const bool in_place : {false, true}) {
      for (const TransposeOp op : ops) {
        const Int3 in_halo = in_place ? Int3{} : Int3{1, 0, 2};
        const Int3 out_pad = in_place ? Int3{} : Int3{0, 3, 1};
        const PencilLayout in = grid.layout(input_axis(op), in_halo, Int3{});
        const PencilLayout out = grid.layout(output_axis(op), Int3{}, out_pad);
        const size_t in_size = static_cast<size_t>(std::max(in.size, in_place ? out.size : in.size));
        DeviceBuffer input(in_size), output(static_cast<size_t>(out.size));
        DeviceBuffer work(static_cast<size_t>(grid.transpose_workspace_size()));
        input.upload(filled(in, in_size));
        output.upload(std::vector<double>(static_cast<size_t>(out.size), kSentinel));
        const DeviceMover mover(stream_);
        TransposeArgs args;
        args.input = input.get();
        args.output = in_place ? input.get() : output.get();
        args.work = work.get();
        args.dtype = CUDECOMP_DOUBLE;
        args.input_halo = in_halo;
        args.output_padding = out_pad;
        args.mover = &mover;
        // X<->Y transposes communicate within rows (pdims[0] ranks), Y<->Z within columns.
        const bool xy = op == TransposeOp::kXToY || op == TransposeOp::kYToX;
        const bool remote = grid_config(backend, CUDECOMP_HALO_COMM_MPI).pdims[xy ? 0 : 1] > 1;
        if (refused && remote) {
          expect_refused([&] { grid.transpose(op, args); }, transpose_backend_name(backend));
          EXPECT_EQ(input.download(), filled(in, in_size)) << "a refused transpose changed its input";
          continue;
        }
        grid.transpose(op, args);  // NCCL backends create their communicators on first use
        check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        const std::vector<double> result = (in_place ? input : output).download();
        EXPECT_EQ(wrong_owned(out, result), 0)
            << transpose_backend_name(backend) << " " << op_name(op) << (in_place ? " in place" : "");
      }
    }
  }
}

TEST_F(DeviceTest, PeriodicHalosOnDeviceBuffers) {
  for (const auto backend : {CUDECOMP_HALO_COMM_MPI, CUDECOMP_HALO_COMM_MPI_BLOCKING, CUDECOMP_HALO_COMM_NCCL}) {
    if (backend == CUDECOMP_HALO_COMM_NCCL && !nccl_runs("NCCL halo")) continue;
    const GridDesc grid = make_grid(CUDECOMP_TRANSPOSE_COMM_MPI_P2P, backend);
    const bool refused = backend != CUDECOMP_HALO_COMM_NCCL && !mpi_runs_on_device(halo_backend_name(backend));
    for (int axis = 0; axis < 3; ++axis) {
      const Int3 halo{1, 2, 1};
      const PencilLayout layout = grid.layout(axis, halo, Int3{});
      DeviceBuffer data(static_cast<size_t>(layout.size));
      DeviceBuffer work(static_cast<size_t>(grid.halo_workspace_size(axis, halo)));
      data.upload(filled(layout, static_cast<size_t>(layout.size)));
      const DeviceMover mover(stream_);
      bool axis_refused = false;
      for (int dim = 0; dim < 3; ++dim) {
        HaloArgs args;
        args.axis = axis;
        args.data = data.get();
        args.work = work.get();
        args.dtype = CUDECOMP_DOUBLE;
        args.halo = halo;
        args.periods = {true, true, true};
        args.dim = dim;
        args.mover = &mover;
        const int g = splitting_grid_dim(axis, dim);
        if (refused && g >= 0 && grid_config(CUDECOMP_TRANSPOSE_COMM_MPI_P2P, backend).pdims[g] > 1) {
          expect_refused([&] { grid.update_halos(args); }, halo_backend_name(backend));
          axis_refused = true;
          continue;
        }
        grid.update_halos(args);
      }
      if (axis_refused) {  // its halos stay partly unset: the other dimensions' updates ran
        check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
        continue;
      }
      check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
      const std::vector<double> result = data.download();
      int64_t wrong = 0;
      const Box& b = layout.box;
      for (int64_t z = -halo[2]; z < b.count[2] + halo[2]; ++z) {
        for (int64_t y = -halo[1]; y < b.count[1] + halo[1]; ++y) {
          for (int64_t x = -halo[0]; x < b.count[0] + halo[0]; ++x) {
            const Int3 global{b.lo[0] + x, b.lo[1] + y, b.lo[2] + z};
            const Int3 wrapped{(global[0] + 17) % 17, (global[1] + 13) % 13, (global[2] + 11) % 11};
            wrong += result[static_cast<size_t>(layout.offset(layout.local_index(global)))] != value_at(wrapped);
          }
        }
      }
      EXPECT_EQ(wrong, 0) << halo_backend_name(backend) << " axis " << axis;
    }
  }
}

// The C API routes device pointers to the device (device_dispatch.hpp); the workspace is the
// caller's (cudecompMalloc's device memory), and a null one is INVALID_USAGE, as upstream's.
TEST_F(DeviceTest, CApiTransposesDevicePointersOnTheStream) {
  cudecompHandle_t handle = nullptr;
  ASSERT_EQ(cudecompInit(&handle, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  for (const auto backend : {CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_NCCL}) {
    if (backend == CUDECOMP_TRANSPOSE_COMM_NCCL && !nccl_runs("C API NCCL")) continue;
    cudecompGridDescConfig_t config = grid_config(backend, CUDECOMP_HALO_COMM_MPI);
    cudecompGridDesc_t grid = nullptr;
    ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
    const GridDesc& core = make_grid(backend, CUDECOMP_HALO_COMM_MPI);  // the same layouts, for checking
    const PencilLayout in = core.layout(0, Int3{}, Int3{});
    const PencilLayout out = core.layout(1, Int3{}, Int3{});
    DeviceBuffer input(static_cast<size_t>(in.size)), output(static_cast<size_t>(out.size));
    input.upload(filled(in, static_cast<size_t>(in.size)));
    output.upload(std::vector<double>(static_cast<size_t>(out.size), kSentinel));
    EXPECT_EQ(cudecompTransposeXToY(handle, grid, input.get(), output.get(), nullptr, CUDECOMP_DOUBLE, nullptr, nullptr,
                                    nullptr, nullptr, stream_),
              CUDECOMP_RESULT_INVALID_USAGE);
    int64_t work_elements = 0;
    ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle, grid, &work_elements), CUDECOMP_RESULT_SUCCESS);
    void* work = nullptr;
    ASSERT_EQ(cudecompMalloc(handle, grid, &work, static_cast<size_t>(std::max<int64_t>(work_elements, 1)) * 8),
              CUDECOMP_RESULT_SUCCESS);
    const cudecompResult_t result = cudecompTransposeXToY(handle, grid, input.get(), output.get(), work,
                                                          CUDECOMP_DOUBLE, nullptr, nullptr, nullptr, nullptr, stream_);
    if (backend != CUDECOMP_TRANSPOSE_COMM_NCCL && config.pdims[0] > 1 && !mpi_runs_on_device("MPI_P2P (C API)")) {
      EXPECT_EQ(result, CUDECOMP_RESULT_NOT_SUPPORTED);
      EXPECT_NE(std::string(cudecompGetLastErrorMessage()).find("not CUDA-aware"), std::string::npos)
          << cudecompGetLastErrorMessage();
      EXPECT_EQ(cudecompFree(handle, grid, work), CUDECOMP_RESULT_SUCCESS);
      EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
      continue;
    }
    EXPECT_EQ(result, CUDECOMP_RESULT_SUCCESS) << cudecompGetLastErrorMessage();
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    EXPECT_EQ(wrong_owned(out, output.download()), 0) << transpose_backend_name(backend);
    EXPECT_EQ(cudecompFree(handle, grid, work), CUDECOMP_RESULT_SUCCESS);
    EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
  }
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
}

TEST_F(DeviceTest, CudecompMallocGivesDeviceMemoryAndFreeReleasesIt) {
  cudecompHandle_t handle = nullptr;
  ASSERT_EQ(cudecompInit(&handle, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  cudecompGridDescConfig_t config{};
  ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 8;
  config.pdims[0] = 1;
  config.pdims[1] = world_size();
  cudecompGridDesc_t grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  void* buffer = nullptr;
  ASSERT_EQ(cudecompMalloc(handle, grid, &buffer, 1000), CUDECOMP_RESULT_SUCCESS);
  cudaPointerAttributes attributes{};
  ASSERT_EQ(cudaPointerGetAttributes(&attributes, buffer), cudaSuccess);
  EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
  EXPECT_EQ(cudaMemset(buffer, 0, 1000), cudaSuccess);  // all 1000 bytes are usable
  EXPECT_EQ(cudecompFree(handle, grid, buffer), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
}

// cudecompMallocHost (a wavestack extension) gives page-locked host memory on a GPU machine;
// the library treats it as host memory: a transpose between such buffers takes the host path
// (no stream work), and cudecompFree returns it with cudaFreeHost.
TEST_F(DeviceTest, CudecompMallocHostGivesPinnedMemoryThatTransposesAsHostMemory) {
  cudecompHandle_t handle = nullptr;
  ASSERT_EQ(cudecompInit(&handle, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  cudecompGridDescConfig_t config = grid_config(CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_HALO_COMM_MPI);
  cudecompGridDesc_t grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  const GridDesc core = make_grid(CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_HALO_COMM_MPI);
  const PencilLayout in = core.layout(0, Int3{}, Int3{});
  const PencilLayout out = core.layout(1, Int3{}, Int3{});
  const auto count = [](int64_t elements) { return static_cast<size_t>(std::max<int64_t>(elements, 1)); };
  void* input = nullptr;
  void* output = nullptr;
  void* work = nullptr;
  ASSERT_EQ(cudecompMallocHost(handle, grid, &input, count(in.size) * sizeof(double)), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompMallocHost(handle, grid, &output, count(out.size) * sizeof(double)), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompMallocHost(handle, grid, &work, count(core.transpose_workspace_size()) * sizeof(double)),
            CUDECOMP_RESULT_SUCCESS);
  for (void* buffer : {input, output, work}) {
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, buffer), cudaSuccess);
    EXPECT_EQ(attributes.type, cudaMemoryTypeHost);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer) % 64, 0u);
  }
  const std::vector<double> x = filled(in, static_cast<size_t>(in.size));
  std::copy(x.begin(), x.end(), static_cast<double*>(input));
  std::fill_n(static_cast<double*>(output), out.size, kSentinel);
  EXPECT_EQ(cudecompTransposeXToY(handle, grid, input, output, work, CUDECOMP_DOUBLE, nullptr, nullptr, nullptr,
                                  nullptr, stream_),
            CUDECOMP_RESULT_SUCCESS)
      << cudecompGetLastErrorMessage();
  // Host path: complete on return, nothing was left on the stream.
  EXPECT_EQ(cudaStreamQuery(stream_), cudaSuccess);
  const auto* y = static_cast<const double*>(output);
  EXPECT_EQ(wrong_owned(out, std::vector<double>(y, y + out.size)), 0);
  // Page-locked memory is what asynchronous copies to the device need: one round trip.
  DeviceBuffer device(static_cast<size_t>(in.size));
  check_cuda(cudaMemcpyAsync(device.get(), input, static_cast<size_t>(in.size) * sizeof(double), cudaMemcpyHostToDevice,
                             stream_),
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  EXPECT_EQ(device.download(), x);
  for (void* buffer : {input, output, work}) EXPECT_EQ(cudecompFree(handle, grid, buffer), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
}

}  // namespace
}  // namespace wavestack::decomp::cuda
