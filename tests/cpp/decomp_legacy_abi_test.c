/*
 * A C program as one built against a cuDecomp header from before the versioned struct ABI would
 * be: it does not include cudecomp.h but declares the API itself, with the structs laid out as
 * those headers lay them out (no struct_size/magic/version, no rank_order, no
 * disable_mpi_backends), and calls the plain-named struct functions. It checks that the library
 * writes no byte past those smaller structs, that defaults, pencils, autotuning's write-back and
 * errors come through, and runs a transpose cycle X -> Y -> Z -> Y -> X whose every element must
 * equal a function of its global index. Run by mpiexec with 1 and 3 ranks.
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the API as a pre-0.7 header declares it ------------------------------------------------ */
typedef int cudecompResult_t; /* an enum in the header: int-sized */
enum { kSuccess = 0, kInvalidUsage = 1 };
enum { kTransposeMpiP2p = 1, kTransposeMpiP2pPl = 2, kTransposeMpiA2a = 3, kHaloMpi = 1 };
enum { kDouble = -2 };
typedef struct cudecompHandle* cudecompHandle_t;
typedef struct cudecompGridDesc* cudecompGridDesc_t;
typedef struct CUstream_st* cudaStream_t;

typedef struct {
  int32_t gdims[3];
  int32_t gdims_dist[3];
  int32_t pdims[2];
  int transpose_comm_backend;
  bool transpose_axis_contiguous[3];
  int32_t transpose_mem_order[3][3];
  int halo_comm_backend;
} cudecompGridDescConfig_t;

typedef struct {
  int32_t n_warmup_trials;
  int32_t n_trials;
  int grid_mode;
  int dtype;
  bool allow_uneven_decompositions;
  bool disable_nccl_backends;
  bool disable_nvshmem_backends;
  double skip_threshold;
  bool autotune_transpose_backend;
  bool transpose_use_inplace_buffers[4];
  double transpose_op_weights[4];
  int32_t transpose_input_halo_extents[4][3];
  int32_t transpose_output_halo_extents[4][3];
  int32_t transpose_input_padding[4][3];
  int32_t transpose_output_padding[4][3];
  bool autotune_halo_backend;
  int32_t halo_extents[3];
  bool halo_periods[3];
  int32_t halo_axis;
  int32_t halo_padding[3];
} cudecompGridDescAutotuneOptions_t;

typedef struct {
  int32_t shape[3];
  int32_t lo[3];
  int32_t hi[3];
  int32_t order[3];
  int32_t halo_extents[3];
  int32_t padding[3];
  int64_t size;
} cudecompPencilInfo_t;

cudecompResult_t cudecompInit(cudecompHandle_t* handle, MPI_Comm mpi_comm);
cudecompResult_t cudecompFinalize(cudecompHandle_t handle);
cudecompResult_t cudecompGridDescCreate(cudecompHandle_t handle, cudecompGridDesc_t* grid_desc,
                                        cudecompGridDescConfig_t* config,
                                        const cudecompGridDescAutotuneOptions_t* options);
cudecompResult_t cudecompGridDescDestroy(cudecompHandle_t handle, cudecompGridDesc_t grid_desc);
cudecompResult_t cudecompGridDescConfigSetDefaults(cudecompGridDescConfig_t* config);
cudecompResult_t cudecompGridDescAutotuneOptionsSetDefaults(cudecompGridDescAutotuneOptions_t* options);
cudecompResult_t cudecompGetPencilInfo(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                       cudecompPencilInfo_t* pencil_info, int32_t axis, const int32_t halo_extents[],
                                       const int32_t padding[]);
cudecompResult_t cudecompGetGridDescConfig(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                           cudecompGridDescConfig_t* config);
cudecompResult_t cudecompGetTransposeWorkspaceSize(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                   int64_t* workspace_size);
cudecompResult_t cudecompMalloc(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer,
                                size_t buffer_size_bytes);
cudecompResult_t cudecompFree(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* buffer);
#define TRANSPOSE(name)                                                                                               \
  cudecompResult_t name(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output, void* work, \
                        int dtype, const int32_t input_halo_extents[], const int32_t output_halo_extents[],           \
                        const int32_t input_padding[], const int32_t output_padding[], cudaStream_t stream)
TRANSPOSE(cudecompTransposeXToY);
TRANSPOSE(cudecompTransposeYToZ);
TRANSPOSE(cudecompTransposeZToY);
TRANSPOSE(cudecompTransposeYToX);

/* --- checks ---------------------------------------------------------------------------------- */
#include "c_test_expect.h"

/* Each struct is followed by guard words: the current structs are larger, so a library that
 * wrote them in place of the old ones would overwrite the guard. */
enum { kGuardWords = 8 };
static const uint64_t kGuardValue = 0x5A5A5A5A5A5A5A5AULL;

struct GuardedConfig {
  cudecompGridDescConfig_t config;
  uint64_t guard[kGuardWords];
};
struct GuardedOptions {
  cudecompGridDescAutotuneOptions_t options;
  uint64_t guard[kGuardWords];
};
struct GuardedInfo {
  cudecompPencilInfo_t info;
  uint64_t guard[kGuardWords];
};

static int guard_intact(const uint64_t guard[kGuardWords]) {
  for (int i = 0; i < kGuardWords; ++i) {
    if (guard[i] != kGuardValue) return 0;
  }
  return 1;
}

static void set_guard(uint64_t guard[kGuardWords]) {
  for (int i = 0; i < kGuardWords; ++i) guard[i] = kGuardValue;
}

static double global_value(const int32_t g[3], const int32_t gdims[3]) {
  return (double)g[0] + (double)g[1] * gdims[0] + (double)g[2] * gdims[0] * gdims[1];
}

/* The owned element (i, j, k) of a pencil, counted from lo in local order: its index in the
 * buffer and the value its global coordinates give it. */
static int64_t element_index(const cudecompPencilInfo_t* info, int32_t i, int32_t j, int32_t k) {
  return i + (int64_t)info->shape[0] * (j + (int64_t)info->shape[1] * k);
}

static double element_value(const cudecompPencilInfo_t* info, int32_t i, int32_t j, int32_t k, const int32_t gdims[3]) {
  int32_t g[3];
  g[info->order[0]] = info->lo[0] + i;
  g[info->order[1]] = info->lo[1] + j;
  g[info->order[2]] = info->lo[2] + k;
  return global_value(g, gdims);
}

static void fill(double* data, const cudecompPencilInfo_t* info, const int32_t gdims[3]) {
  for (int32_t k = 0; k <= info->hi[2] - info->lo[2]; ++k)
    for (int32_t j = 0; j <= info->hi[1] - info->lo[1]; ++j)
      for (int32_t i = 0; i <= info->hi[0] - info->lo[0]; ++i)
        data[element_index(info, i, j, k)] = element_value(info, i, j, k, gdims);
}

static int64_t count_wrong(const double* data, const cudecompPencilInfo_t* info, const int32_t gdims[3]) {
  int64_t wrong = 0;
  for (int32_t k = 0; k <= info->hi[2] - info->lo[2]; ++k)
    for (int32_t j = 0; j <= info->hi[1] - info->lo[1]; ++j)
      for (int32_t i = 0; i <= info->hi[0] - info->lo[0]; ++i)
        wrong += data[element_index(info, i, j, k)] != element_value(info, i, j, k, gdims);
  return wrong;
}

static void check_defaults(void) {
  struct GuardedConfig c;
  struct GuardedOptions o;
  memset(&c, 0x7f, sizeof(c));
  set_guard(c.guard);
  EXPECT(cudecompGridDescConfigSetDefaults(&c.config) == kSuccess);
  EXPECT(guard_intact(c.guard));
  EXPECT(c.config.gdims[0] == 0 && c.config.gdims_dist[2] == 0 && c.config.pdims[0] == 0 && c.config.pdims[1] == 0);
  EXPECT(c.config.transpose_comm_backend == kTransposeMpiP2p && c.config.halo_comm_backend == kHaloMpi);
  EXPECT(!c.config.transpose_axis_contiguous[0] && !c.config.transpose_axis_contiguous[2]);
  EXPECT(c.config.transpose_mem_order[0][0] == -1 && c.config.transpose_mem_order[2][2] == -1);
  memset(&o, 0x7f, sizeof(o));
  set_guard(o.guard);
  EXPECT(cudecompGridDescAutotuneOptionsSetDefaults(&o.options) == kSuccess);
  EXPECT(guard_intact(o.guard));
  EXPECT(o.options.n_warmup_trials == 3 && o.options.n_trials == 5 && o.options.dtype == kDouble);
  EXPECT(o.options.allow_uneven_decompositions && !o.options.disable_nccl_backends);
  EXPECT(o.options.transpose_op_weights[0] == 1.0 && o.options.transpose_op_weights[3] == 1.0);
  EXPECT(o.options.halo_padding[2] == 0 && o.options.halo_axis == 0 && !o.options.autotune_halo_backend);
  EXPECT(cudecompGridDescConfigSetDefaults(NULL) == kInvalidUsage);
  EXPECT(cudecompGridDescAutotuneOptionsSetDefaults(NULL) == kInvalidUsage);
}

/* One transpose cycle on a 1 x nranks grid with the caller's workspace from cudecompMalloc. */
static void transpose_cycle(cudecompHandle_t handle, int nranks, int backend) {
  static const int32_t gdims[3] = {8, 6, 5};
  struct GuardedConfig c;
  struct GuardedInfo info[3];
  cudecompGridDesc_t grid = NULL;
  double* pencil[3];
  void* work = NULL;
  int64_t work_elements = 0;
  EXPECT(cudecompGridDescConfigSetDefaults(&c.config) == kSuccess);
  set_guard(c.guard);
  memcpy(c.config.gdims, gdims, sizeof(gdims));
  c.config.pdims[0] = 1;
  c.config.pdims[1] = nranks;
  c.config.transpose_comm_backend = backend;
  c.config.transpose_axis_contiguous[1] = true;
  if (cudecompGridDescCreate(handle, &grid, &c.config, NULL) != kSuccess) {
    EXPECT(!"cudecompGridDescCreate");
    return;
  }
  EXPECT(guard_intact(c.guard));
  for (int axis = 0; axis < 3; ++axis) {
    set_guard(info[axis].guard);
    EXPECT(cudecompGetPencilInfo(handle, grid, &info[axis].info, axis, NULL, NULL) == kSuccess);
    EXPECT(guard_intact(info[axis].guard));
    EXPECT(info[axis].info.order[0] == (axis == 1 ? 1 : 0));
    EXPECT(info[axis].info.size ==
           (int64_t)info[axis].info.shape[0] * info[axis].info.shape[1] * info[axis].info.shape[2]);
    pencil[axis] = (double*)calloc((size_t)info[axis].info.size + 1, sizeof(double));
  }
  EXPECT(cudecompGetTransposeWorkspaceSize(handle, grid, &work_elements) == kSuccess);
  EXPECT(cudecompMalloc(handle, grid, &work, (size_t)(work_elements + 1) * sizeof(double)) == kSuccess);
  fill(pencil[0], &info[0].info, gdims);
  EXPECT(cudecompTransposeXToY(handle, grid, pencil[0], pencil[1], work, kDouble, NULL, NULL, NULL, NULL, NULL) ==
         kSuccess);
  EXPECT(count_wrong(pencil[1], &info[1].info, gdims) == 0);
  EXPECT(cudecompTransposeYToZ(handle, grid, pencil[1], pencil[2], work, kDouble, NULL, NULL, NULL, NULL, NULL) ==
         kSuccess);
  EXPECT(count_wrong(pencil[2], &info[2].info, gdims) == 0);
  memset(pencil[1], 0, (size_t)info[1].info.size * sizeof(double));
  EXPECT(cudecompTransposeZToY(handle, grid, pencil[2], pencil[1], work, kDouble, NULL, NULL, NULL, NULL, NULL) ==
         kSuccess);
  EXPECT(count_wrong(pencil[1], &info[1].info, gdims) == 0);
  memset(pencil[0], 0, (size_t)info[0].info.size * sizeof(double));
  EXPECT(cudecompTransposeYToX(handle, grid, pencil[1], pencil[0], work, kDouble, NULL, NULL, NULL, NULL, NULL) ==
         kSuccess);
  EXPECT(count_wrong(pencil[0], &info[0].info, gdims) == 0);
  EXPECT(cudecompFree(handle, grid, work) == kSuccess);
  for (int axis = 0; axis < 3; ++axis) free(pencil[axis]);
  EXPECT(cudecompGridDescDestroy(handle, grid) == kSuccess);
}

/* Process grid and transpose backend autotuning: the choice is written back into the caller's
 * (old-layout) config and reported again by cudecompGetGridDescConfig. */
static void autotune(cudecompHandle_t handle, int nranks) {
  struct GuardedConfig c, queried;
  struct GuardedOptions o;
  cudecompGridDesc_t grid = NULL;
  EXPECT(cudecompGridDescConfigSetDefaults(&c.config) == kSuccess);
  EXPECT(cudecompGridDescAutotuneOptionsSetDefaults(&o.options) == kSuccess);
  set_guard(c.guard);
  set_guard(o.guard);
  c.config.gdims[0] = 12;
  c.config.gdims[1] = 9;
  c.config.gdims[2] = 6;
  o.options.n_warmup_trials = 0;
  o.options.n_trials = 1;
  o.options.autotune_transpose_backend = true;
  if (cudecompGridDescCreate(handle, &grid, &c.config, &o.options) != kSuccess) {
    EXPECT(!"cudecompGridDescCreate (autotuning)");
    return;
  }
  EXPECT(guard_intact(c.guard) && guard_intact(o.guard));
  EXPECT(c.config.pdims[0] * c.config.pdims[1] == nranks);
  EXPECT(c.config.transpose_comm_backend >= kTransposeMpiP2p && c.config.transpose_comm_backend <= kTransposeMpiA2a);
  set_guard(queried.guard);
  EXPECT(cudecompGetGridDescConfig(handle, grid, &queried.config) == kSuccess);
  EXPECT(guard_intact(queried.guard));
  EXPECT(queried.config.pdims[0] == c.config.pdims[0] && queried.config.pdims[1] == c.config.pdims[1]);
  EXPECT(queried.config.transpose_comm_backend == c.config.transpose_comm_backend);
  EXPECT(queried.config.gdims[0] == 12 && queried.config.gdims_dist[0] == 0); /* as given: unset */
  EXPECT(cudecompGridDescDestroy(handle, grid) == kSuccess);
}

/* Errors come through as before, and a failed call leaves the caller's struct as it was. */
static void errors(cudecompHandle_t handle, int nranks) {
  struct GuardedConfig c;
  cudecompGridDesc_t grid = NULL;
  cudecompPencilInfo_t info;
  EXPECT(cudecompGridDescCreate(handle, &grid, NULL, NULL) == kInvalidUsage);
  EXPECT(cudecompGridDescConfigSetDefaults(&c.config) == kSuccess);
  c.config.gdims[0] = c.config.gdims[1] = c.config.gdims[2] = 4;
  c.config.pdims[0] = nranks + 1; /* the product must be the rank count */
  c.config.pdims[1] = 1;
  EXPECT(cudecompGridDescCreate(handle, &grid, &c.config, NULL) == kInvalidUsage);
  EXPECT(c.config.pdims[0] == nranks + 1 && grid == NULL);
  c.config.pdims[0] = 1;
  c.config.pdims[1] = nranks;
  EXPECT(cudecompGridDescCreate(handle, &grid, &c.config, NULL) == kSuccess);
  memset(&info, 0x11, sizeof(info));
  EXPECT(cudecompGetPencilInfo(handle, grid, &info, 3, NULL, NULL) == kInvalidUsage);
  EXPECT(info.shape[0] == 0x11111111 && info.size == 0x1111111111111111LL);
  EXPECT(cudecompGetPencilInfo(handle, grid, NULL, 0, NULL, NULL) == kInvalidUsage);
  EXPECT(cudecompGetGridDescConfig(handle, grid, NULL) == kInvalidUsage);
  EXPECT(cudecompGridDescDestroy(handle, grid) == kSuccess);
}

int main(int argc, char** argv) {
  int nranks = 1;
  cudecompHandle_t handle = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  setenv("CUDECOMP_QUIET_ERRORS", "1", 1); /* the error cases print nothing */
  check_defaults();
  EXPECT(cudecompInit(&handle, MPI_COMM_WORLD) == kSuccess);
  for (int backend = kTransposeMpiP2p; backend <= kTransposeMpiA2a; ++backend) transpose_cycle(handle, nranks, backend);
  autotune(handle, nranks);
  errors(handle, nranks);
  EXPECT(cudecompFinalize(handle) == kSuccess);
  {
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("legacy struct ABI: %s (%d failed checks over all ranks)\n", all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all != 0;
  }
}
