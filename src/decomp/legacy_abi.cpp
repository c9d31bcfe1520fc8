// The struct functions under their plain names, for programs built against cuDecomp headers
// from before the versioned struct ABI (and for upstream's Fortran modules before 0.7, which bind
// these names): their structs have no struct_size/magic/version header, no rank_order and no
// disable_mpi_backends. Each function converts to the current structs and calls the versioned
// entry point, so validation, errors and behaviour are the same; a struct is written back only
// on success. Layouts as upstream's headers before 0.7 declare them (the last such layout;
// earlier releases changed these structs without a version, as any release may). The 0.7
// Fortran module binds the versioned entry points instead (src/decomp/fortran/cudecomp.f90).
#define CUDECOMP_LEGACY_ENTRY_POINTS 1
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cudecomp.h"
#include "decomp/config.hpp"

namespace {

struct LegacyGridDescConfig {
  int32_t gdims[3];
  int32_t gdims_dist[3];
  int32_t pdims[2];
  cudecompTransposeCommBackend_t transpose_comm_backend;
  bool transpose_axis_contiguous[3];
  int32_t transpose_mem_order[3][3];
  cudecompHaloCommBackend_t halo_comm_backend;
};

struct LegacyAutotuneOptions {
  int32_t n_warmup_trials;
  int32_t n_trials;
  cudecompAutotuneGridMode_t grid_mode;
  cudecompDataType_t dtype;
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
};

struct LegacyPencilInfo {
  int32_t shape[3];
  int32_t lo[3];
  int32_t hi[3];
  int32_t order[3];
  int32_t halo_extents[3];
  int32_t padding[3];
  int64_t size;
};

// The layouts a C compiler gives those declarations on the platforms we build for (LP64, 4-byte
// enums): a change here would break every program built against the old headers.
static_assert(sizeof(LegacyGridDescConfig) == 80 && offsetof(LegacyGridDescConfig, transpose_mem_order) == 40);
static_assert(sizeof(LegacyPencilInfo) == 80 && offsetof(LegacyPencilInfo, size) == 72);
static_assert(offsetof(LegacyAutotuneOptions, skip_threshold) == 24 &&
              offsetof(LegacyAutotuneOptions, transpose_op_weights) == 40 &&
              offsetof(LegacyAutotuneOptions, autotune_halo_backend) == 264 && sizeof(LegacyAutotuneOptions) == 304);

// The fields both layouts share, copied in either direction.
template <typename To, typename From>
void copy_config_fields(To& to, const From& from) {
  std::memcpy(to.gdims, from.gdims, sizeof(to.gdims));
  std::memcpy(to.gdims_dist, from.gdims_dist, sizeof(to.gdims_dist));
  std::memcpy(to.pdims, from.pdims, sizeof(to.pdims));
  to.transpose_comm_backend = from.transpose_comm_backend;
  std::memcpy(to.transpose_axis_contiguous, from.transpose_axis_contiguous, sizeof(to.transpose_axis_contiguous));
  std::memcpy(to.transpose_mem_order, from.transpose_mem_order, sizeof(to.transpose_mem_order));
  to.halo_comm_backend = from.halo_comm_backend;
}

template <typename To, typename From>
void copy_options_fields(To& to, const From& from) {
  to.n_warmup_trials = from.n_warmup_trials;
  to.n_trials = from.n_trials;
  to.grid_mode = from.grid_mode;
  to.dtype = from.dtype;
  to.allow_uneven_decompositions = from.allow_uneven_decompositions;
  to.disable_nccl_backends = from.disable_nccl_backends;
  to.disable_nvshmem_backends = from.disable_nvshmem_backends;
  to.skip_threshold = from.skip_threshold;
  to.autotune_transpose_backend = from.autotune_transpose_backend;
  std::memcpy(to.transpose_use_inplace_buffers, from.transpose_use_inplace_buffers,
              sizeof(to.transpose_use_inplace_buffers));
  std::memcpy(to.transpose_op_weights, from.transpose_op_weights, sizeof(to.transpose_op_weights));
  std::memcpy(to.transpose_input_halo_extents, from.transpose_input_halo_extents,
              sizeof(to.transpose_input_halo_extents));
  std::memcpy(to.transpose_output_halo_extents, from.transpose_output_halo_extents,
              sizeof(to.transpose_output_halo_extents));
  std::memcpy(to.transpose_input_padding, from.transpose_input_padding, sizeof(to.transpose_input_padding));
  std::memcpy(to.transpose_output_padding, from.transpose_output_padding, sizeof(to.transpose_output_padding));
  to.autotune_halo_backend = from.autotune_halo_backend;
  std::memcpy(to.halo_extents, from.halo_extents, sizeof(to.halo_extents));
  std::memcpy(to.halo_periods, from.halo_periods, sizeof(to.halo_periods));
  to.halo_axis = from.halo_axis;
  std::memcpy(to.halo_padding, from.halo_padding, sizeof(to.halo_padding));
}

// A legacy struct carries no header: it becomes a current struct initialized as *SetDefaults
// would (magic, rank_order DEFAULT, disable_mpi_backends false) with the caller's fields.
cudecompGridDescConfig_t current_config(const LegacyGridDescConfig& legacy) {
  cudecompGridDescConfig_t config = wavestack::decomp::default_config();
  copy_config_fields(config, legacy);
  return config;
}

cudecompGridDescAutotuneOptions_t current_options(const LegacyAutotuneOptions& legacy) {
  cudecompGridDescAutotuneOptions_t options = wavestack::decomp::default_autotune_options();
  copy_options_fields(options, legacy);
  return options;
}

constexpr int64_t kConfigSize = sizeof(cudecompGridDescConfig_t);
constexpr int64_t kOptionsSize = sizeof(cudecompGridDescAutotuneOptions_t);
constexpr int64_t kPencilInfoSize = sizeof(cudecompPencilInfo_t);

}  // namespace

extern "C" {

cudecompResult_t cudecompGridDescConfigSetDefaults(LegacyGridDescConfig* config) {
  cudecompGridDescConfig_t current{};
  const cudecompResult_t result = cudecompGridDescConfigSetDefaultsVersioned(
      config != nullptr ? &current : nullptr, kConfigSize, CUDECOMP_GRID_DESC_CONFIG_VERSION);
  if (result == CUDECOMP_RESULT_SUCCESS) copy_config_fields(*config, current);
  return result;
}

cudecompResult_t cudecompGridDescAutotuneOptionsSetDefaults(LegacyAutotuneOptions* options) {
  cudecompGridDescAutotuneOptions_t current{};
  const cudecompResult_t result = cudecompGridDescAutotuneOptionsSetDefaultsVersioned(
      options != nullptr ? &current : nullptr, kOptionsSize, CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION);
  if (result == CUDECOMP_RESULT_SUCCESS) copy_options_fields(*options, current);
  return result;
}

// Autotuning writes its choice (pdims, backends) back into the caller's config, as upstream does.
cudecompResult_t cudecompGridDescCreate(cudecompHandle_t handle, cudecompGridDesc_t* grid_desc,
                                        LegacyGridDescConfig* config, const LegacyAutotuneOptions* options) {
  cudecompGridDescConfig_t current = config != nullptr ? current_config(*config) : cudecompGridDescConfig_t{};
  const cudecompGridDescAutotuneOptions_t tuning =
      options != nullptr ? current_options(*options) : cudecompGridDescAutotuneOptions_t{};
  const cudecompResult_t result = cudecompGridDescCreateVersioned(
      handle, grid_desc, config != nullptr ? &current : nullptr, kConfigSize, CUDECOMP_GRID_DESC_CONFIG_VERSION,
      options != nullptr ? &tuning : nullptr, kOptionsSize, CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION);
  if (result == CUDECOMP_RESULT_SUCCESS) copy_config_fields(*config, current);
  return result;
}

cudecompResult_t cudecompGetPencilInfo(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                       LegacyPencilInfo* pencil_info, int32_t axis, const int32_t halo_extents[],
                                       const int32_t padding[]) {
  cudecompPencilInfo_t current{};
  const cudecompResult_t result =
      cudecompGetPencilInfoVersioned(handle, grid_desc, pencil_info != nullptr ? &current : nullptr, kPencilInfoSize,
                                     CUDECOMP_PENCIL_INFO_VERSION, axis, halo_extents, padding);
  if (result == CUDECOMP_RESULT_SUCCESS) {
    std::memcpy(pencil_info->shape, current.shape, sizeof(current.shape));
    std::memcpy(pencil_info->lo, current.lo, sizeof(current.lo));
    std::memcpy(pencil_info->hi, current.hi, sizeof(current.hi));
    std::memcpy(pencil_info->order, current.order, sizeof(current.order));
    std::memcpy(pencil_info->halo_extents, current.halo_extents, sizeof(current.halo_extents));
    std::memcpy(pencil_info->padding, current.padding, sizeof(current.padding));
    pencil_info->size = current.size;
  }
  return result;
}

cudecompResult_t cudecompGetGridDescConfig(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                           LegacyGridDescConfig* config) {
  cudecompGridDescConfig_t current{};
  const cudecompResult_t result = cudecompGetGridDescConfigVersioned(
      handle, grid_desc, config != nullptr ? &current : nullptr, kConfigSize, CUDECOMP_GRID_DESC_CONFIG_VERSION);
  if (result == CUDECOMP_RESULT_SUCCESS) copy_config_fields(*config, current);
  return result;
}

}  // extern "C"
