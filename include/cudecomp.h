/*
 * cudecomp.h: the C API of wavestack's cudecomp, with NVIDIA cuDecomp 0.7.0's names, enum
 * values, struct layouts, *_MAGIC values and exported entry points
 * (https://nvidia.github.io/cuDecomp/). tests/cudecomp_upstream/decomp_header_abi_test.c compares every one of
 * them with upstream's own 0.7.0 header (../shared/cudecomp-upstream), and upstream's test suites
 * compiled with that header run against this library in CI (tests/cudecomp_upstream).
 *
 * Host buffers (every build): operations complete before they return and stream arguments are
 * ignored. cudecompMalloc allocates device memory (cudaMalloc) where the CUDA build sees a CUDA
 * device on every rank of the handle, as cuDecomp does, and host memory otherwise;
 * cudecompMallocHost (an extension, below) allocates page-locked host memory. Device buffers (the library's CUDA
 * build only): an operation whose input is CUDA device or managed memory runs on the device on
 * the given stream (the workspace must be device memory too); the NCCL backends need device
 * buffers. When the CUDA runtime header is not available, cudaStream_t
 * is declared here as an opaque pointer type with the same size and meaning as CUDA's, so code
 * written against cuDecomp compiles unchanged (upstream's header always includes
 * cuda_runtime.h). The NVSHMEM backends are answered with CUDECOMP_RESULT_NOT_SUPPORTED, as are
 * the NCCL backends in the CPU-only build.
 *
 * As upstream's: a null work pointer to a transpose or halo update is
 * CUDECOMP_RESULT_INVALID_USAGE, and a transpose or halo update on a grid that leaves some
 * rank's pencil empty is CUDECOMP_RESULT_NOT_SUPPORTED (such a grid is created, and its pencils
 * can be queried). Differences from upstream's CPU-only build, both additions: process-grid and
 * backend autotuning work (upstream rejects them on the CPU), and the two extensions at the end
 * of this header.
 */
#ifndef CUDECOMP_H
#define CUDECOMP_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>) && !defined(CUDECOMP_NO_CUDA_HEADERS)
#include <cuda_runtime_api.h>
#define CUDECOMP_HAVE_CUDA_STREAM_T 1
#endif
#endif
#ifndef CUDECOMP_HAVE_CUDA_STREAM_T
/* Opaque stand-in for CUDA's stream handle (CUDA declares it as a pointer to CUstream_st). */
typedef struct CUstream_st* cudaStream_t;
#endif

#include "cudecomp_version.h"

/*
 * Every public struct begins with struct_size, magic and version. The *SetDefaults and *Get*
 * wrappers below pass the size and version this program was compiled with, so the library can
 * tell which fields the caller's struct holds; the magic marks a struct that *SetDefaults
 * initialized, and functions that read a struct reject one without it (INVALID_USAGE).
 * Upstream's values: "CONF", "AUTO" and "PINF" as big-endian ASCII.
 */
#define CUDECOMP_GRID_DESC_CONFIG_MAGIC INT32_C(0x434f4e46)
#define CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC INT32_C(0x4155544f)
#define CUDECOMP_PENCIL_INFO_MAGIC INT32_C(0x50494e46)

#ifdef __cplusplus
extern "C" {
#endif

/** Transpose communication backends. */
typedef enum {
  CUDECOMP_TRANSPOSE_COMM_MPI_P2P = 1,    /**< MPI_Isend/MPI_Irecv to every peer at once */
  CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL = 2, /**< pipelined pairwise exchange, one peer per step */
  CUDECOMP_TRANSPOSE_COMM_MPI_A2A = 3,    /**< MPI_Alltoallv */
  CUDECOMP_TRANSPOSE_COMM_NCCL = 4,       /**< CUDA build, device buffers only */
  CUDECOMP_TRANSPOSE_COMM_NCCL_PL = 5,    /**< CUDA build, device buffers only */
  CUDECOMP_TRANSPOSE_COMM_NVSHMEM = 6,    /**< not supported in this build */
  CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL = 7, /**< not supported in this build */
  CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM = 8  /**< NVSHMEM driven by SM kernels; not supported in this build */
} cudecompTransposeCommBackend_t;

/** Halo communication backends. */
typedef enum {
  CUDECOMP_HALO_COMM_MPI = 1,             /**< nonblocking exchange with both neighbours at once */
  CUDECOMP_HALO_COMM_MPI_BLOCKING = 2,    /**< one blocking exchange per neighbour */
  CUDECOMP_HALO_COMM_NCCL = 3,            /**< CUDA build, device buffers only */
  CUDECOMP_HALO_COMM_NVSHMEM = 4,         /**< not supported in this build */
  CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING = 5 /**< not supported in this build */
} cudecompHaloCommBackend_t;

/** Element types. Packing moves bytes, so the type only sets the element size. */
typedef enum {
  CUDECOMP_FLOAT = -1,
  CUDECOMP_DOUBLE = -2,
  CUDECOMP_FLOAT_COMPLEX = -3,
  CUDECOMP_DOUBLE_COMPLEX = -4
} cudecompDataType_t;

/** Which communication times the candidate process grids during autotuning. */
typedef enum { CUDECOMP_AUTOTUNE_GRID_TRANSPOSE = 0, CUDECOMP_AUTOTUNE_GRID_HALO = 1 } cudecompAutotuneGridMode_t;

/**
 * How ranks are placed on the Prows x Pcols process grid. DEFAULT is row-major unless the
 * environment variable CUDECOMP_USE_COL_MAJOR_RANK_ORDER=1 is set (cuDecomp 0.6 behaviour).
 */
typedef enum {
  CUDECOMP_RANK_ORDER_DEFAULT = 0,
  CUDECOMP_RANK_ORDER_ROW_MAJOR = 1, /**< rank = row * Pcols + col */
  CUDECOMP_RANK_ORDER_COL_MAJOR = 2  /**< rank = col * Prows + row */
} cudecompRankOrder_t;

typedef enum {
  CUDECOMP_RESULT_SUCCESS = 0,
  CUDECOMP_RESULT_INVALID_USAGE = 1,
  CUDECOMP_RESULT_NOT_SUPPORTED = 2,
  CUDECOMP_RESULT_INTERNAL_ERROR = 3,
  CUDECOMP_RESULT_CUDA_ERROR = 4,
  CUDECOMP_RESULT_CUTENSOR_ERROR = 5,
  CUDECOMP_RESULT_MPI_ERROR = 6,
  CUDECOMP_RESULT_NCCL_ERROR = 7,
  CUDECOMP_RESULT_NVSHMEM_ERROR = 8,
  CUDECOMP_RESULT_NVML_ERROR = 9
} cudecompResult_t;

typedef struct cudecompHandle* cudecompHandle_t;
typedef struct cudecompGridDesc* cudecompGridDesc_t;

/** Grid descriptor configuration; cudecompGridDescConfigSetDefaults fills every field. */
typedef struct {
  int64_t struct_size; /**< sizeof the caller's struct (set by cudecompGridDescConfigSetDefaults) */
  int32_t magic;       /**< CUDECOMP_GRID_DESC_CONFIG_MAGIC once initialized */
  int32_t version;     /**< CUDECOMP_GRID_DESC_CONFIG_VERSION of the caller's header */

  int32_t gdims[3];               /**< global grid X, Y, Z */
  int32_t gdims_dist[3];          /**< grid used to distribute (default 0: gdims); the rest goes to the last rank */
  int32_t pdims[2];               /**< Prows, Pcols; 0,0 requests autotuning */
  cudecompRankOrder_t rank_order; /**< placement of ranks on the process grid (default: DEFAULT) */

  cudecompTransposeCommBackend_t transpose_comm_backend; /**< default MPI_P2P */
  bool transpose_axis_contiguous[3];                     /**< per pencil axis: pencil axis fastest (default false) */
  int32_t transpose_mem_order[3][3]; /**< per pencil axis, global axes fastest first; -1: unset (default) */

  cudecompHaloCommBackend_t halo_comm_backend; /**< default MPI */
} cudecompGridDescConfig_t;

/** Autotuning options; cudecompGridDescAutotuneOptionsSetDefaults fills every field. */
typedef struct {
  int64_t struct_size; /**< sizeof the caller's struct (set by cudecompGridDescAutotuneOptionsSetDefaults) */
  int32_t magic;       /**< CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC once initialized */
  int32_t version;     /**< CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION of the caller's header */

  int32_t n_warmup_trials;              /**< untimed trials per candidate (default 3) */
  int32_t n_trials;                     /**< timed trials per candidate (default 5) */
  cudecompAutotuneGridMode_t grid_mode; /**< default TRANSPOSE */
  cudecompDataType_t dtype;             /**< default DOUBLE */
  bool allow_uneven_decompositions;     /**< default true */
  bool disable_mpi_backends;            /**< default false; without a GPU true leaves no backend to tune */
  bool disable_nccl_backends;           /**< default false (NCCL is tried only on a GPU, CUDA build) */
  bool disable_nvshmem_backends;        /**< default false (no NVSHMEM backend exists in this build) */
  double skip_threshold;                /**< skip a candidate when skip_threshold * t_first > t_best (default 0) */

  bool autotune_transpose_backend;       /**< default false */
  bool transpose_use_inplace_buffers[4]; /**< per op X->Y, Y->Z, Z->Y, Y->X (default false) */
  double transpose_op_weights[4];        /**< per op weight of its time (default 1.0) */
  int32_t transpose_input_halo_extents[4][3];
  int32_t transpose_output_halo_extents[4][3];
  int32_t transpose_input_padding[4][3];
  int32_t transpose_output_padding[4][3];

  bool autotune_halo_backend; /**< default false */
  int32_t halo_extents[3];    /**< default 0,0,0 */
  bool halo_periods[3];       /**< default false */
  int32_t halo_axis;          /**< pencil axis of the halo trials (default 0) */
  int32_t halo_padding[3];    /**< default 0,0,0 */
} cudecompGridDescAutotuneOptions_t;

/** Geometry of one pencil buffer. */
typedef struct {
  int64_t struct_size; /**< sizeof the caller's struct (set by cudecompGetPencilInfo) */
  int32_t magic;       /**< CUDECOMP_PENCIL_INFO_MAGIC */
  int32_t version;     /**< CUDECOMP_PENCIL_INFO_VERSION of the caller's header */

  int32_t shape[3];        /**< local order (fastest first), halos and padding included */
  int32_t lo[3];           /**< local order, first global index owned (halos excluded) */
  int32_t hi[3];           /**< local order, last global index owned, inclusive (lo - 1 when empty) */
  int32_t order[3];        /**< global axis at each local position, fastest first */
  int32_t halo_extents[3]; /**< global order */
  int32_t padding[3];      /**< global order */
  int64_t size;            /**< elements, halos and padding included */
} cudecompPencilInfo_t;

cudecompResult_t cudecompInit(cudecompHandle_t* handle, MPI_Comm mpi_comm);
/** Fortran entry: the communicator as an MPI_Fint (converted with MPI_Comm_f2c). */
cudecompResult_t cudecompInit_F(cudecompHandle_t* handle, MPI_Fint mpi_comm);
cudecompResult_t cudecompFinalize(cudecompHandle_t handle);

/* A struct's size as the wrappers below pass it; a C++ cast in C++, where the header is also
 * compiled with -Wold-style-cast. */
#ifdef __cplusplus
#define CUDECOMP_STRUCT_SIZE(type) static_cast<int64_t>(sizeof(type))
#else
#define CUDECOMP_STRUCT_SIZE(type) ((int64_t)sizeof(type))
#endif

/*
 * The exported entry points behind the struct functions, with upstream's parameter lists: the
 * sizes and versions are those of the caller's header, passed by the inline wrappers below
 * (cudecompGridDescCreate passes 0 and 0 for absent options, as upstream's wrapper does).
 *
 * The library also exports the five struct functions under their plain names, taking the
 * structs as cuDecomp headers before 0.7 laid them out (no struct header; what pre-0.7 Fortran
 * modules bind to), so programs built against those headers link and run too
 * (src/decomp/legacy_abi.cpp). The inline wrappers below give programs built against this
 * header the versioned entry points instead; CUDECOMP_LEGACY_ENTRY_POINTS hides them from the
 * one file of the library that defines the plain-named functions.
 */
cudecompResult_t cudecompGridDescCreateVersioned(cudecompHandle_t handle, cudecompGridDesc_t* grid_desc,
                                                 cudecompGridDescConfig_t* config, int64_t config_struct_size,
                                                 int32_t config_version,
                                                 const cudecompGridDescAutotuneOptions_t* options,
                                                 int64_t options_struct_size, int32_t options_version);
cudecompResult_t cudecompGridDescConfigSetDefaultsVersioned(cudecompGridDescConfig_t* config, int64_t struct_size,
                                                            int32_t version);
cudecompResult_t cudecompGridDescAutotuneOptionsSetDefaultsVersioned(cudecompGridDescAutotuneOptions_t* options,
                                                                     int64_t struct_size, int32_t version);
cudecompResult_t cudecompGetPencilInfoVersioned(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                cudecompPencilInfo_t* pencil_info, int64_t pencil_info_struct_size,
                                                int32_t pencil_info_version, int32_t axis, const int32_t halo_extents[],
                                                const int32_t padding[]);
cudecompResult_t cudecompGetGridDescConfigVersioned(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                    cudecompGridDescConfig_t* config, int64_t struct_size,
                                                    int32_t version);

#ifndef CUDECOMP_LEGACY_ENTRY_POINTS
static inline cudecompResult_t cudecompGridDescCreate(cudecompHandle_t handle, cudecompGridDesc_t* grid_desc,
                                                      cudecompGridDescConfig_t* config,
                                                      const cudecompGridDescAutotuneOptions_t* options) {
  return cudecompGridDescCreateVersioned(handle, grid_desc, config, CUDECOMP_STRUCT_SIZE(cudecompGridDescConfig_t),
                                         CUDECOMP_GRID_DESC_CONFIG_VERSION, options,
                                         options ? CUDECOMP_STRUCT_SIZE(cudecompGridDescAutotuneOptions_t) : 0,
                                         options ? CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION : 0);
}
#endif
cudecompResult_t cudecompGridDescDestroy(cudecompHandle_t handle, cudecompGridDesc_t grid_desc);
#ifndef CUDECOMP_LEGACY_ENTRY_POINTS
static inline cudecompResult_t cudecompGridDescConfigSetDefaults(cudecompGridDescConfig_t* config) {
  return cudecompGridDescConfigSetDefaultsVersioned(config, CUDECOMP_STRUCT_SIZE(cudecompGridDescConfig_t),
                                                    CUDECOMP_GRID_DESC_CONFIG_VERSION);
}
#endif
#ifndef CUDECOMP_LEGACY_ENTRY_POINTS
static inline cudecompResult_t cudecompGridDescAutotuneOptionsSetDefaults(cudecompGridDescAutotuneOptions_t* options) {
  return cudecompGridDescAutotuneOptionsSetDefaultsVersioned(
      options, CUDECOMP_STRUCT_SIZE(cudecompGridDescAutotuneOptions_t), CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION);
}
#endif

#ifndef CUDECOMP_LEGACY_ENTRY_POINTS
static inline cudecompResult_t cudecompGetPencilInfo(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                     cudecompPencilInfo_t* pencil_info, int32_t axis,
                                                     const int32_t halo_extents[], const int32_t padding[]) {
  return cudecompGetPencilInfoVersioned(handle, grid_desc, pencil_info, CUDECOMP_STRUCT_SIZE(cudecompPencilInfo_t),
                                        CUDECOMP_PENCIL_INFO_VERSION, axis, halo_extents, padding);
}
#endif
cudecompResult_t cudecompGetTransposeWorkspaceSize(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                   int64_t* workspace_size);
cudecompResult_t cudecompGetHaloWorkspaceSize(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, int32_t axis,
                                              const int32_t halo_extents[], int64_t* workspace_size);
cudecompResult_t cudecompGetDataTypeSize(cudecompDataType_t dtype, int64_t* dtype_size);
cudecompResult_t cudecompMalloc(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer,
                                size_t buffer_size_bytes);
cudecompResult_t cudecompFree(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* buffer);

/** cuDecomp's display names ("MPI_P2P", "MPI_P2P (pipelined)", ...); "ERROR" outside the enum. */
const char* cudecompTransposeCommBackendToString(cudecompTransposeCommBackend_t comm_backend);
const char* cudecompHaloCommBackendToString(cudecompHaloCommBackend_t comm_backend);

#ifndef CUDECOMP_LEGACY_ENTRY_POINTS
static inline cudecompResult_t cudecompGetGridDescConfig(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                         cudecompGridDescConfig_t* config) {
  return cudecompGetGridDescConfigVersioned(handle, grid_desc, config, CUDECOMP_STRUCT_SIZE(cudecompGridDescConfig_t),
                                            CUDECOMP_GRID_DESC_CONFIG_VERSION);
}
#endif
cudecompResult_t cudecompGetShiftedRank(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, int32_t axis,
                                        int32_t dim, int32_t displacement, bool periodic, int32_t* shifted_rank);

cudecompResult_t cudecompTransposeXToY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream);
cudecompResult_t cudecompTransposeYToZ(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream);
cudecompResult_t cudecompTransposeZToY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream);
cudecompResult_t cudecompTransposeYToX(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream);

cudecompResult_t cudecompUpdateHalosX(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream);
cudecompResult_t cudecompUpdateHalosY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream);
cudecompResult_t cudecompUpdateHalosZ(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream);

/**
 * wavestack extension (not in cuDecomp): the message of the last failed call on this thread,
 * or "" after a successful one. Failed calls also print it to stderr unless
 * CUDECOMP_QUIET_ERRORS=1 is set.
 */
const char* cudecompGetLastErrorMessage(void);

/**
 * wavestack extension (not in cuDecomp, which has no pinned-memory call): buffer_size_bytes of
 * host memory for *buffer, page-locked (cudaMallocHost) where the library's CUDA build sees a
 * CUDA device, so that copies between it and the device can run asynchronously; elsewhere (the
 * CPU-only build, or no device) the same 64-byte aligned host memory that cudecompMalloc returns
 * there. Either way it is host memory, and operations on it take the host path. Release it with
 * cudecompFree. The checks are cudecompMalloc's: a stale handle or grid descriptor, a null buffer
 * or 0 bytes are CUDECOMP_RESULT_INVALID_USAGE.
 */
cudecompResult_t cudecompMallocHost(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer,
                                    size_t buffer_size_bytes);

#ifdef __cplusplus
}
#endif

#endif /* CUDECOMP_H */
