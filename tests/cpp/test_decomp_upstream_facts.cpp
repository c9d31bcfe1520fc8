// Expected values and behaviours of upstream cuDecomp's own API tests (tests/ctest/api_tests.cc
// and, for its CPU-only build, tests/ctest/cpu_api_tests.cc), checked against this library's C
// API under mpiexec (ctest DecompUpstreamFacts, 4 ranks). Only the facts are taken over;
// the tests are written for this repository.
//
// Most cases need exactly upstream's four ranks on a 2 x 2 process grid and skip, saying so,
// under any other rank count. The cases that need no grid, and upstream's CPU-build case (a
// Prows = nranks grid), run under every rank count.
//
// Upstream's api_tests.cc itself, compiled with upstream's header, runs against this library in
// CI (tests/cudecomp_upstream, scripts/check_decomp_upstream.sh); these facts run in every
// `make test` too. The upstream fact deliberately NOT asserted, because cudecomp.h documents
// this library as more permissive there: process-grid and backend autotuning in a build without
// a GPU (upstream's CPU build: NOT_SUPPORTED) run; what is asserted instead is what upstream's
// GPU build promises of an autotuned grid.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cudecomp.h"
#include "decomp/device_dispatch.hpp"
#include "mpi_test_support.hpp"

namespace {

using wavestack::testing::world_rank;
using wavestack::testing::world_size;

using Int3 = std::array<int32_t, 3>;

// Upstream's test problem.
constexpr int kRanks = 4;
constexpr Int3 kGdims = {9, 10, 11};
constexpr Int3 kGdimsDist = {8, 9, 10};
constexpr std::array<int32_t, 2> kPdims = {2, 2};
constexpr Int3 kHalo = {1, 2, 1};
constexpr Int3 kPadding = {1, 0, 2};
constexpr std::array<bool, 3> kPeriods = {false, true, false};

// ---------------------------------------------------------------------------------------------
// cudecompGetPencilInfo with halo extents kHalo and padding kPadding on the 9 x 10 x 11 grid. In
// every row the local order is X, Y, Z (no transpose_axis_contiguous, no transpose_mem_order),
// so the reported halo_extents and padding are kHalo and kPadding unchanged.
struct PencilFact {
  Int3 shape;
  Int3 lo;
  Int3 hi;
  int64_t size;
};
using PencilTable = std::array<std::array<PencilFact, kRanks>, 3>;  // [axis][rank]

// CUDECOMP_RANK_ORDER_DEFAULT (row-major: rank = row * Pcols + col).
constexpr PencilTable kRowMajorPencils = {{
    {{{{12, 9, 10}, {0, 0, 0}, {8, 4, 5}, 1080},
      {{12, 9, 9}, {0, 0, 6}, {8, 4, 10}, 972},
      {{12, 9, 10}, {0, 5, 0}, {8, 9, 5}, 1080},
      {{12, 9, 9}, {0, 5, 6}, {8, 9, 10}, 972}}},
    {{{{8, 14, 10}, {0, 0, 0}, {4, 9, 5}, 1120},
      {{8, 14, 9}, {0, 0, 6}, {4, 9, 10}, 1008},
      {{7, 14, 10}, {5, 0, 0}, {8, 9, 5}, 980},
      {{7, 14, 9}, {5, 0, 6}, {8, 9, 10}, 882}}},
    {{{{8, 9, 15}, {0, 0, 0}, {4, 4, 10}, 1080},
      {{8, 9, 15}, {0, 5, 0}, {4, 9, 10}, 1080},
      {{7, 9, 15}, {5, 0, 0}, {8, 4, 10}, 945},
      {{7, 9, 15}, {5, 5, 0}, {8, 9, 10}, 945}}},
}};

// CUDECOMP_RANK_ORDER_COL_MAJOR (rank = col * Prows + row).
constexpr PencilTable kColMajorPencils = {{
    {{{{12, 9, 10}, {0, 0, 0}, {8, 4, 5}, 1080},
      {{12, 9, 10}, {0, 5, 0}, {8, 9, 5}, 1080},
      {{12, 9, 9}, {0, 0, 6}, {8, 4, 10}, 972},
      {{12, 9, 9}, {0, 5, 6}, {8, 9, 10}, 972}}},
    {{{{8, 14, 10}, {0, 0, 0}, {4, 9, 5}, 1120},
      {{7, 14, 10}, {5, 0, 0}, {8, 9, 5}, 980},
      {{8, 14, 9}, {0, 0, 6}, {4, 9, 10}, 1008},
      {{7, 14, 9}, {5, 0, 6}, {8, 9, 10}, 882}}},
    {{{{8, 9, 15}, {0, 0, 0}, {4, 4, 10}, 1080},
      {{7, 9, 15}, {5, 0, 0}, {8, 4, 10}, 945},
      {{8, 9, 15}, {0, 5, 0}, {4, 9, 10}, 1080},
      {{7, 9, 15}, {5, 5, 0}, {8, 9, 10}, 945}}},
}};

// Default rank order, distributed as if the grid were 8 x 9 x 10 (gdims_dist): the last part
// along each split dimension takes the remainder.
constexpr PencilTable kGdimsDistPencils = {{
    {{{{12, 9, 9}, {0, 0, 0}, {8, 4, 4}, 972},
      {{12, 9, 10}, {0, 0, 5}, {8, 4, 10}, 1080},
      {{12, 9, 9}, {0, 5, 0}, {8, 9, 4}, 972},
      {{12, 9, 10}, {0, 5, 5}, {8, 9, 10}, 1080}}},
    {{{{7, 14, 9}, {0, 0, 0}, {3, 9, 4}, 882},
      {{7, 14, 10}, {0, 0, 5}, {3, 9, 10}, 980},
      {{8, 14, 9}, {4, 0, 0}, {8, 9, 4}, 1008},
      {{8, 14, 10}, {4, 0, 5}, {8, 9, 10}, 1120}}},
    {{{{7, 9, 15}, {0, 0, 0}, {3, 4, 10}, 945},
      {{7, 9, 15}, {0, 5, 0}, {3, 9, 10}, 945},
      {{8, 9, 15}, {4, 0, 0}, {8, 4, 10}, 1080},
      {{8, 9, 15}, {4, 5, 0}, {8, 9, 10}, 1080}}},
}};

// ---------------------------------------------------------------------------------------------
// cudecompGetShiftedRank on the X pencil (axis 0): the rank each of ranks 0..3 is given.
struct ShiftFact {
  int32_t dim;
  int32_t displacement;
  bool periodic;
  std::array<int32_t, kRanks> expected;
};

constexpr std::array<ShiftFact, 6> kRowMajorShifts = {{
    {1, 1, false, {2, 3, -1, -1}},
    {1, -1, false, {-1, -1, 0, 1}},
    {1, 1, true, {2, 3, 0, 1}},
    {2, 1, false, {1, -1, 3, -1}},
    {2, -1, false, {-1, 0, -1, 2}},
    {2, 1, true, {1, 0, 3, 2}},
}};

constexpr std::array<ShiftFact, 6> kColMajorShifts = {{
    {1, 1, false, {1, -1, 3, -1}},
    {1, -1, false, {-1, 0, -1, 2}},
    {1, 1, true, {1, 0, 3, 2}},
    {2, 1, false, {2, 3, -1, -1}},
    {2, -1, false, {-1, -1, 0, 1}},
    {2, 1, true, {2, 3, 0, 1}},
}};

// A value outside every enum of cudecomp.h, as a C caller could pass one.
template <typename Enum>
Enum out_of_range() {
  volatile int value = 999;
  return static_cast<Enum>(value);
}

// The fields of cudecompGridDescConfig_t that a caller sets (not the struct header).
void expect_same_settings(const cudecompGridDescConfig_t& actual, const cudecompGridDescConfig_t& expected,
                          const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(actual.rank_order, expected.rank_order);
  EXPECT_EQ(actual.transpose_comm_backend, expected.transpose_comm_backend);
  EXPECT_EQ(actual.halo_comm_backend, expected.halo_comm_backend);
  EXPECT_EQ(actual.pdims[0], expected.pdims[0]);
  EXPECT_EQ(actual.pdims[1], expected.pdims[1]);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(actual.gdims[i], expected.gdims[i]) << "dim " << i;
    EXPECT_EQ(actual.gdims_dist[i], expected.gdims_dist[i]) << "dim " << i;
    EXPECT_EQ(actual.transpose_axis_contiguous[i], expected.transpose_axis_contiguous[i]) << "axis " << i;
    for (int j = 0; j < 3; ++j) EXPECT_EQ(actual.transpose_mem_order[i][j], expected.transpose_mem_order[i][j]);
  }
}

// ---------------------------------------------------------------------------------------------
// Facts that need neither ranks nor a handle.

TEST(DecompUpstreamFactsStandalone, GridDescConfigDefaults) {
  cudecompGridDescConfig_t config;
  ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(config.rank_order, CUDECOMP_RANK_ORDER_DEFAULT);
  EXPECT_EQ(config.transpose_comm_backend, CUDECOMP_TRANSPOSE_COMM_MPI_P2P);
  EXPECT_EQ(config.halo_comm_backend, CUDECOMP_HALO_COMM_MPI);
  EXPECT_EQ(config.pdims[0], 0);
  EXPECT_EQ(config.pdims[1], 0);
  for (int axis = 0; axis < 3; ++axis) {
    EXPECT_EQ(config.gdims[axis], 0);
    EXPECT_EQ(config.gdims_dist[axis], 0);
    EXPECT_FALSE(config.transpose_axis_contiguous[axis]);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(config.transpose_mem_order[axis][j], -1) << axis << "," << j;
  }
  EXPECT_EQ(cudecompGridDescConfigSetDefaults(nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST(DecompUpstreamFactsStandalone, AutotuneOptionsDefaults) {
  cudecompGridDescAutotuneOptions_t options;
  ASSERT_EQ(cudecompGridDescAutotuneOptionsSetDefaults(&options), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(options.n_warmup_trials, 3);
  EXPECT_EQ(options.n_trials, 5);
  EXPECT_EQ(options.grid_mode, CUDECOMP_AUTOTUNE_GRID_TRANSPOSE);
  EXPECT_EQ(options.dtype, CUDECOMP_DOUBLE);
  EXPECT_TRUE(options.allow_uneven_decompositions);
  EXPECT_FALSE(options.disable_nccl_backends);
  EXPECT_FALSE(options.disable_nvshmem_backends);
  EXPECT_EQ(options.skip_threshold, 0.0);
  EXPECT_FALSE(options.autotune_transpose_backend);
  EXPECT_FALSE(options.autotune_halo_backend);
  EXPECT_EQ(options.halo_axis, 0);
  for (int op = 0; op < 4; ++op) {
    SCOPED_TRACE("transpose op " + std::to_string(op));
    EXPECT_FALSE(options.transpose_use_inplace_buffers[op]);
    EXPECT_EQ(options.transpose_op_weights[op], 1.0);
    for (int dim = 0; dim < 3; ++dim) {
      EXPECT_EQ(options.transpose_input_halo_extents[op][dim], 0);
      EXPECT_EQ(options.transpose_output_halo_extents[op][dim], 0);
      EXPECT_EQ(options.transpose_input_padding[op][dim], 0);
      EXPECT_EQ(options.transpose_output_padding[op][dim], 0);
    }
  }
  for (int dim = 0; dim < 3; ++dim) {
    EXPECT_EQ(options.halo_extents[dim], 0);
    EXPECT_FALSE(options.halo_periods[dim]);
    EXPECT_EQ(options.halo_padding[dim], 0);
  }
  EXPECT_EQ(cudecompGridDescAutotuneOptionsSetDefaults(nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST(DecompUpstreamFactsStandalone, DataTypeSizes) {
  const std::array<std::pair<cudecompDataType_t, int64_t>, 4> sizes = {{
      {CUDECOMP_FLOAT, 4},
      {CUDECOMP_DOUBLE, 8},
      {CUDECOMP_FLOAT_COMPLEX, 8},
      {CUDECOMP_DOUBLE_COMPLEX, 16},
  }};
  for (const auto& [dtype, bytes] : sizes) {
    int64_t size = 0;
    ASSERT_EQ(cudecompGetDataTypeSize(dtype, &size), CUDECOMP_RESULT_SUCCESS) << dtype;
    EXPECT_EQ(size, bytes) << dtype;
  }
  int64_t size = 0;
  EXPECT_EQ(cudecompGetDataTypeSize(CUDECOMP_FLOAT, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetDataTypeSize(out_of_range<cudecompDataType_t>(), &size), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST(DecompUpstreamFactsStandalone, BackendDisplayNames) {
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_P2P), "MPI_P2P");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL), "MPI_P2P (pipelined)");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_A2A), "MPI_A2A");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NCCL), "NCCL");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NCCL_PL), "NCCL (pipelined)");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NVSHMEM), "NVSHMEM");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL), "NVSHMEM (pipelined)");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM), "NVSHMEM_SM");
  EXPECT_STREQ(cudecompTransposeCommBackendToString(out_of_range<cudecompTransposeCommBackend_t>()), "ERROR");

  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_MPI), "MPI");
  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_MPI_BLOCKING), "MPI (blocking)");
  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NCCL), "NCCL");
  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NVSHMEM), "NVSHMEM");
  EXPECT_STREQ(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING), "NVSHMEM (blocking)");
  EXPECT_STREQ(cudecompHaloCommBackendToString(out_of_range<cudecompHaloCommBackend_t>()), "ERROR");
}

TEST(DecompUpstreamFactsStandalone, InitAndFinalizeRejectNullHandles) {
  EXPECT_EQ(cudecompInit(nullptr, MPI_COMM_WORLD), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompFinalize(nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

// ---------------------------------------------------------------------------------------------
// Upstream's CPU-only build (cpu_api_tests.cc): a Prows = nranks, Pcols = 1 grid of 8^3 under
// any rank count.

TEST(DecompUpstreamFactsHostBuild, BackendsWithoutAHostPathAreNotSupported) {
  cudecompHandle_t handle = nullptr;
  ASSERT_EQ(cudecompInit(&handle, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  cudecompGridDescConfig_t config;
  ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 8;
  config.pdims[0] = world_size();
  config.pdims[1] = 1;
  cudecompGridDesc_t grid = nullptr;

  // NVSHMEM is in no build of this library; NCCL only in its CUDA build, which is not a
  // CPU-only build (there NCCL grids are created and refused host buffers).
  for (const auto backend : {CUDECOMP_TRANSPOSE_COMM_NVSHMEM, CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL}) {
    auto bad = config;
    bad.transpose_comm_backend = backend;
    EXPECT_EQ(cudecompGridDescCreate(handle, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED) << backend;
  }
  {
    auto bad = config;
    bad.halo_comm_backend = CUDECOMP_HALO_COMM_NVSHMEM;
    EXPECT_EQ(cudecompGridDescCreate(handle, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED);
  }
  if (!wavestack::decomp::device_backend_built()) {
    auto bad = config;
    bad.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_NCCL;
    EXPECT_EQ(cudecompGridDescCreate(handle, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED);
    bad = config;
    bad.halo_comm_backend = CUDECOMP_HALO_COMM_NCCL;
    EXPECT_EQ(cudecompGridDescCreate(handle, &grid, &bad, nullptr), CUDECOMP_RESULT_NOT_SUPPORTED);
  }

  // Autotune options that tune nothing, with the grid given, are accepted.
  cudecompGridDescAutotuneOptions_t options;
  ASSERT_EQ(cudecompGridDescAutotuneOptionsSetDefaults(&options), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, &options), CUDECOMP_RESULT_SUCCESS)
      << cudecompGetLastErrorMessage();
  EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
}

TEST(DecompUpstreamFactsHostBuild, HostBufferSurvivesNoOpHalosAndInPlaceTransposes) {
  if (wavestack::decomp::device_available()) {
    GTEST_SKIP() << "a CUDA device is visible, so cudecompMalloc returns device memory; upstream's fact is about "
                    "its CPU-only build, where it is host memory";
  }
  cudecompHandle_t handle = nullptr;
  ASSERT_EQ(cudecompInit(&handle, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  cudecompGridDescConfig_t config;
  ASSERT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 8;
  config.pdims[0] = world_size();
  config.pdims[1] = 1;
  cudecompGridDesc_t grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);

  constexpr size_t kElements = 512;  // the whole 8^3 grid: enough for every pencil of any rank
  void* buffer = nullptr;
  ASSERT_EQ(cudecompMalloc(handle, grid, &buffer, kElements * sizeof(float)), CUDECOMP_RESULT_SUCCESS);
  int64_t work_elements = 0;
  ASSERT_EQ(cudecompGetTransposeWorkspaceSize(handle, grid, &work_elements), CUDECOMP_RESULT_SUCCESS);
  std::vector<float> work(static_cast<size_t>(work_elements) + 1);
  auto* values = static_cast<float*>(buffer);
  std::fill_n(values, kElements, 7.0f);
  EXPECT_EQ(values[kElements - 1], 7.0f);

  // Any non-null stream: host buffers ignore it.
  static char stream_stand_in = 0;
  const auto stream = reinterpret_cast<cudaStream_t>(&stream_stand_in);
  const int32_t no_halo[3] = {0, 0, 0};
  const bool no_periods[3] = {false, false, false};
  for (const auto update : {cudecompUpdateHalosX, cudecompUpdateHalosY, cudecompUpdateHalosZ}) {
    EXPECT_EQ(update(handle, grid, buffer, work.data(), CUDECOMP_FLOAT, no_halo, no_periods, 0, nullptr, stream),
              CUDECOMP_RESULT_SUCCESS)
        << cudecompGetLastErrorMessage();
  }
  for (const auto transpose :
       {cudecompTransposeXToY, cudecompTransposeYToZ, cudecompTransposeZToY, cudecompTransposeYToX}) {
    EXPECT_EQ(transpose(handle, grid, buffer, buffer, work.data(), CUDECOMP_FLOAT, nullptr, nullptr, nullptr, nullptr,
                        stream),
              CUDECOMP_RESULT_SUCCESS)
        << cudecompGetLastErrorMessage();
  }
  EXPECT_EQ(std::count(values, values + kElements, 7.0f), static_cast<std::ptrdiff_t>(kElements));

  EXPECT_EQ(cudecompFree(handle, grid, buffer), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompGridDescDestroy(handle, grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle), CUDECOMP_RESULT_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Upstream's four-rank cases: a handle on MPI_COMM_WORLD and the 9 x 10 x 11 grid on 2 x 2.

class DecompUpstreamFacts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (world_size() != kRanks) {
      GTEST_SKIP() << "upstream's facts are for " << kRanks << " ranks on a 2 x 2 grid; this run has " << world_size();
    }
    ASSERT_EQ(cudecompInit(&handle_, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  }

  void TearDown() override {
    for (auto it = grids_.rbegin(); it != grids_.rend(); ++it) {
      EXPECT_EQ(cudecompGridDescDestroy(it->first, it->second), CUDECOMP_RESULT_SUCCESS);
    }
    if (handle_ != nullptr) {
      EXPECT_EQ(cudecompFinalize(handle_), CUDECOMP_RESULT_SUCCESS);
    }
  }

  // Defaults with upstream's gdims and pdims.
  static cudecompGridDescConfig_t base_config() {
    cudecompGridDescConfig_t config;
    EXPECT_EQ(cudecompGridDescConfigSetDefaults(&config), CUDECOMP_RESULT_SUCCESS);
    for (int i = 0; i < 3; ++i) config.gdims[i] = kGdims[i];
    config.pdims[0] = kPdims[0];
    config.pdims[1] = kPdims[1];
    return config;
  }

  // Y distributed as a single plane: on the X and Z pencils the first process row owns no Y.
  static cudecompGridDescConfig_t empty_pencil_config() {
    auto config = base_config();
    config.gdims_dist[0] = kGdims[0];
    config.gdims_dist[1] = 1;
    config.gdims_dist[2] = kGdims[2];
    return config;
  }

  // Autotune options for short trials on MPI backends only.
  static cudecompGridDescAutotuneOptions_t quick_options() {
    cudecompGridDescAutotuneOptions_t options;
    EXPECT_EQ(cudecompGridDescAutotuneOptionsSetDefaults(&options), CUDECOMP_RESULT_SUCCESS);
    options.n_warmup_trials = 0;
    options.n_trials = 1;
    options.dtype = CUDECOMP_FLOAT;
    options.disable_nccl_backends = true;
    options.disable_nvshmem_backends = true;
    return options;
  }

  // Creates a grid on `handle` (default: the fixture's), destroyed in TearDown; null on failure.
  cudecompGridDesc_t create(cudecompGridDescConfig_t& config,
                            const cudecompGridDescAutotuneOptions_t* options = nullptr,
                            cudecompHandle_t handle = nullptr) {
    if (handle == nullptr) handle = handle_;
    cudecompGridDesc_t grid = nullptr;
    const cudecompResult_t result = cudecompGridDescCreate(handle, &grid, &config, options);
    EXPECT_EQ(result, CUDECOMP_RESULT_SUCCESS) << cudecompGetLastErrorMessage();
    if (result != CUDECOMP_RESULT_SUCCESS) return nullptr;
    grids_.emplace_back(handle, grid);
    return grid;
  }

  void expect_create_rejected(cudecompGridDescConfig_t config, const std::string& what) {
    cudecompGridDesc_t grid = nullptr;
    const cudecompResult_t result = cudecompGridDescCreate(handle_, &grid, &config, nullptr);
    EXPECT_EQ(result, CUDECOMP_RESULT_INVALID_USAGE) << what;
    if (result == CUDECOMP_RESULT_SUCCESS) {
      EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
    }
  }

  void expect_pencils(cudecompGridDesc_t grid, const PencilTable& table) {
    const int rank = world_rank();
    for (int axis = 0; axis < 3; ++axis) {
      SCOPED_TRACE("axis " + std::to_string(axis) + ", rank " + std::to_string(rank));
      cudecompPencilInfo_t info;
      ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info, axis, kHalo.data(), kPadding.data()),
                CUDECOMP_RESULT_SUCCESS)
          << cudecompGetLastErrorMessage();
      const PencilFact& fact = table[axis][rank];
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(info.shape[i], fact.shape[i]) << "shape[" << i << "]";
        EXPECT_EQ(info.lo[i], fact.lo[i]) << "lo[" << i << "]";
        EXPECT_EQ(info.hi[i], fact.hi[i]) << "hi[" << i << "]";
        EXPECT_EQ(info.order[i], i) << "order[" << i << "]";
        EXPECT_EQ(info.halo_extents[i], kHalo[i]) << "halo_extents[" << i << "]";
        EXPECT_EQ(info.padding[i], kPadding[i]) << "padding[" << i << "]";
      }
      EXPECT_EQ(info.size, fact.size);
    }
  }

  template <size_t N>
  void expect_shifts(cudecompGridDesc_t grid, const std::array<ShiftFact, N>& facts) {
    const int rank = world_rank();
    for (const ShiftFact& fact : facts) {
      int32_t shifted = -2;
      ASSERT_EQ(cudecompGetShiftedRank(handle_, grid, 0, fact.dim, fact.displacement, fact.periodic, &shifted),
                CUDECOMP_RESULT_SUCCESS);
      EXPECT_EQ(shifted, fact.expected[rank]) << "dim " << fact.dim << ", displacement " << fact.displacement
                                              << (fact.periodic ? ", periodic" : "") << ", rank " << rank;
    }
  }

  cudecompHandle_t handle_ = nullptr;
  std::vector<std::pair<cudecompHandle_t, cudecompGridDesc_t>> grids_;
};

TEST_F(DecompUpstreamFacts, PencilInfoRowMajor) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_pencils(grid, kRowMajorPencils);
}

TEST_F(DecompUpstreamFacts, PencilInfoColumnMajor) {
  auto config = base_config();
  config.rank_order = CUDECOMP_RANK_ORDER_COL_MAJOR;
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_pencils(grid, kColMajorPencils);
}

TEST_F(DecompUpstreamFacts, PencilInfoWithGdimsDist) {
  auto config = base_config();
  for (int i = 0; i < 3; ++i) config.gdims_dist[i] = kGdimsDist[i];
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_pencils(grid, kGdimsDistPencils);
}

TEST_F(DecompUpstreamFacts, EmptyPencilsHaveSizeZero) {
  auto config = empty_pencil_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  for (int axis = 0; axis < 3; ++axis) {
    cudecompPencilInfo_t info;
    ASSERT_EQ(cudecompGetPencilInfo(handle_, grid, &info, axis, nullptr, nullptr), CUDECOMP_RESULT_SUCCESS);
    const bool empty = info.shape[0] == 0 || info.shape[1] == 0 || info.shape[2] == 0;
    if (empty) {
      EXPECT_EQ(info.size, 0) << "axis " << axis;
    }
  }
}

// The grid is created, but its operations are NOT_SUPPORTED on every rank, before any buffer is
// touched (the 4-byte buffers here would not hold a pencil).
TEST_F(DecompUpstreamFacts, OperationsOnEmptyPencilGridsAreNotSupported) {
  auto config = empty_pencil_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  int input = 0, output = 0, work = 0;
  EXPECT_EQ(cudecompTransposeXToY(handle_, grid, &input, &output, &work, CUDECOMP_FLOAT, nullptr, nullptr, nullptr,
                                  nullptr, nullptr),
            CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_EQ(cudecompUpdateHalosX(handle_, grid, &input, &work, CUDECOMP_FLOAT, kHalo.data(), kPeriods.data(), 0,
                                 nullptr, nullptr),
            CUDECOMP_RESULT_NOT_SUPPORTED);
  EXPECT_EQ(input, 0);
  EXPECT_EQ(output, 0);
  EXPECT_EQ(work, 0);
}

TEST_F(DecompUpstreamFacts, PencilInfoRejectsBadArguments) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  constexpr int32_t kHuge = std::numeric_limits<int32_t>::max();
  const Int3 negative_halo = {-1, 0, 0};
  const Int3 negative_padding = {0, -1, 0};
  const Int3 huge = {kHuge, 0, 0};
  cudecompPencilInfo_t info;
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, nullptr, 0, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, -1, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, negative_halo.data(), nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, nullptr, negative_padding.data()),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, huge.data(), nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, nullptr, huge.data()), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, HugeGridIsCreatedButItsPencilSizeIsRefused) {
  auto config = base_config();
  for (auto& extent : config.gdims) extent = std::numeric_limits<int32_t>::max();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  cudecompPencilInfo_t info;
  EXPECT_EQ(cudecompGetPencilInfo(handle_, grid, &info, 0, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, ShiftedRanksRowMajor) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_shifts(grid, kRowMajorShifts);
}

TEST_F(DecompUpstreamFacts, ShiftedRanksColumnMajor) {
  auto config = base_config();
  config.rank_order = CUDECOMP_RANK_ORDER_COL_MAJOR;
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_shifts(grid, kColMajorShifts);
}

TEST_F(DecompUpstreamFacts, ShiftedRankAlongTheWholeDimensionOrByNothing) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  const int rank = world_rank();
  const auto shifted = [&](int32_t dim, int32_t displacement, bool periodic) {
    int32_t result = -2;
    EXPECT_EQ(cudecompGetShiftedRank(handle_, grid, 0, dim, displacement, periodic, &result), CUDECOMP_RESULT_SUCCESS);
    return result;
  };
  EXPECT_EQ(shifted(1, 0, false), rank);         // no displacement: this rank
  EXPECT_EQ(shifted(0, 1, false), -1);           // X is whole on an X pencil: no neighbour ...
  EXPECT_EQ(shifted(0, 1, true), rank);          // ... unless periodic, when it is this rank
  EXPECT_EQ(shifted(1, kPdims[0], true), rank);  // once around the process rows
  EXPECT_EQ(shifted(1, kPdims[0], false), -1);

  int32_t result = 0;
  EXPECT_EQ(cudecompGetShiftedRank(handle_, grid, 0, 1, 1, false, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetShiftedRank(handle_, grid, 3, 1, 1, false, &result), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetShiftedRank(handle_, grid, 0, 3, 1, false, &result), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, CreateRejectsInvalidConfigs) {
  auto config = base_config();
  config.pdims[0] = config.pdims[1] = 1;
  expect_create_rejected(config, "pdims 1 x 1 on 4 ranks");
  config = base_config();
  config.pdims[0] = 0;
  config.pdims[1] = 1;
  expect_create_rejected(config, "pdims 0 x 1");
  config = base_config();
  config.pdims[0] = config.pdims[1] = -2;
  expect_create_rejected(config, "pdims -2 x -2 (product 4)");
  config = base_config();
  config.rank_order = out_of_range<cudecompRankOrder_t>();
  expect_create_rejected(config, "rank_order 999");
  config = base_config();
  config.transpose_comm_backend = out_of_range<cudecompTransposeCommBackend_t>();
  expect_create_rejected(config, "transpose_comm_backend 999");
  config = base_config();
  config.halo_comm_backend = out_of_range<cudecompHaloCommBackend_t>();
  expect_create_rejected(config, "halo_comm_backend 999");
  config = base_config();
  config.transpose_mem_order[0][0] = 0;
  expect_create_rejected(config, "transpose_mem_order set in one entry only");
  config = base_config();
  for (auto& row : config.transpose_mem_order) {
    row[0] = 0;
    row[1] = 1;
    row[2] = 1;
  }
  expect_create_rejected(config, "transpose_mem_order 0, 1, 1");
  config = base_config();
  for (int i = 0; i < 3; ++i) config.gdims_dist[i] = kGdims[i];
  config.gdims_dist[0] = kGdims[0] + 1;
  expect_create_rejected(config, "gdims_dist[0] > gdims[0]");
}

TEST_F(DecompUpstreamFacts, CreateRejectsBadArguments) {
  auto config = base_config();
  cudecompGridDesc_t grid = nullptr;
  EXPECT_EQ(cudecompGridDescCreate(nullptr, &grid, &config, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescCreate(handle_, nullptr, &config, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  // pdims 0 x 0 asks for autotuning, which needs options.
  config.pdims[0] = config.pdims[1] = 0;
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &config, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  // Options are checked even when nothing is tuned.
  config = base_config();
  auto options = quick_options();
  options.grid_mode = out_of_range<cudecompAutotuneGridMode_t>();
  EXPECT_EQ(cudecompGridDescCreate(handle_, &grid, &config, &options), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, CreateKeepsAndReportsEverySetting) {
  auto config = base_config();
  for (int i = 0; i < 3; ++i) {
    config.gdims_dist[i] = kGdimsDist[i];
    config.transpose_axis_contiguous[i] = true;
  }
  config.rank_order = CUDECOMP_RANK_ORDER_COL_MAJOR;
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_MPI_A2A;
  config.halo_comm_backend = CUDECOMP_HALO_COMM_MPI_BLOCKING;
  const auto requested = config;
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  expect_same_settings(config, requested, "config after cudecompGridDescCreate");
  cudecompGridDescConfig_t reported;
  ASSERT_EQ(cudecompGetGridDescConfig(handle_, grid, &reported), CUDECOMP_RESULT_SUCCESS);
  expect_same_settings(reported, requested, "cudecompGetGridDescConfig");

  EXPECT_EQ(cudecompGetGridDescConfig(handle_, grid, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetGridDescConfig(handle_, nullptr, &reported), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, AutotunedTransposeGridUsesAllRanksAndAnMpiBackend) {
  auto config = base_config();
  config.pdims[0] = config.pdims[1] = 0;
  auto options = quick_options();
  options.grid_mode = CUDECOMP_AUTOTUNE_GRID_TRANSPOSE;
  options.autotune_transpose_backend = true;
  const auto grid = create(config, &options);
  ASSERT_NE(grid, nullptr);
  EXPECT_GT(config.pdims[0], 0);
  EXPECT_GT(config.pdims[1], 0);
  EXPECT_EQ(config.pdims[0] * config.pdims[1], kRanks);
  const auto backend = config.transpose_comm_backend;
  EXPECT_TRUE(backend == CUDECOMP_TRANSPOSE_COMM_MPI_P2P || backend == CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL ||
              backend == CUDECOMP_TRANSPOSE_COMM_MPI_A2A)
      << cudecompTransposeCommBackendToString(backend);
  EXPECT_EQ(config.halo_comm_backend, CUDECOMP_HALO_COMM_MPI);
  cudecompGridDescConfig_t reported;
  ASSERT_EQ(cudecompGetGridDescConfig(handle_, grid, &reported), CUDECOMP_RESULT_SUCCESS);
  expect_same_settings(reported, config, "cudecompGetGridDescConfig after transpose autotuning");
}

TEST_F(DecompUpstreamFacts, AutotunedHaloGridUsesAllRanksAndAnMpiBackend) {
  auto config = base_config();
  config.pdims[0] = config.pdims[1] = 0;
  auto options = quick_options();
  options.grid_mode = CUDECOMP_AUTOTUNE_GRID_HALO;
  options.autotune_halo_backend = true;
  for (int i = 0; i < 3; ++i) {
    options.halo_extents[i] = kHalo[i];
    options.halo_periods[i] = kPeriods[i];
    options.halo_padding[i] = kPadding[i];
  }
  const auto grid = create(config, &options);
  ASSERT_NE(grid, nullptr);
  EXPECT_GT(config.pdims[0], 0);
  EXPECT_GT(config.pdims[1], 0);
  EXPECT_EQ(config.pdims[0] * config.pdims[1], kRanks);
  EXPECT_EQ(config.transpose_comm_backend, CUDECOMP_TRANSPOSE_COMM_MPI_P2P);
  const auto backend = config.halo_comm_backend;
  EXPECT_TRUE(backend == CUDECOMP_HALO_COMM_MPI || backend == CUDECOMP_HALO_COMM_MPI_BLOCKING)
      << cudecompHaloCommBackendToString(backend);
  cudecompGridDescConfig_t reported;
  ASSERT_EQ(cudecompGetGridDescConfig(handle_, grid, &reported), CUDECOMP_RESULT_SUCCESS);
  expect_same_settings(reported, config, "cudecompGetGridDescConfig after halo autotuning");
}

TEST_F(DecompUpstreamFacts, WorkspaceSizeQueriesRejectBadArguments) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  int64_t size = 0;
  EXPECT_EQ(cudecompGetTransposeWorkspaceSize(handle_, grid, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetTransposeWorkspaceSize(handle_, nullptr, &size), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetHaloWorkspaceSize(handle_, grid, 0, nullptr, &size), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetHaloWorkspaceSize(handle_, grid, 0, kHalo.data(), nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGetHaloWorkspaceSize(handle_, grid, 3, kHalo.data(), &size), CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, MallocAndFreeRejectBadArguments) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  void* buffer = nullptr;
  EXPECT_EQ(cudecompMalloc(handle_, grid, nullptr, 16), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompMalloc(handle_, grid, &buffer, 0), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_EQ(cudecompFree(nullptr, grid, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompFree(handle_, nullptr, nullptr), CUDECOMP_RESULT_INVALID_USAGE);
}

// The argument checks of the transposes and halo updates, a null work pointer included (no
// workspace of the library's own stands in for it). The buffers are never touched: every call
// fails its checks first.
TEST_F(DecompUpstreamFacts, TransposeAndHaloRejectBadArguments) {
  auto config = base_config();
  const auto grid = create(config);
  ASSERT_NE(grid, nullptr);
  int placeholder = 0;
  void* some = &placeholder;
  const auto bad_dtype = out_of_range<cudecompDataType_t>();
  EXPECT_EQ(cudecompTransposeXToY(handle_, grid, nullptr, some, some, CUDECOMP_FLOAT, nullptr, nullptr, nullptr,
                                  nullptr, nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompTransposeXToY(handle_, grid, some, nullptr, some, CUDECOMP_FLOAT, nullptr, nullptr, nullptr,
                                  nullptr, nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompTransposeXToY(handle_, grid, some, some, nullptr, CUDECOMP_FLOAT, nullptr, nullptr, nullptr,
                                  nullptr, nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(
      cudecompTransposeXToY(handle_, grid, some, some, some, bad_dtype, nullptr, nullptr, nullptr, nullptr, nullptr),
      CUDECOMP_RESULT_INVALID_USAGE);

  EXPECT_EQ(
      cudecompUpdateHalosX(handle_, grid, some, some, CUDECOMP_FLOAT, nullptr, kPeriods.data(), 0, nullptr, nullptr),
      CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompUpdateHalosX(handle_, grid, nullptr, some, CUDECOMP_FLOAT, kHalo.data(), kPeriods.data(), 0,
                                 nullptr, nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompUpdateHalosX(handle_, grid, some, nullptr, CUDECOMP_FLOAT, kHalo.data(), kPeriods.data(), 0,
                                 nullptr, nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompUpdateHalosX(handle_, grid, some, some, CUDECOMP_FLOAT, kHalo.data(), kPeriods.data(), 3, nullptr,
                                 nullptr),
            CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(
      cudecompUpdateHalosX(handle_, grid, some, some, bad_dtype, kHalo.data(), kPeriods.data(), 0, nullptr, nullptr),
      CUDECOMP_RESULT_INVALID_USAGE);
}

TEST_F(DecompUpstreamFacts, TwoLiveHandlesKeepTheirGridsApart) {
  cudecompHandle_t second = nullptr;
  ASSERT_EQ(cudecompInit(&second, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  auto config = base_config();
  const auto grid = create(config);
  auto second_config = base_config();
  second_config.rank_order = CUDECOMP_RANK_ORDER_COL_MAJOR;
  const auto second_grid = create(second_config, nullptr, second);
  ASSERT_NE(grid, nullptr);
  ASSERT_NE(second_grid, nullptr);

  // A grid descriptor belongs to the handle that created it.
  cudecompGridDescConfig_t reported;
  EXPECT_EQ(cudecompGetGridDescConfig(second, grid, &reported), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(cudecompGridDescDestroy(second, grid), CUDECOMP_RESULT_INVALID_USAGE);
  void* stray = nullptr;
  EXPECT_EQ(cudecompMalloc(second, grid, &stray, 1024), CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT_EQ(stray, nullptr);

  void* buffer = nullptr;
  void* second_buffer = nullptr;
  EXPECT_EQ(cudecompMalloc(handle_, grid, &buffer, 1024), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompMalloc(second, second_grid, &second_buffer, 2048), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFree(handle_, grid, buffer), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFree(second, second_grid, second_buffer), CUDECOMP_RESULT_SUCCESS);

  // Destroy the second handle's grid here, so that the handle can go before the fixture's.
  ASSERT_EQ(grids_.back().second, second_grid);
  EXPECT_EQ(cudecompGridDescDestroy(second, second_grid), CUDECOMP_RESULT_SUCCESS);
  grids_.pop_back();
  EXPECT_EQ(cudecompFinalize(second), CUDECOMP_RESULT_SUCCESS);
}

TEST_F(DecompUpstreamFacts, HandlesFinalizeInCreationOrder) {
  cudecompHandle_t second = nullptr;
  ASSERT_EQ(cudecompInit(&second, MPI_COMM_WORLD), CUDECOMP_RESULT_SUCCESS);
  auto config = base_config();
  auto second_config = base_config();
  cudecompGridDesc_t grid = nullptr;
  cudecompGridDesc_t second_grid = nullptr;
  ASSERT_EQ(cudecompGridDescCreate(handle_, &grid, &config, nullptr), CUDECOMP_RESULT_SUCCESS);
  ASSERT_EQ(cudecompGridDescCreate(second, &second_grid, &second_config, nullptr), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompGridDescDestroy(handle_, grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompGridDescDestroy(second, second_grid), CUDECOMP_RESULT_SUCCESS);
  EXPECT_EQ(cudecompFinalize(handle_), CUDECOMP_RESULT_SUCCESS);
  handle_ = nullptr;
  EXPECT_EQ(cudecompFinalize(second), CUDECOMP_RESULT_SUCCESS);
}

}  // namespace
