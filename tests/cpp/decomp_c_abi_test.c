/*
 * A C program built only against include/cudecomp.h, as a program built against upstream
 * cuDecomp 0.7's header is: it checks the versioned struct ABI (struct_size/magic/version and
 * the *Versioned entry points), cudecompInit_F, the backend names, the validation errors, and
 * runs a transpose cycle X -> Y -> Z -> Y -> X whose every element must equal a function of its
 * global index. As upstream's library, it refuses a null work pointer (INVALID_USAGE) and any
 * operation on a grid that leaves some rank's pencil empty (NOT_SUPPORTED), touching no buffer.
 * Run by mpiexec (1 and 3 ranks; the 2x2x2 grid on a 1 x 3 process grid leaves pencils empty).
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_test_expect.h"
#include "cudecomp.h"

/* Guard elements after each pencil buffer: a write outside the pencil changes one of them. */
enum { kGuard = 64 };
static const double kSentinel = -12345.0;

static double global_value(const int32_t g[3], const int32_t gdims[3]) {
  return (double)g[0] + (double)g[1] * gdims[0] + (double)g[2] * gdims[0] * gdims[1];
}

static void fill(double* data, const cudecompPencilInfo_t* info, const int32_t gdims[3]) {
  for (int64_t i = 0; i < info->size; ++i) data[i] = -1.0;
  for (int32_t k = 0; k <= info->hi[2] - info->lo[2]; ++k)
    for (int32_t j = 0; j <= info->hi[1] - info->lo[1]; ++j)
      for (int32_t i = 0; i <= info->hi[0] - info->lo[0]; ++i) {
        int32_t g[3];
        g[info->order[0]] = info->lo[0] + i;
        g[info->order[1]] = info->lo[1] + j;
        g[info->order[2]] = info->lo[2] + k;
        data[i + (int64_t)info->shape[0] * (j + (int64_t)info->shape[1] * k)] = global_value(g, gdims);
      }
}

static int check(const double* data, const cudecompPencilInfo_t* info, const int32_t gdims[3]) {
  int bad = 0;
  for (int32_t k = 0; k <= info->hi[2] - info->lo[2]; ++k)
    for (int32_t j = 0; j <= info->hi[1] - info->lo[1]; ++j)
      for (int32_t i = 0; i <= info->hi[0] - info->lo[0]; ++i) {
        int32_t g[3];
        g[info->order[0]] = info->lo[0] + i;
        g[info->order[1]] = info->lo[1] + j;
        g[info->order[2]] = info->lo[2] + k;
        if (data[i + (int64_t)info->shape[0] * (j + (int64_t)info->shape[1] * k)] != global_value(g, gdims)) ++bad;
      }
  for (int i = 0; i < kGuard; ++i) bad += data[info->size + i] != kSentinel;
  return bad;
}

static double* guarded_buffer(int64_t elements) {
  double* data = (double*)malloc((size_t)(elements + kGuard) * sizeof(double));
  for (int i = 0; i < kGuard; ++i) data[elements + i] = kSentinel;
  return data;
}

static void check_struct_abi(void) {
  cudecompGridDescConfig_t config;
  cudecompGridDescAutotuneOptions_t options;
  memset(&config, 0, sizeof(config));
  EXPECT(cudecompGridDescConfigSetDefaults(&config) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(config.struct_size == (int64_t)sizeof(config));
  EXPECT(config.magic == CUDECOMP_GRID_DESC_CONFIG_MAGIC);
  EXPECT(config.version == CUDECOMP_GRID_DESC_CONFIG_VERSION);
  EXPECT(config.transpose_mem_order[2][2] == -1);
  EXPECT(cudecompGridDescAutotuneOptionsSetDefaults(&options) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(options.magic == CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC);
  EXPECT(options.version == CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION);
  EXPECT(!options.disable_mpi_backends && !options.disable_nccl_backends && !options.disable_nvshmem_backends);
  EXPECT(options.n_warmup_trials == 3 && options.n_trials == 5);
  /* A caller whose header describes another size or an unknown version is refused. */
  EXPECT(cudecompGridDescConfigSetDefaultsVersioned(
             &config, (int64_t)sizeof(config) - 8, CUDECOMP_GRID_DESC_CONFIG_VERSION) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(cudecompGridDescConfigSetDefaultsVersioned(&config, (int64_t)sizeof(config), 99) ==
         CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(cudecompGridDescAutotuneOptionsSetDefaultsVersioned(&options, 16, 1) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(CUDECOMP_MAJOR == 0 && CUDECOMP_MINOR == 7 && CUDECOMP_PATCH == 0);
  EXPECT(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM == 8);
}

static void check_names(void) {
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_P2P), "MPI_P2P") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL), "MPI_P2P (pipelined)") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_MPI_A2A), "MPI_A2A") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NCCL), "NCCL") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NCCL_PL), "NCCL (pipelined)") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NVSHMEM), "NVSHMEM") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL), "NVSHMEM (pipelined)") == 0);
  EXPECT(strcmp(cudecompTransposeCommBackendToString((cudecompTransposeCommBackend_t)42), "ERROR") == 0);
  EXPECT(strcmp(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_MPI), "MPI") == 0);
  EXPECT(strcmp(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_MPI_BLOCKING), "MPI (blocking)") == 0);
  EXPECT(strcmp(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NCCL), "NCCL") == 0);
  EXPECT(strcmp(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NVSHMEM), "NVSHMEM") == 0);
  EXPECT(strcmp(cudecompHaloCommBackendToString(CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING), "NVSHMEM (blocking)") == 0);
}

/* One transpose cycle on a 1 x nranks grid; every pencil is checked against its global indices. */
static void transpose_cycle(cudecompHandle_t handle, int nranks, const int32_t gdims[3],
                            cudecompTransposeCommBackend_t backend) {
  cudecompGridDescConfig_t config;
  cudecompGridDesc_t grid = NULL;
  cudecompPencilInfo_t info[3];
  double* pencil[3];
  double* work = NULL;
  int64_t work_elements = 0;
  int axis;
  EXPECT(cudecompGridDescConfigSetDefaults(&config) == CUDECOMP_RESULT_SUCCESS);
  memcpy(config.gdims, gdims, sizeof(config.gdims));
  config.pdims[0] = 1;
  config.pdims[1] = nranks;
  config.transpose_comm_backend = backend;
  config.transpose_axis_contiguous[1] = true;
  if (cudecompGridDescCreate(handle, &grid, &config, NULL) != CUDECOMP_RESULT_SUCCESS) {
    EXPECT(!"cudecompGridDescCreate");
    return;
  }
  for (axis = 0; axis < 3; ++axis) {
    EXPECT(cudecompGetPencilInfo(handle, grid, &info[axis], axis, NULL, NULL) == CUDECOMP_RESULT_SUCCESS);
    EXPECT(info[axis].magic == CUDECOMP_PENCIL_INFO_MAGIC && info[axis].struct_size == (int64_t)sizeof(info[axis]));
    pencil[axis] = guarded_buffer(info[axis].size);
  }
  EXPECT(cudecompGetTransposeWorkspaceSize(handle, grid, &work_elements) == CUDECOMP_RESULT_SUCCESS);
  work = guarded_buffer(work_elements);
  fill(pencil[0], &info[0], gdims);
  /* No workspace of the library's own stands in for a null one; nothing is written. */
  EXPECT(cudecompTransposeXToY(handle, grid, pencil[0], pencil[1], NULL, CUDECOMP_DOUBLE, NULL, NULL, NULL, NULL,
                               NULL) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(check(pencil[0], &info[0], gdims) == 0);
  EXPECT(cudecompTransposeXToY(handle, grid, pencil[0], pencil[1], work, CUDECOMP_DOUBLE, NULL, NULL, NULL, NULL,
                               NULL) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(check(pencil[1], &info[1], gdims) == 0);
  EXPECT(cudecompTransposeYToZ(handle, grid, pencil[1], pencil[2], work, CUDECOMP_DOUBLE, NULL, NULL, NULL, NULL,
                               NULL) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(check(pencil[2], &info[2], gdims) == 0);
  for (int64_t i = 0; i < info[1].size; ++i) pencil[1][i] = 0.0;
  EXPECT(cudecompTransposeZToY(handle, grid, pencil[2], pencil[1], work, CUDECOMP_DOUBLE, NULL, NULL, NULL, NULL,
                               NULL) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(check(pencil[1], &info[1], gdims) == 0);
  for (int64_t i = 0; i < info[0].size; ++i) pencil[0][i] = 0.0;
  EXPECT(cudecompTransposeYToX(handle, grid, pencil[1], pencil[0], work, CUDECOMP_DOUBLE, NULL, NULL, NULL, NULL,
                               NULL) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(check(pencil[0], &info[0], gdims) == 0);
  for (int i = 0; i < kGuard; ++i) EXPECT(work[work_elements + i] == kSentinel);
  free(work);
  for (axis = 0; axis < 3; ++axis) free(pencil[axis]);
  EXPECT(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS);
}

/*
 * Small grids, some of which leave pencils empty, on every process grid of the communicator,
 * every backend, in and out of place, with halos or padding: buffers of exactly the pencil's size
 * (or the larger of the two in place) followed by guard cells, which no transpose may touch.
 * Where the process grid has more rows than the X or Y extent, or more columns than the Y or Z
 * extent, every rank's transposes are NOT_SUPPORTED (upstream's rule); the others succeed.
 */
static void small_grid_sweep(cudecompHandle_t handle, int nranks) {
  static const int32_t grids[][3] = {{2, 2, 2}, {1, 3, 2}, {3, 1, 1}, {1, 1, 1}};
  for (size_t gi = 0; gi < sizeof(grids) / sizeof(grids[0]); ++gi) {
    for (int rows = 1; rows <= nranks; ++rows) {
      if (nranks % rows != 0) continue;
      for (int backend = CUDECOMP_TRANSPOSE_COMM_MPI_P2P; backend <= CUDECOMP_TRANSPOSE_COMM_MPI_A2A; ++backend) {
        for (int variant = 0; variant < 4; ++variant) {
          const int in_place = variant & 1, with_halo = variant >> 1;
          const int32_t halo[3] = {with_halo, with_halo, with_halo}, padding[3] = {1 - with_halo, 0, 2};
          cudecompGridDescConfig_t config;
          cudecompGridDesc_t grid = NULL;
          cudecompPencilInfo_t info[3];
          double* pencil[3];
          int64_t size[3], largest = 0, work_elements = 0;
          int axis, bad = 0;
          const int cols = nranks / rows;
          const int32_t* g = grids[gi];
          const int empty = rows > (g[0] < g[1] ? g[0] : g[1]) || cols > (g[1] < g[2] ? g[1] : g[2]);
          const cudecompResult_t expected = empty ? CUDECOMP_RESULT_NOT_SUPPORTED : CUDECOMP_RESULT_SUCCESS;
          double* work;
          EXPECT(cudecompGridDescConfigSetDefaults(&config) == CUDECOMP_RESULT_SUCCESS);
          memcpy(config.gdims, grids[gi], sizeof(config.gdims));
          config.pdims[0] = rows;
          config.pdims[1] = cols;
          config.transpose_comm_backend = (cudecompTransposeCommBackend_t)backend;
          config.transpose_axis_contiguous[0] = config.transpose_axis_contiguous[2] = true;
          if (cudecompGridDescCreate(handle, &grid, &config, NULL) != CUDECOMP_RESULT_SUCCESS) {
            EXPECT(!"cudecompGridDescCreate");
            continue;
          }
          for (axis = 0; axis < 3; ++axis) {
            EXPECT(cudecompGetPencilInfo(handle, grid, &info[axis], axis, halo, padding) == CUDECOMP_RESULT_SUCCESS);
            if (info[axis].size > largest) largest = info[axis].size;
          }
          EXPECT(cudecompGetTransposeWorkspaceSize(handle, grid, &work_elements) == CUDECOMP_RESULT_SUCCESS);
          work = guarded_buffer(work_elements);
          for (axis = 0; axis < 3; ++axis) {
            size[axis] = in_place ? largest : info[axis].size;
            pencil[axis] = guarded_buffer(size[axis]);
            for (int64_t i = 0; i < size[axis]; ++i) pencil[axis][i] = 1.0;
          }
          {
            double* in = pencil[0];
            double* y = in_place ? in : pencil[1];
            double* z = in_place ? in : pencil[2];
            bad += cudecompTransposeXToY(handle, grid, in, y, work, CUDECOMP_DOUBLE, halo, halo, padding, padding,
                                         NULL) != expected;
            bad += cudecompTransposeYToZ(handle, grid, y, z, work, CUDECOMP_DOUBLE, halo, halo, padding, padding,
                                         NULL) != expected;
            bad += cudecompTransposeZToY(handle, grid, z, y, work, CUDECOMP_DOUBLE, halo, halo, padding, padding,
                                         NULL) != expected;
            bad += cudecompTransposeYToX(handle, grid, y, in, work, CUDECOMP_DOUBLE, halo, halo, padding, padding,
                                         NULL) != expected;
          }
          for (int i = 0; i < kGuard; ++i) bad += work[work_elements + i] != kSentinel;
          free(work);
          for (axis = 0; axis < 3; ++axis) {
            for (int i = 0; i < kGuard; ++i) bad += pencil[axis][size[axis] + i] != kSentinel;
            free(pencil[axis]);
          }
          if (bad != 0) {
            fprintf(stderr,
                    "rank %d: small-grid sweep: gdims %d,%d,%d pdims %dx%d (empty pencils: %d) backend %d in_place %d "
                    "halo %d\n",
                    rank, g[0], g[1], g[2], rows, cols, empty, backend, in_place, with_halo);
            ++failures;
          }
          EXPECT(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS);
        }
      }
    }
  }
}

static void check_validation(cudecompHandle_t handle, int nranks) {
  cudecompGridDescConfig_t config;
  cudecompGridDesc_t grid = NULL;
  cudecompPencilInfo_t info;
  void* buffer = NULL;
  const int32_t huge_halo[3] = {INT32_MAX / 2, 0, 0};
  /* A config that cudecompGridDescConfigSetDefaults never saw is refused. */
  memset(&config, 0, sizeof(config));
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 4;
  config.pdims[0] = 1;
  config.pdims[1] = nranks;
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_MPI_P2P;
  config.halo_comm_backend = CUDECOMP_HALO_COMM_MPI;
  EXPECT(cudecompGridDescCreate(handle, &grid, &config, NULL) == CUDECOMP_RESULT_INVALID_USAGE);

  /* gdims near INT32_MAX: the pencil has more than INT64_MAX elements. */
  EXPECT(cudecompGridDescConfigSetDefaults(&config) == CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = config.gdims[1] = config.gdims[2] = INT32_MAX - 1;
  config.pdims[0] = 1;
  config.pdims[1] = nranks;
  EXPECT(cudecompGridDescCreate(handle, &grid, &config, NULL) == CUDECOMP_RESULT_SUCCESS);
  info.size = 7;
  EXPECT(cudecompGetPencilInfo(handle, grid, &info, 0, NULL, NULL) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(info.size == 7); /* nothing written on failure */
  EXPECT(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS);

  /* A halo whose pencil extent exceeds INT32_MAX, and a zero-byte allocation. */
  EXPECT(cudecompGridDescConfigSetDefaults(&config) == CUDECOMP_RESULT_SUCCESS);
  config.gdims[0] = config.gdims[1] = config.gdims[2] = 4;
  config.pdims[0] = 1;
  config.pdims[1] = nranks;
  EXPECT(cudecompGridDescCreate(handle, &grid, &config, NULL) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(cudecompGetPencilInfo(handle, grid, &info, 0, huge_halo, NULL) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(cudecompGetPencilInfo(handle, grid, &info, 0, NULL, huge_halo) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(info.shape[0] == 4 + INT32_MAX / 2 && info.size > 0);
  {
    const int32_t huge_padding[3] = {INT32_MAX - 3, 0, 0};
    EXPECT(cudecompGetPencilInfo(handle, grid, &info, 0, NULL, huge_padding) == CUDECOMP_RESULT_INVALID_USAGE);
  }
  EXPECT(cudecompMalloc(handle, grid, &buffer, 0) == CUDECOMP_RESULT_INVALID_USAGE);
  EXPECT(buffer == NULL);
  EXPECT(cudecompMalloc(handle, grid, &buffer, 8) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(buffer != NULL);
  EXPECT(cudecompFree(handle, grid, buffer) == CUDECOMP_RESULT_SUCCESS);
  EXPECT(cudecompGridDescDestroy(handle, grid) == CUDECOMP_RESULT_SUCCESS);
}

int main(int argc, char** argv) {
  cudecompHandle_t handle = NULL;
  int nranks = 1;
  const int32_t uneven[3] = {5, 4, 3};
  const int32_t small[3] = {3, 3, 3};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  setenv("CUDECOMP_QUIET_ERRORS", "1", 1);

  check_struct_abi();
  check_names();
  /* The Fortran entry point: the communicator travels as an MPI_Fint. */
  EXPECT(cudecompInit_F(&handle, MPI_Comm_c2f(MPI_COMM_WORLD)) == CUDECOMP_RESULT_SUCCESS);
  if (handle != NULL) {
    check_validation(handle, nranks);
    transpose_cycle(handle, nranks, uneven, CUDECOMP_TRANSPOSE_COMM_MPI_P2P);
    transpose_cycle(handle, nranks, uneven, CUDECOMP_TRANSPOSE_COMM_MPI_A2A);
    transpose_cycle(handle, nranks, small, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL);
    small_grid_sweep(handle, nranks);
    EXPECT(cudecompFinalize(handle) == CUDECOMP_RESULT_SUCCESS);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("decomp_c_abi_test: %d ranks, %d failures\n", nranks, failures);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
