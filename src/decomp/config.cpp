#include "decomp/config.hpp"

#include <array>
#include <cmath>

#include "decomp/backend_support.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {

cudecompGridDescConfig_t default_config() {
  cudecompGridDescConfig_t config{};
  config.struct_size = static_cast<int64_t>(sizeof(config));
  config.magic = CUDECOMP_GRID_DESC_CONFIG_MAGIC;
  config.version = CUDECOMP_GRID_DESC_CONFIG_VERSION;
  config.rank_order = CUDECOMP_RANK_ORDER_DEFAULT;
  config.transpose_comm_backend = CUDECOMP_TRANSPOSE_COMM_MPI_P2P;
  config.halo_comm_backend = CUDECOMP_HALO_COMM_MPI;
  for (auto& row : config.transpose_mem_order) {
    for (auto& entry : row) entry = -1;
  }
  return config;
}

cudecompGridDescAutotuneOptions_t default_autotune_options() {
  cudecompGridDescAutotuneOptions_t options{};
  options.struct_size = static_cast<int64_t>(sizeof(options));
  options.magic = CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC;
  options.version = CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION;
  options.n_warmup_trials = 3;
  options.n_trials = 5;
  options.grid_mode = CUDECOMP_AUTOTUNE_GRID_TRANSPOSE;
  options.dtype = CUDECOMP_DOUBLE;
  options.allow_uneven_decompositions = true;
  options.skip_threshold = 0.0;
  for (auto& weight : options.transpose_op_weights) weight = 1.0;
  return options;
}

int64_t data_type_size(cudecompDataType_t dtype, const char* argument) {
  switch (dtype) {
    case CUDECOMP_FLOAT:
      return 4;
    case CUDECOMP_DOUBLE:
    case CUDECOMP_FLOAT_COMPLEX:
      return 8;
    case CUDECOMP_DOUBLE_COMPLEX:
      return 16;
  }
  invalid_argument(argument, "unknown cudecompDataType_t value " + std::to_string(static_cast<int>(dtype)));
}

const char* transpose_backend_name(cudecompTransposeCommBackend_t backend) {
  switch (backend) {
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P:
      return "MPI_P2P";
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL:
      return "MPI_P2P_PL";
    case CUDECOMP_TRANSPOSE_COMM_MPI_A2A:
      return "MPI_A2A";
    case CUDECOMP_TRANSPOSE_COMM_NCCL:
      return "NCCL";
    case CUDECOMP_TRANSPOSE_COMM_NCCL_PL:
      return "NCCL_PL";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM:
      return "NVSHMEM";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL:
      return "NVSHMEM_PL";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM:
      return "NVSHMEM_SM";
  }
  return nullptr;
}

const char* transpose_backend_display_name(cudecompTransposeCommBackend_t backend) {
  switch (backend) {
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P:
      return "MPI_P2P";
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL:
      return "MPI_P2P (pipelined)";
    case CUDECOMP_TRANSPOSE_COMM_MPI_A2A:
      return "MPI_A2A";
    case CUDECOMP_TRANSPOSE_COMM_NCCL:
      return "NCCL";
    case CUDECOMP_TRANSPOSE_COMM_NCCL_PL:
      return "NCCL (pipelined)";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM:
      return "NVSHMEM";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL:
      return "NVSHMEM (pipelined)";
    case CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM:
      // Upstream's API tests expect "NVSHMEM_SM" here (not "NVSHMEM (SM)", this library's earlier
      // guess); tests/cpp/test_decomp_upstream_facts.cpp checks it.
      return "NVSHMEM_SM";
  }
  return nullptr;
}

const char* halo_backend_name(cudecompHaloCommBackend_t backend) {
  switch (backend) {
    case CUDECOMP_HALO_COMM_MPI:
      return "MPI";
    case CUDECOMP_HALO_COMM_MPI_BLOCKING:
      return "MPI_BLOCKING";
    case CUDECOMP_HALO_COMM_NCCL:
      return "NCCL";
    case CUDECOMP_HALO_COMM_NVSHMEM:
      return "NVSHMEM";
    case CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING:
      return "NVSHMEM_BLOCKING";
  }
  return nullptr;
}

const char* halo_backend_display_name(cudecompHaloCommBackend_t backend) {
  switch (backend) {
    case CUDECOMP_HALO_COMM_MPI:
      return "MPI";
    case CUDECOMP_HALO_COMM_MPI_BLOCKING:
      return "MPI (blocking)";
    case CUDECOMP_HALO_COMM_NCCL:
      return "NCCL";
    case CUDECOMP_HALO_COMM_NVSHMEM:
      return "NVSHMEM";
    case CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING:
      return "NVSHMEM (blocking)";
  }
  return nullptr;
}

std::optional<cudecompTransposeCommBackend_t> transpose_backend_from_name(const std::string& name) {
  for (int value = 1; value <= CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM; ++value) {
    const auto backend = static_cast<cudecompTransposeCommBackend_t>(value);
    if (name == transpose_backend_name(backend)) return backend;
  }
  return std::nullopt;
}

std::optional<cudecompHaloCommBackend_t> halo_backend_from_name(const std::string& name) {
  for (int value = 1; value <= CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING; ++value) {
    const auto backend = static_cast<cudecompHaloCommBackend_t>(value);
    if (name == halo_backend_name(backend)) return backend;
  }
  return std::nullopt;
}

void check_transpose_backend(cudecompTransposeCommBackend_t backend, const char* argument) {
  check_transpose_backend(backend, argument, this_build());
}

void check_halo_backend(cudecompHaloCommBackend_t backend, const char* argument) {
  check_halo_backend(backend, argument, this_build());
}

void validate_config(const cudecompGridDescConfig_t& config) {
  for (const int32_t extent : config.gdims) {
    if (extent <= 0) invalid_argument("config.gdims", "every entry must be positive");
  }
  const bool dist_unset = config.gdims_dist[0] == 0 && config.gdims_dist[1] == 0 && config.gdims_dist[2] == 0;
  if (!dist_unset) {
    for (int dim = 0; dim < 3; ++dim) {
      if (config.gdims_dist[dim] <= 0 || config.gdims_dist[dim] > config.gdims[dim]) {
        invalid_argument("config.gdims_dist", "entries must be all zero (use gdims) or in 1..gdims");
      }
    }
  }
  const bool autotune = config.pdims[0] == 0 && config.pdims[1] == 0;
  if (!autotune && (config.pdims[0] <= 0 || config.pdims[1] <= 0)) {
    invalid_argument("config.pdims", "both entries must be positive, or both zero to autotune");
  }
  if (config.rank_order < CUDECOMP_RANK_ORDER_DEFAULT || config.rank_order > CUDECOMP_RANK_ORDER_COL_MAJOR) {
    invalid_argument("config.rank_order", "unknown cudecompRankOrder_t value");
  }
  check_transpose_backend(config.transpose_comm_backend, "config.transpose_comm_backend");
  check_halo_backend(config.halo_comm_backend, "config.halo_comm_backend");
  for (int axis = 0; axis < 3; ++axis) {
    const auto& order = config.transpose_mem_order[axis];
    if (order[0] < 0 && order[1] < 0 && order[2] < 0) continue;
    std::array<bool, 3> seen{false, false, false};
    for (const int dim : order) {
      if (dim < 0 || dim > 2 || seen[dim]) {
        invalid_argument("config.transpose_mem_order",
                         "row " + std::to_string(axis) + " must be a permutation of 0, 1, 2 or all -1 (unset)");
      }
      seen[dim] = true;
    }
  }
}

void validate_autotune_options(const cudecompGridDescAutotuneOptions_t& options) {
  if (options.n_warmup_trials < 0) invalid_argument("options.n_warmup_trials", "must be >= 0");
  if (options.n_trials < 1) invalid_argument("options.n_trials", "must be >= 1");
  if (options.grid_mode != CUDECOMP_AUTOTUNE_GRID_TRANSPOSE && options.grid_mode != CUDECOMP_AUTOTUNE_GRID_HALO) {
    invalid_argument("options.grid_mode", "unknown cudecompAutotuneGridMode_t value");
  }
  data_type_size(options.dtype, "options.dtype");
  if (!(options.skip_threshold >= 0.0) || !std::isfinite(options.skip_threshold)) {
    invalid_argument("options.skip_threshold", "must be a finite value >= 0");
  }
  for (double weight : options.transpose_op_weights) {
    if (!(weight >= 0.0) || !std::isfinite(weight)) {
      invalid_argument("options.transpose_op_weights", "weights must be finite and >= 0");
    }
  }
  const auto non_negative = [](const int32_t(*table)[3], int rows, const char* name) {
    for (int row = 0; row < rows; ++row) {
      for (int dim = 0; dim < 3; ++dim) {
        if (table[row][dim] < 0) invalid_argument(name, "entries must be >= 0");
      }
    }
  };
  non_negative(options.transpose_input_halo_extents, 4, "options.transpose_input_halo_extents");
  non_negative(options.transpose_output_halo_extents, 4, "options.transpose_output_halo_extents");
  non_negative(options.transpose_input_padding, 4, "options.transpose_input_padding");
  non_negative(options.transpose_output_padding, 4, "options.transpose_output_padding");
  non_negative(&options.halo_extents, 1, "options.halo_extents");
  non_negative(&options.halo_padding, 1, "options.halo_padding");
  if (options.halo_axis < 0 || options.halo_axis > 2) invalid_argument("options.halo_axis", "must be 0, 1 or 2");
}

}  // namespace wavestack::decomp
