// The C API of cudecomp.h on real ranks (run by ctest under mpiexec with 1 and 4 ranks). Data
// are checked element by element against a function of the global index; all ranks agree on
// the verdict (the exit status is the worst over ranks).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cudecomp.h"
#include "decomp/device_dispatch.hpp"
#include "mpi_test_support.hpp"

extern "C" int decomp_c_header_check(void);

namespace {

using wavestack::testing::world_rank;
using wavestack::testing::world_size;

double value_of(const std::array<int64_t, 3>& g, const std::array<int32_t, 3>& gdims) {
  return static_cast<double>(g[0] + gdims[0] * (g[1] + static_cast<int64_t>(gdims[1]) * g[2]));
}

// The pencil's owned elements as values of their global index, halos and padding as -1.
std::vector<double> filled(const cudecompPencilInfo_t& info, const std::array<int32_t, 3>& gdims) {
  std::vector<double> data(static_cast<size_t>(info.size), -1.0);
  for (int64_t k = 0; k < info.shape[2]; ++k) {
    for (int64_t j = 0; j < info.shape[1]; ++j) {
      for (int64_t i = 0; i < info.shape[0]; ++i) {
        const int64_t local[3] = {i, j, k};
        std::array<int64_t, 3> g{};
        bool owned = true;
        for (int p = 0; p < 3; ++p) {
          const int dim = info.order[p];
          const int64_t index = local[p] - info.halo_extents[dim];
          owned = owned && index >= 0 && info.lo[p] + index <= info.hi[p];
          g[dim] = info.lo[p] + index;
        }
        if (owned) data[static_cast<size_t>(i + info.shape[0] * (j + info.shape[1] * k))] = value_of(g, gdims);
      }
    }
  }
  return data;
}

class DecompCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudecompInit(&handle_, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
    ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config_), CUDECOMP_RESULT_SUCCESS);
    config_.gdims[0] = 13;
    config_.gdims[1] = 11;
    config_.gdims[2] = 9;
    config_.pdims[0] = world_size() % 2 == 0 ? 2 : 1;
    config_.pdims[1] = world_size() / config_.pdims[0];
  }
  void TearDown() override { EXPECT_EQ(cudecompFinalize(handle_), CUDECOMP_RESULT_SUCCESS); }

  std::array<int32_t, 3> gdims() const { return {config_.gdims[0], config_.gdims[1], config_.gdims[2]}; }

  cudecompHandle_t handle_ = nullptr;
  cudecompGridDescConfig_t config_{};
};

// The defaults themselves are checked field by field against upstream's in
// test_decomp_upstream_facts.cpp; here, that the header compiles and works from C.
TEST(DecompCApiStandalone, HeaderWorksFromC) {
  EXPECT_EQ(decomp_c_header_check(), 0);
}

TEST(DecompCApiStandalone, DataTypesAndNames) {
  int64_t size = 0;
  volatile int out_of_range = 42;  // a value outside the enums, as a C caller could pass
  ASSERT_EQ(cudecompGetDataTypeSize(CUDECOMP_FLOAT, &size), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(size, 4);
  ASSERT_EQ(cudecompGetDataTypeSize(CUDECOMP_DOUBLE_COMPLEX, &size), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(size, 16);
  EXPECT_EQ(cudecompGetDataTypeSize(static_cast<cudecompDataType_t>(out_of_range), &size),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_A2A), "MPI_A2A");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(static_cast<cudecompTransposeCommBackend_t>(out_of_range)),
               "ERROR");
  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_MPI_BLOCKING), "MPI (blocking)");
}

TEST_F(DecompCApi, RejectsBadArgumentsWithCodes) {
  cudecompGridDesc_t grid = nullptr;
  EXPECT_EQ(cudecompGridDescCreate(nullptr, &grid, &config_, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  auto bad = config_;
  bad.pdims[0] = world_size() + 1;
  bad.pdims[1] = 1;
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(bad.pdims[0], world_size() + 1);  // unchanged on failure
  bad = config_;
  bad.halo_comm_backend = CUDECOMP_HALO_COMM_NCCL;
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr),
            wavestack::decomp::device_backend_built() ? CUDECOMP_RESULT_SUCCESS : CUDECOMP_RESULT_NOT_SUPPORTED);
  if (wavestack::decomp::device_backend_built()) {
    EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
  }
  bad = config_;
  bad.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_NCCL;
  if (wavestack::decomp::device_backend_built()) {
    // The CUDA build accepts NCCL transposes; on host buffers they are refused before any work.
    ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr), CUDECOMP_RESULT_SUCCESS);
    if (world_size() > 1) {
      cudecompPencilInfo_t x{}, y{};
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &x, 0, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &y, 1, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
      int64_t work_elements = 0;
      ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle_, grid, &work_elements), CUDECOMP_RESULT_SUCCESS);
      std::vector<double> in(static_cast<size_t>(x.size)), out(static_cast<size_t>(y.size));
      std::vector<double> work(static_cast<size_t>(work_elements));
      EXPECT_EQ(cudecompTransposeXToY(handle_, grid, in.data(), out.data(), work.data(), CUDECOMP_DOUBLE, nullptr,
                                      nullptr, nullptr, nullptr, nullptr),
                CUDECOMP_RESULT_NOT_SUPPORTED);
      EXPECT_NE(std::string(cudecompGetLastErrorMessage()).find("NCCL backends need device buffers"), std::string::npos)
          << cudecompGetLastErrorMessage();
    }
    EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
  } else {
    EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED);
  }
  bad = config_;
  bad.halo_comm_backend = CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING;
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED);
  bad = config_;
  bad.pdims[0] = bad.pdims[1] = 0;
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &bad, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_NE(std::string(cudecompGetLastErrorMessage()).find("config.pdims"), std::string::npos);
  int dummy = 0;
  EXPECT_EQ(cudecompGridDescDestroy(handle_, reinterpret_cast<cudecompGridDesc_t>(&dummy)),
            CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompCApi, PencilInfoFollowsCuDecompLayout) {
  cudecompGridDesc_t grid = nullptr;
  config_.transpose_axis_contiguous[1] = true;
  ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config_, nullptr), CUDECOMP_RESULT_SUCCESS);
  const int rank = world_rank();
  const int row = rank / config_.pdims[1], col = rank % config_.pdims[1];
  const auto range = [](int n, int parts, int index) {
    const int base = n / parts, extra = n % parts;
    const int start = index * base + std::min(index, extra);
    return std::array<int, 2>{start, start + base + (index < extra ? 1 : 0) - 1};
  };
  const int32_t halo[3] = {1, 0, 2};
  const int32_t padding[3] = {0, 3, 0};
  cudecompPencilInfo_t info;
  ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 1, halo, padding), CUDECOMP_RESULT_SUCCESS);
  // Y-pencil, contiguous along Y: local order Y, Z, X; X split by rows, Z by columns.
  EXPECT_EQ(info.order[0], 1);
  EXPECT_EQ(info.order[1], 2);
  EXPECT_EQ(info.order[2], 0);
  EXPECT_EQ(info.lo[0], 0);
  EXPECT_EQ(info.hi[0], 10);
  EXPECT_EQ(info.shape[0], 11 + 3);
  EXPECT_EQ(info.lo[1], range(9, config_.pdims[1], col)[0]);
  EXPECT_EQ(info.hi[1], range(9, config_.pdims[1], col)[1]);
  EXPECT_EQ(info.shape[1], info.hi[1] - info.lo[1] + 1 + 4);
  EXPECT_EQ(info.lo[2], range(13, config_.pdims[0], row)[0]);
  EXPECT_EQ(info.shape[2], info.hi[2] - info.lo[2] + 1 + 2);
  EXPECT_EQ(info.size, int64_t{info.shape[0]} * info.shape[1] * info.shape[2]);
  EXPECT_EQ(info.halo_extents[2], 2);
  EXPECT_EQ(info.padding[1], 3);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 3, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);

  int32_t neighbour = -2;
  ASSERT_EQ(cudecompGetShiftedRank(handle_, grid, 0, 2, 1, true, &neighbour), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(neighbour, row * config_.pdims[1] + (col + 1) % config_.pdims[1]);
  ASSERT_EQ(cudecompGetShiftedRank(handle_, grid, 0, 0, 1, false, &neighbour), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(neighbour, -1);

  cudecompGridDescConfig_t back;
  ASSERT_EQ(cudecompGetGridDescConfig(handle_, grid, &back), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(back.pdims[0], config_.pdims[0]);
  EXPECT_TRUE(back.transpose_axis_contiguous[1]);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
}

TEST_F(DecompCApi, TransposeCycleAllBackendsInAndOutOfPlace) {
  for (auto backend :
       {CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, CUDECOMP_TRANSPOSE_COMM_MPI_A2A}) {
    for (bool in_place : {false, true}) {
      auto config = config_;
      config.transpose_comm_backend = backend;
      config.transpose_axis_contiguous[0] = config.transpose_axis_contiguous[2] = true;
      cudecompGridDesc_t grid = nullptr;
      ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
      cudecompPencilInfo_t info[3];
      const int32_t halo_y[3] = {1, 1, 1};
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info[0], 0, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info[1], 1, halo_y, nullptr), CUDECOMP_RESULT_SUCCESS);
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info[2], 2, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
      int64_t work_elements = 0;
      ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle_, grid, &work_elements), CUDECOMP_RESULT_SUCCESS);
      void* work = nullptr;
      ASSERT_EQ(cudecompMalloc(handle_, grid, &work, static_cast<size_t>(work_elements) * sizeof(double)),
                CUDECOMP_RESULT_SUCCESS);
      const int64_t largest = std::max({info[0].size, info[1].size, info[2].size});
      std::vector<double> a(static_cast<size_t>(largest), -1.0), b(static_cast<size_t>(largest), -1.0);
      const auto x = filled(info[0], gdims());
      std::copy(x.begin(), x.end(), a.begin());
      double* src = a.data();
      double* dst = in_place ? a.data() : b.data();
      const int32_t* halos[3] = {nullptr, halo_y, nullptr};
      struct Step {
        cudecompResult_t (*call)(cudecompHandle_t, cudecompGridDesc_t, void*, void*, void*, cudecompDataType_t,
                                 const int32_t[], const int32_t[], const int32_t[], const int32_t[], cudaStream_t);
        int from, to;
      };
      const Step steps[4] = {{cudecompTransposeXToY, 0, 1},
                             {cudecompTransposeYToZ, 1, 2},
                             {cudecompTransposeZToY, 2, 1},
                             {cudecompTransposeYToX, 1, 0}};
      for (const Step& step : steps) {
        if (!in_place) std::fill(dst, dst + largest, -1.0);
        ASSERT_EQ(step.call(handle_, grid, src, dst, work, CUDECOMP_DOUBLE, halos[step.from], halos[step.to], nullptr,
                            nullptr, nullptr),
                  CUDECOMP_RESULT_SUCCESS);
        const auto expected = filled(info[step.to], gdims());
        int wrong = 0;
        for (size_t i = 0; i < expected.size(); ++i) {
          // Halo elements of the output are not written by transposes (they hold -1 out of place).
          if (expected[i] >= 0 && dst[i] != expected[i]) ++wrong;
        }
        EXPECT_EQ(wrong, 0) << cudecompTransposeCommBackendToString(backend) << " in_place=" << in_place << " to axis "
                            << step.to;
        std::swap(src, dst);
        if (in_place) dst = src;
      }
      EXPECT_EQ(cudecompFree(handle_, grid, work), CUDECOMP_RESULT_SUCCESS);
      EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
    }
  }
}

TEST_F(DecompCApi, PeriodicHaloUpdateFillsEveryHalo) {
  for (auto backend : {CUDECOMP_HALO_COMM_MPI, CUDECOMP_HALO_COMM_MPI_BLOCKING}) {
    auto config = config_;
    config.halo_comm_backend = backend;
    cudecompGridDesc_t grid = nullptr;
    ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
    const int32_t halo[3] = {1, 2, 1};
    const bool periods[3] = {true, true, true};
    cudecompPencilInfo_t info;
    ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 2, halo, nullptr), CUDECOMP_RESULT_SUCCESS);
    int64_t work_elements = 0;
    ASSERT_EQ(cudecompGetHaloWorkspaceSize(handle_, grid, 2, halo, &work_elements), CUDECOMP_RESULT_SUCCESS);
    std::vector<double> work(static_cast<size_t>(work_elements) + 1);
    auto data = filled(info, gdims());
    for (int dim = 0; dim < 3; ++dim) {
      ASSERT_EQ(cudecompUpdateHalosZ(handle_, grid, data.data(), work.data(), CUDECOMP_DOUBLE, halo, periods, dim,
                                     nullptr, nullptr),
                CUDECOMP_RESULT_SUCCESS);
    }
    // Every element, halos and corners included, holds the value of its periodically wrapped index.
    int wrong = 0;
    const auto g = gdims();
    for (int64_t k = 0; k < info.shape[2]; ++k) {
      for (int64_t j = 0; j < info.shape[1]; ++j) {
        for (int64_t i = 0; i < info.shape[0]; ++i) {
          const int64_t local[3] = {i, j, k};
          std::array<int64_t, 3> global{};
          for (int p = 0; p < 3; ++p) {
            const int dim = info.order[p];
            global[dim] = ((info.lo[p] + local[p] - info.halo_extents[dim]) % g[dim] + g[dim]) % g[dim];
          }
          if (data[static_cast<size_t>(i + info.shape[0] * (j + info.shape[1] * k))] != value_of(global, g)) ++wrong;
        }
      }
    }
    EXPECT_EQ(wrong, 0) << cudecompHaloCommBackendToString(backend);
    // As upstream's: no workspace of the library's own stands in for a null one, even where this
    // update would need none.
    const auto before = data;
    EXPECT_EQ(
        cudecompUpdateHalosZ(handle_, grid, data.data(), nullptr, CUDECOMP_DOUBLE, halo, periods, 2, nullptr, nullptr),
        CUDECOMP_RESULT_INVALID_USAGE);
    EXPECT_EQ(std::string(cudecompGetLastErrorMessage()).rfind("cudecompUpdateHalosZ: work:", 0), 0u)
        << cudecompGetLastErrorMessage();
    EXPECT_EQ(data, before);
    EXPECT_EQ(cudecompUpdateHalosZ(handle_, grid, data.data(), work.data(), CUDECOMP_DOUBLE, halo, periods, 4, nullptr,
                                   nullptr),
              CUDECOMP_RESULT_INVALID_USAGE);
    EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
  }
}

TEST_F(DecompCApi, OverflowAndEmptyAllocationsAreInvalidUsage) {
  cudecompGridDesc_t grid = nullptr;
  auto config = config_;
  config.gdims[0] = config.gdims[1] = config.gdims[2] = INT32_MAX - 1;
  ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  cudecompPencilInfo_t info{};
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, axis, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  }
  int64_t workspace = 0;
  EXPECT_EQ(cudecompGetTransposeWorkspaceSize(handle_, grid, &workspace), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);

  ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config_, nullptr), CUDECOMP_RESULT_SUCCESS);
  const int32_t huge[3] = {0, INT32_MAX / 2, 0};
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, huge, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, nullptr, huge), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(info.shape[1], INT32_MAX / 2 + (info.hi[1] - info.lo[1] + 1));
  const int32_t too_much_padding[3] = {0, 0, INT32_MAX};
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 1, nullptr, too_much_padding), CUDECOMP_RESULT_INVALID_USAGE);
  void* buffer = nullptr;
  EXPECT_EQ(cudecompMalloc(handle_, grid, &buffer, 0), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
}

TEST_F(DecompCApi, AutotuningWritesTheChoiceBack) {
  auto config = config_;
  config.pdims[0] = config.pdims[1] = 0;
  cudecompGridDescAutotuneOptions_t options;
  ASSERT_EQ(cudecompGridDescAutotuneOptionsSetDefaults(&options), CUDECOMP_RESULT_SUCCESS);
  options.n_warmup_trials = 1;
  options.n_trials = 2;
  options.autotune_transpose_backend = true;
  cudecompGridDesc_t grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config, &options), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(config.pdims[0] * config.pdims[1], world_size());
  int chosen[2] = {config.pdims[0], config.transpose_comm_backend};
  int lowest[2], highest[2];
  MPI_Allreduce(chosen, lowest, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(chosen, highest, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lowest[0], highest[0]);  // every rank chose the same
  EXPECT_EQ(lowest[1], highest[1]);
  cudecompGridDescConfig_t back;
  ASSERT_EQ(cudecompGetGridDescConfig(handle_, grid, &back), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(back.pdims[0], config.pdims[0]);
  EXPECT_EQ(back.transpose_comm_backend, config.transpose_comm_backend);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
}

}  // namespace

// CUDECOMP_ENABLE_PERFORMANCE_REPORT (read by cudecompInit): cudecompGridDescDestroy prints the
// report on rank 0, one row per configuration with the calls after the warmup ones; other
// ranks print nothing. (The report's numbers and files: tests/mpi/test_decomp_perf_report.py.)
TEST(DecompCApiStandalone, GridDestroyPrintsThePerformanceReportOnRankZero) {
  setenv("CUDECOMP_ENABLE_PERFORMANCE_REPORT", "1", 1);
  setenv("CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES", "1", 1);
  cudecompHandle_t handle = nullptr;
  const cudecompResult_t init = cudecompInit(&handle, MPI_COMM_WORLD);
  unsetenv("CUDECOMP_ENABLE_PERFORMANCE_REPORT");
  unsetenv("CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES");
  ASSERT_EQ(init, CUDECOMP_RESULT_SUCCESS);
  cudecompGridDescConfig_t config;
  ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = 8;
  config.gdims[1] = 8;
  config.gdims[2] = 8;
  config.pdims[0] = world_size();
  config.pdims[1] = 1;
  cudecompGridDesc_t grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  cudecompPencilInfo_t x, y;
  ASSERT_EQ(cudecompGetPencilInfo(handle, grid, &x, 0, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompGetPencilInfo(handle, grid, &y, 1, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
  int64_t work_size = 0;
  ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle, grid, &work_size), CUDECOMP_RESULT_SUCCESS);
  std::vector<double> in(static_cast<size_t>(x.size), 1.0), out(static_cast<size_t>(y.size)),
      work(static_cast<size_t>(std::max<int64_t>(work_size, 1)));
  for (int call = 0; call < 4; ++call) {  // 1 warmup call, then 3 samples
    ASSERT_EQ(cudecompTransposeXToY(handle, grid, in.data(), out.data(), work.data(), CUDECOMP_DOUBLE, nullptr, nullptr,
                                    nullptr, nullptr, nullptr),
              CUDECOMP_RESULT_SUCCESS);
  }
  testing::internal::CaptureStdout();
  const cudecompResult_t destroyed = cudecompGridDescDestroy(handle, grid);
  const std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_EQ(destroyed, CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
  if (world_rank() != 0) {
    EXPECT_EQ(printed, "");
    return;
  }
  EXPECT_NE(printed.find("CUDECOMP: ===== Performance Summary ====="), std::string::npos) << printed;
  EXPECT_NE(printed.find("CUDECOMP:\tTranspose backend: MPI_P2P\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("CUDECOMP:\tProcess grid: [" + std::to_string(world_size()) + ", 1]\n"), std::string::npos)
      << printed;
  // operation, dtype, halo extents, padding, in place, managed, samples
  EXPECT_NE(printed.find("CUDECOMP: TransposeXY  D      [0,0,0]/[0,0,0] [0,0,0]/[0,0,0] F        F        3 "),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("Halo Performance Data"), std::string::npos) << printed;  // no halo update ran
}
