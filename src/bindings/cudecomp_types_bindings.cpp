// Enums with cuDecomp's values, the layouts of the C structs (so Python keeps them in NumPy
// structured storage that native code copies byte for byte), defaults, and the mapping of
// DecompError to cudecomp.CudecompError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "bindings/cudecomp_bindings.hpp"
#include "cudecomp.h"
#include "decomp/config.hpp"
#include "decomp/error.hpp"

namespace nb = nanobind;
namespace decomp = wavestack::decomp;

namespace wavestack::bindings {
namespace {

static_assert(sizeof(bool) == 1, "the NumPy layout uses one byte per bool");
static_assert(sizeof(cudecompTransposeCommBackend_t) == 4 && sizeof(cudecompRankOrder_t) == 4,
              "enums are stored as int32 in the NumPy layout");

// (name, byte offset, NumPy type code, shape)
using Field = std::tuple<std::string, size_t, std::string, std::vector<size_t>>;

#define FIELD(type, name, code, ...)                           \
  Field {                                                      \
#name, offsetof(type, name), code, std::vector < size_t> { \
      __VA_ARGS__                                              \
    }                                                          \
  }

std::tuple<size_t, std::vector<Field>> config_layout() {
  using C = cudecompGridDescConfig_t;
  return {sizeof(C),
          {FIELD(C, gdims, "<i4", 3), FIELD(C, gdims_dist, "<i4", 3), FIELD(C, pdims, "<i4", 2),
           FIELD(C, rank_order, "<i4"), FIELD(C, transpose_comm_backend, "<i4"),
           FIELD(C, transpose_axis_contiguous, "?", 3), FIELD(C, transpose_mem_order, "<i4", 3, 3),
           FIELD(C, halo_comm_backend, "<i4")}};
}

std::tuple<size_t, std::vector<Field>> options_layout() {
  using O = cudecompGridDescAutotuneOptions_t;
  return {sizeof(O),
          {FIELD(O, n_warmup_trials, "<i4"),
           FIELD(O, n_trials, "<i4"),
           FIELD(O, grid_mode, "<i4"),
           FIELD(O, dtype, "<i4"),
           FIELD(O, allow_uneven_decompositions, "?"),
           FIELD(O, disable_nccl_backends, "?"),
           FIELD(O, disable_nvshmem_backends, "?"),
           FIELD(O, disable_mpi_backends, "?"),
           FIELD(O, skip_threshold, "<f8"),
           FIELD(O, autotune_transpose_backend, "?"),
           FIELD(O, transpose_use_inplace_buffers, "?", 4),
           FIELD(O, transpose_op_weights, "<f8", 4),
           FIELD(O, transpose_input_halo_extents, "<i4", 4, 3),
           FIELD(O, transpose_output_halo_extents, "<i4", 4, 3),
           FIELD(O, transpose_input_padding, "<i4", 4, 3),
           FIELD(O, transpose_output_padding, "<i4", 4, 3),
           FIELD(O, autotune_halo_backend, "?"),
           FIELD(O, halo_extents, "<i4", 3),
           FIELD(O, halo_periods, "?", 3),
           FIELD(O, halo_axis, "<i4"),
           FIELD(O, halo_padding, "<i4", 3)}};
}

#undef FIELD

nb::bytes as_bytes(const void* data, size_t size) {
  return nb::bytes(static_cast<const char*>(data), size);
}

}  // namespace

void bind_cudecomp_types(nb::module_& m) {
  nb::enum_<cudecompDataType_t>(m, "DataType", "Element types of cuDecomp operations")
      .value("FLOAT", CUDECOMP_FLOAT)
      .value("DOUBLE", CUDECOMP_DOUBLE)
      .value("FLOAT_COMPLEX", CUDECOMP_FLOAT_COMPLEX)
      .value("DOUBLE_COMPLEX", CUDECOMP_DOUBLE_COMPLEX);
  nb::enum_<cudecompTransposeCommBackend_t>(m, "TransposeCommBackend", "Transpose communication backends")
      .value("MPI_P2P", CUDECOMP_TRANSPOSE_COMM_MPI_P2P)
      .value("MPI_P2P_PL", CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL)
      .value("MPI_A2A", CUDECOMP_TRANSPOSE_COMM_MPI_A2A)
      .value("NCCL", CUDECOMP_TRANSPOSE_COMM_NCCL)
      .value("NCCL_PL", CUDECOMP_TRANSPOSE_COMM_NCCL_PL)
      .value("NVSHMEM", CUDECOMP_TRANSPOSE_COMM_NVSHMEM)
      .value("NVSHMEM_PL", CUDECOMP_TRANSPOSE_COMM_NVSHMEM_PL)
      .value("NVSHMEM_SM", CUDECOMP_TRANSPOSE_COMM_NVSHMEM_SM);
  nb::enum_<cudecompHaloCommBackend_t>(m, "HaloCommBackend", "Halo communication backends")
      .value("MPI", CUDECOMP_HALO_COMM_MPI)
      .value("MPI_BLOCKING", CUDECOMP_HALO_COMM_MPI_BLOCKING)
      .value("NCCL", CUDECOMP_HALO_COMM_NCCL)
      .value("NVSHMEM", CUDECOMP_HALO_COMM_NVSHMEM)
      .value("NVSHMEM_BLOCKING", CUDECOMP_HALO_COMM_NVSHMEM_BLOCKING);
  nb::enum_<cudecompRankOrder_t>(m, "RankOrder", "Placement of ranks on the process grid")
      .value("DEFAULT", CUDECOMP_RANK_ORDER_DEFAULT)
      .value("ROW_MAJOR", CUDECOMP_RANK_ORDER_ROW_MAJOR)
      .value("COL_MAJOR", CUDECOMP_RANK_ORDER_COL_MAJOR);
  nb::enum_<cudecompAutotuneGridMode_t>(m, "AutotuneGridMode", "Communication used to autotune the process grid")
      .value("TRANSPOSE", CUDECOMP_AUTOTUNE_GRID_TRANSPOSE)
      .value("HALO", CUDECOMP_AUTOTUNE_GRID_HALO);
  nb::enum_<cudecompResult_t>(m, "Result", "Result codes of the C API")
      .value("SUCCESS", CUDECOMP_RESULT_SUCCESS)
      .value("INVALID_USAGE", CUDECOMP_RESULT_INVALID_USAGE)
      .value("NOT_SUPPORTED", CUDECOMP_RESULT_NOT_SUPPORTED)
      .value("INTERNAL_ERROR", CUDECOMP_RESULT_INTERNAL_ERROR)
      .value("CUDA_ERROR", CUDECOMP_RESULT_CUDA_ERROR)
      .value("CUTENSOR_ERROR", CUDECOMP_RESULT_CUTENSOR_ERROR)
      .value("MPI_ERROR", CUDECOMP_RESULT_MPI_ERROR)
      .value("NCCL_ERROR", CUDECOMP_RESULT_NCCL_ERROR)
      .value("NVSHMEM_ERROR", CUDECOMP_RESULT_NVSHMEM_ERROR)
      .value("NVML_ERROR", CUDECOMP_RESULT_NVML_ERROR);

  m.def("config_layout", &config_layout, "(itemsize, [(name, offset, numpy code, shape)]) of cudecompGridDescConfig_t");
  m.def("options_layout", &options_layout,
        "(itemsize, [(name, offset, numpy code, shape)]) of cudecompGridDescAutotuneOptions_t");
  m.def("default_config_bytes", [] {
    const auto config = decomp::default_config();
    return as_bytes(&config, sizeof(config));
  });
  m.def("default_options_bytes", [] {
    const auto options = decomp::default_autotune_options();
    return as_bytes(&options, sizeof(options));
  });
  m.def("data_type_size", [](cudecompDataType_t dtype) { return decomp::data_type_size(dtype); });
  m.def("transpose_backend_to_string", [](cudecompTransposeCommBackend_t backend) {
    return std::string(cudecompTransposeCommBackendToString(backend));
  });
  m.def("halo_backend_to_string",
        [](cudecompHaloCommBackend_t backend) { return std::string(cudecompHaloCommBackendToString(backend)); });

  // DecompError -> cudecomp.CudecompError(message, Result), defined in Python so it can be
  // subclassed and pickled like any exception.
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    try {
      std::rethrow_exception(pointer);
    } catch (const decomp::DecompError& error) {
      nb::object type = nb::module_::import_("cudecomp._errors").attr("CudecompError");
      nb::object instance = type(error.what(), nb::cast(error.code()));
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });
}

}  // namespace wavestack::bindings
