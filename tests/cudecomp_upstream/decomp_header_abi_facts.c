/*
 * The ABI facts of a cudecomp.h, as text: every macro, enum value, struct size, alignment, field
 * offset and field size of upstream cuDecomp 0.7.0's public header, and whether each entry point
 * (exported or inline) has upstream's type. decomp_header_abi_test.c builds this file twice, once
 * against include/cudecomp.h and once against upstream's own header (../shared/cudecomp-upstream),
 * and compares the two texts fact by fact. HEADER_FACTS_FUNCTION names the function each build
 * defines.
 *
 * The expected function types below are spelled out from upstream's header; the build against
 * that header checks the spelling, the build against ours checks our declarations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "cudecomp.h"
#include "cudecomp_version.h"

#ifndef HEADER_FACTS_FUNCTION
#error "define HEADER_FACTS_FUNCTION to the name of the facts function of this build"
#endif
/* CUDECOMP_STRUCT_SIZE is wavestack's, so it tells which header the include path found. */
#if defined(EXPECT_UPSTREAM_HEADER) && defined(CUDECOMP_STRUCT_SIZE)
#error "this build was meant to see upstream's cudecomp.h but found wavestack's"
#endif
#if !defined(EXPECT_UPSTREAM_HEADER) && !defined(CUDECOMP_STRUCT_SIZE)
#error "this build was meant to see wavestack's cudecomp.h but found another"
#endif

typedef cudecompResult_t (*init_t)(cudecompHandle_t*, MPI_Comm);
typedef cudecompResult_t (*init_f_t)(cudecompHandle_t*, MPI_Fint);
typedef cudecompResult_t (*finalize_t)(cudecompHandle_t);
typedef cudecompResult_t (*grid_desc_create_versioned_t)(cudecompHandle_t, cudecompGridDesc_t*,
                                                         cudecompGridDescConfig_t*, int64_t, int32_t,
                                                         const cudecompGridDescAutotuneOptions_t*, int64_t, int32_t);
typedef cudecompResult_t (*grid_desc_create_t)(cudecompHandle_t, cudecompGridDesc_t*, cudecompGridDescConfig_t*,
                                               const cudecompGridDescAutotuneOptions_t*);
typedef cudecompResult_t (*grid_desc_destroy_t)(cudecompHandle_t, cudecompGridDesc_t);
typedef cudecompResult_t (*config_defaults_versioned_t)(cudecompGridDescConfig_t*, int64_t, int32_t);
typedef cudecompResult_t (*config_defaults_t)(cudecompGridDescConfig_t*);
typedef cudecompResult_t (*options_defaults_versioned_t)(cudecompGridDescAutotuneOptions_t*, int64_t, int32_t);
typedef cudecompResult_t (*options_defaults_t)(cudecompGridDescAutotuneOptions_t*);
typedef cudecompResult_t (*pencil_info_versioned_t)(cudecompHandle_t, cudecompGridDesc_t, cudecompPencilInfo_t*,
                                                    int64_t, int32_t, int32_t, const int32_t*, const int32_t*);
typedef cudecompResult_t (*pencil_info_t)(cudecompHandle_t, cudecompGridDesc_t, cudecompPencilInfo_t*, int32_t,
                                          const int32_t*, const int32_t*);
typedef cudecompResult_t (*transpose_workspace_size_t)(cudecompHandle_t, cudecompGridDesc_t, int64_t*);
typedef cudecompResult_t (*halo_workspace_size_t)(cudecompHandle_t, cudecompGridDesc_t, int32_t, const int32_t*,
                                                  int64_t*);
typedef cudecompResult_t (*data_type_size_t)(cudecompDataType_t, int64_t*);
typedef cudecompResult_t (*malloc_t)(cudecompHandle_t, cudecompGridDesc_t, void**, size_t);
typedef cudecompResult_t (*free_t)(cudecompHandle_t, cudecompGridDesc_t, void*);
typedef const char* (*transpose_backend_string_t)(cudecompTransposeCommBackend_t);
typedef const char* (*halo_backend_string_t)(cudecompHaloCommBackend_t);
typedef cudecompResult_t (*grid_desc_config_versioned_t)(cudecompHandle_t, cudecompGridDesc_t,
                                                         cudecompGridDescConfig_t*, int64_t, int32_t);
typedef cudecompResult_t (*grid_desc_config_t)(cudecompHandle_t, cudecompGridDesc_t, cudecompGridDescConfig_t*);
typedef cudecompResult_t (*shifted_rank_t)(cudecompHandle_t, cudecompGridDesc_t, int32_t, int32_t, int32_t, bool,
                                           int32_t*);
typedef cudecompResult_t (*transpose_t)(cudecompHandle_t, cudecompGridDesc_t, void*, void*, void*, cudecompDataType_t,
                                        const int32_t*, const int32_t*, const int32_t*, const int32_t*, cudaStream_t);
typedef cudecompResult_t (*update_halos_t)(cudecompHandle_t, cudecompGridDesc_t, void*, void*, cudecompDataType_t,
                                           const int32_t*, const bool*, int32_t, const int32_t*, cudaStream_t);

/* 1 when `function` has exactly `type` (the association is chosen at compile time; the function
 * is not called, so the facts need no library). */
#define HAS_TYPE(function, type) _Generic((&function), type : 1, default : 0)

struct text {
  char buffer[16384];
  size_t used;
};

static void add(struct text* text, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int written = vsnprintf(text->buffer + text->used, sizeof(text->buffer) - text->used, format, args);
  va_end(args);
  if (written > 0) text->used += (size_t)written;
  if (text->used >= sizeof(text->buffer)) text->used = sizeof(text->buffer) - 1; /* truncation fails the count */
}

#define VALUE(name) add(&text, "value %s = %lld\n", #name, (long long)(name))
#define STRUCT(type) add(&text, "struct %s: size %zu, align %zu\n", #type, sizeof(type), _Alignof(type))
#define FIELD(type, field) \
  add(&text, "field %s.%s: offset %zu, size %zu\n", #type, #field, offsetof(type, field), sizeof(((type*)0)->field))
#define FUNCTION(function, type) \
  add(&text, "function %s has upstream's type: %d\n", #function, HAS_TYPE(function, type))

const char* HEADER_FACTS_FUNCTION(void) {
  static struct text text;
  text.used = 0;
  text.buffer[0] = '\0';

  VALUE(CUDECOMP_MAJOR);
  VALUE(CUDECOMP_MINOR);
  VALUE(CUDECOMP_PATCH);
  VALUE(CUDECOMP_GRID_DESC_CONFIG_VERSION);
  VALUE(CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION);
  VALUE(CUDECOMP_PENCIL_INFO_VERSION);
  VALUE(CUDECOMP_GRID_DESC_CONFIG_MAGIC);
  VALUE(CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC);
  VALUE(CUDECOMP_PENCIL_INFO_MAGIC);
  VALUE(sizeof(CUDECOMP_GRID_DESC_CONFIG_MAGIC));
  VALUE(sizeof(CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC));
  VALUE(sizeof(CUDECOMP_PENCIL_INFO_MAGIC));

  VALUE(CUDECOMP_TRANSPOSE_COMM_MPI_P2P);
  VALUE(CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL);
  VALUE(CUDECOMP_TRANSPOSE_COMM_MPI_A2A);
  VALUE(CUDECOMP_TRANSPOSE_COMM_NCCL);
  VALUE(CUDECOMP_TRANSPOSE_COMM_NCCL_PL);
  VALUE(CUDECOMP_TRANSPOSE_COMM_NVSHMEM);
  VALUE(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL);
  VALUE(CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM);
  VALUE(CUDECOMP_HALO_COMM_MPI);
  VALUE(CUDECOMP_HALO_COMM_MPI_BLOCKING);
  VALUE(CUDECOMP_HALO_COMM_NCCL);
  VALUE(CUDECOMP_HALO_COMM_NVSHMEM);
  VALUE(CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING);
  VALUE(CUDECOMP_FLOAT);
  VALUE(CUDECOMP_DOUBLE);
  VALUE(CUDECOMP_FLOAT_COMPLEX);
  VALUE(CUDECOMP_DOUBLE_COMPLEX);
  VALUE(CUDECOMP_AUTOTUNE_GRID_TRANSPOSE);
  VALUE(CUDECOMP_AUTOTUNE_GRID_HALO);
  VALUE(CUDECOMP_RANK_ORDER_DEFAULT);
  VALUE(CUDECOMP_RANK_ORDER_ROW_MAJOR);
  VALUE(CUDECOMP_RANK_ORDER_COL_MAJOR);
  VALUE(CUDECOMP_RESULT_SUCCESS);
  VALUE(CUDECOMP_RESULT_INVALID_USAGE);
  VALUE(CUDECOMP_RESULT_NOT_SUPPORTED);
  VALUE(CUDECOMP_RESULT_INTERNAL_ERROR);
  VALUE(CUDECOMP_RESULT_CUDA_ERROR);
  VALUE(CUDECOMP_RESULT_CUTENSOR_ERROR);
  VALUE(CUDECOMP_RESULT_MPI_ERROR);
  VALUE(CUDECOMP_RESULT_NCCL_ERROR);
  VALUE(CUDECOMP_RESULT_NVSHMEM_ERROR);
  VALUE(CUDECOMP_RESULT_NVML_ERROR);

  STRUCT(cudecompTransposeCommBackend_t);
  STRUCT(cudecompHaloCommBackend_t);
  STRUCT(cudecompDataType_t);
  STRUCT(cudecompAutotuneGridMode_t);
  STRUCT(cudecompRankOrder_t);
  STRUCT(cudecompResult_t);
  STRUCT(cudecompHandle_t);
  STRUCT(cudecompGridDesc_t);
  STRUCT(cudaStream_t);

  STRUCT(cudecompGridDescConfig_t);
  FIELD(cudecompGridDescConfig_t, struct_size);
  FIELD(cudecompGridDescConfig_t, magic);
  FIELD(cudecompGridDescConfig_t, version);
  FIELD(cudecompGridDescConfig_t, gdims);
  FIELD(cudecompGridDescConfig_t, gdims_dist);
  FIELD(cudecompGridDescConfig_t, pdims);
  FIELD(cudecompGridDescConfig_t, rank_order);
  FIELD(cudecompGridDescConfig_t, transpose_comm_backend);
  FIELD(cudecompGridDescConfig_t, transpose_axis_contiguous);
  FIELD(cudecompGridDescConfig_t, transpose_mem_order);
  FIELD(cudecompGridDescConfig_t, halo_comm_backend);

  STRUCT(cudecompGridDescAutotuneOptions_t);
  FIELD(cudecompGridDescAutotuneOptions_t, struct_size);
  FIELD(cudecompGridDescAutotuneOptions_t, magic);
  FIELD(cudecompGridDescAutotuneOptions_t, version);
  FIELD(cudecompGridDescAutotuneOptions_t, n_warmup_trials);
  FIELD(cudecompGridDescAutotuneOptions_t, n_trials);
  FIELD(cudecompGridDescAutotuneOptions_t, grid_mode);
  FIELD(cudecompGridDescAutotuneOptions_t, dtype);
  FIELD(cudecompGridDescAutotuneOptions_t, allow_uneven_decompositions);
  FIELD(cudecompGridDescAutotuneOptions_t, disable_mpi_backends);
  FIELD(cudecompGridDescAutotuneOptions_t, disable_nccl_backends);
  FIELD(cudecompGridDescAutotuneOptions_t, disable_nvshmem_backends);
  FIELD(cudecompGridDescAutotuneOptions_t, skip_threshold);
  FIELD(cudecompGridDescAutotuneOptions_t, autotune_transpose_backend);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_use_inplace_buffers);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_op_weights);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_input_halo_extents);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_output_halo_extents);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_input_padding);
  FIELD(cudecompGridDescAutotuneOptions_t, transpose_output_padding);
  FIELD(cudecompGridDescAutotuneOptions_t, autotune_halo_backend);
  FIELD(cudecompGridDescAutotuneOptions_t, halo_extents);
  FIELD(cudecompGridDescAutotuneOptions_t, halo_periods);
  FIELD(cudecompGridDescAutotuneOptions_t, halo_axis);
  FIELD(cudecompGridDescAutotuneOptions_t, halo_padding);

  STRUCT(cudecompPencilInfo_t);
  FIELD(cudecompPencilInfo_t, struct_size);
  FIELD(cudecompPencilInfo_t, magic);
  FIELD(cudecompPencilInfo_t, version);
  FIELD(cudecompPencilInfo_t, shape);
  FIELD(cudecompPencilInfo_t, lo);
  FIELD(cudecompPencilInfo_t, hi);
  FIELD(cudecompPencilInfo_t, order);
  FIELD(cudecompPencilInfo_t, halo_extents);
  FIELD(cudecompPencilInfo_t, padding);
  FIELD(cudecompPencilInfo_t, size);

  FUNCTION(cudecompInit, init_t);
  FUNCTION(cudecompInit_F, init_f_t);
  FUNCTION(cudecompFinalize, finalize_t);
  FUNCTION(cudecompGridDescCreateVersioned, grid_desc_create_versioned_t);
  FUNCTION(cudecompGridDescCreate, grid_desc_create_t);
  FUNCTION(cudecompGridDescDestroy, grid_desc_destroy_t);
  FUNCTION(cudecompGridDescConfigSetDefaultsVersioned, config_defaults_versioned_t);
  FUNCTION(cudecompGridDescConfigSetDefaults, config_defaults_t);
  FUNCTION(cudecompGridDescAutotuneOptionsSetDefaultsVersioned, options_defaults_versioned_t);
  FUNCTION(cudecompGridDescAutotuneOptionsSetDefaults, options_defaults_t);
  FUNCTION(cudecompGetPencilInfoVersioned, pencil_info_versioned_t);
  FUNCTION(cudecompGetPencilInfo, pencil_info_t);
  FUNCTION(cudecompGetTransposeWorkspaceSize, transpose_workspace_size_t);
  FUNCTION(cudecompGetHaloWorkspaceSize, halo_workspace_size_t);
  FUNCTION(cudecompGetDataTypeSize, data_type_size_t);
  FUNCTION(cudecompMalloc, malloc_t);
  FUNCTION(cudecompFree, free_t);
  FUNCTION(cudecompTransposeCommBackendToString, transpose_backend_string_t);
  FUNCTION(cudecompHaloCommBackendToString, halo_backend_string_t);
  FUNCTION(cudecompGetGridDescConfigVersioned, grid_desc_config_versioned_t);
  FUNCTION(cudecompGetGridDescConfig, grid_desc_config_t);
  FUNCTION(cudecompGetShiftedRank, shifted_rank_t);
  FUNCTION(cudecompTransposeXToY, transpose_t);
  FUNCTION(cudecompTransposeYToZ, transpose_t);
  FUNCTION(cudecompTransposeZToY, transpose_t);
  FUNCTION(cudecompTransposeYToX, transpose_t);
  FUNCTION(cudecompUpdateHalosX, update_halos_t);
  FUNCTION(cudecompUpdateHalosY, update_halos_t);
  FUNCTION(cudecompUpdateHalosZ, update_halos_t);
  return text.buffer;
}
