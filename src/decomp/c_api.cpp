// The C API of cudecomp.h over the C++ core. Every entry point converts exceptions into result
// codes, remembers the message for cudecompGetLastErrorMessage, and prints it to stderr (as
// cuDecomp does) unless CUDECOMP_QUIET_ERRORS=1. Handles and grid descriptors are registered so
// that a stale or foreign pointer is an INVALID_USAGE error instead of a crash.
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cudecomp.h"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/create_grid.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "decomp/managed_workspace.hpp"
#include "decomp/struct_abi.hpp"

namespace decomp = wavestack::decomp;

struct cudecompHandle {
  std::unique_ptr<decomp::Handle> core;
};
struct cudecompGridDesc {
  cudecompHandle* owner = nullptr;
  std::unique_ptr<decomp::GridDesc> core;
};

namespace {

thread_local std::string last_error;

struct Registry {
  std::mutex mutex;
  std::unordered_map<cudecompHandle*, std::unique_ptr<cudecompHandle>> handles;
  std::unordered_map<cudecompGridDesc*, std::unique_ptr<cudecompGridDesc>> grids;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

bool quiet() {
  const char* value = std::getenv("CUDECOMP_QUIET_ERRORS");
  return value != nullptr && std::string_view(value) == "1";
}

template <typename Body>
cudecompResult_t guarded(const char* function, Body&& body) {
  try {
    body();
    last_error.clear();
    return CUDECOMP_RESULT_SUCCESS;
  } catch (const decomp::DecompError& error) {
    last_error = std::string(function) + ": " + error.what();
    if (!quiet()) std::fprintf(stderr, "CUDECOMP:ERROR: %s\n", last_error.c_str());
    return error.code();
  } catch (const std::bad_alloc&) {
    last_error = std::string(function) + ": out of host memory";
    if (!quiet()) std::fprintf(stderr, "CUDECOMP:ERROR: %s\n", last_error.c_str());
    return CUDECOMP_RESULT_INTERNAL_ERROR;
  } catch (const std::exception& error) {
    last_error = std::string(function) + ": internal error: " + error.what();
    if (!quiet()) std::fprintf(stderr, "CUDECOMP:ERROR: %s\n", last_error.c_str());
    return CUDECOMP_RESULT_INTERNAL_ERROR;
  }
}

template <typename T>
void require(T* pointer, const char* argument) {
  if (pointer == nullptr) decomp::invalid_argument(argument, "null pointer");
}

cudecompHandle* lookup(cudecompHandle_t handle) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (handle == nullptr || r.handles.find(handle) == r.handles.end()) {
    decomp::invalid_argument("handle", "not a live handle from cudecompInit");
  }
  return handle;
}

cudecompGridDesc* lookup(cudecompHandle_t handle, cudecompGridDesc_t grid_desc) {
  lookup(handle);
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (grid_desc == nullptr || r.grids.find(grid_desc) == r.grids.end()) {
    decomp::invalid_argument("grid_desc", "not a live grid descriptor from cudecompGridDescCreate");
  }
  if (grid_desc->owner != handle) decomp::invalid_argument("grid_desc", "was created with another handle");
  return grid_desc;
}

// The argument checks shared by cudecompMalloc and cudecompMallocHost.
void check_allocation(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer, size_t bytes) {
  lookup(handle, grid_desc);
  require(buffer, "buffer");
  // cuDecomp rejects empty allocations: a zero size is almost always a size computed wrongly.
  if (bytes == 0) decomp::invalid_argument("buffer_size_bytes", "must be > 0");
}

// Host memory aligned for any element type and for vector loads; never null (bad_alloc instead).
// cudecompFree releases it with std::free.
void* aligned_host_allocate(size_t bytes) {
  constexpr size_t kAlignment = 64;
  const size_t rounded = ((bytes + kAlignment - 1) / kAlignment) * kAlignment;
  if (rounded < bytes) throw std::bad_alloc();  // the rounding wrapped around
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (memory == nullptr) throw std::bad_alloc();
  return memory;
}

decomp::Int3 optional3(const int32_t values[]) {
  if (values == nullptr) return {0, 0, 0};
  return {values[0], values[1], values[2]};
}

// What upstream refuses before an operation touches a buffer, in its order: null pointers
// (INVALID_USAGE, naming the argument; there is no workspace of the library's own here), then the
// core's argument checks, then a grid that leaves some rank's pencil empty (NOT_SUPPORTED, the
// same answer on every rank).
void refuse_empty_pencils(const decomp::GridDesc& grid, const char* operation) {
  if (grid.any_pencil_empty()) {
    decomp::not_supported(std::string(operation) +
                          " on a grid whose pdims leave some rank's pencil empty (more process rows or columns than "
                          "the extents of gdims_dist they split); the grid can be created and queried, as upstream's");
  }
}

cudecompResult_t transpose(const char* function, decomp::TransposeOp op, cudecompHandle_t handle,
                           cudecompGridDesc_t grid_desc, void* input, void* output, void* work,
                           cudecompDataType_t dtype, const int32_t input_halo_extents[],
                           const int32_t output_halo_extents[], const int32_t input_padding[],
                           const int32_t output_padding[], cudaStream_t stream) {
  return guarded(function, [&] {
    auto* grid = lookup(handle, grid_desc);
    require(input, "input");
    require(output, "output");
    require(work, "work");
    decomp::TransposeArgs args;
    args.input = input;
    args.output = output;
    // Device buffers run on the device, on `stream` (CUDA build); host buffers as before.
    const std::unique_ptr<decomp::BlockMover> device = decomp::device_mover_for(input, stream);
    args.mover = device.get();
    decomp::check_work_location(work, device != nullptr);
    args.work = work;
    args.dtype = dtype;
    args.input_halo = optional3(input_halo_extents);
    args.output_halo = optional3(output_halo_extents);
    args.input_padding = optional3(input_padding);
    args.output_padding = optional3(output_padding);
    grid->core->check_transpose(op, args);
    refuse_empty_pencils(*grid->core, "a transpose");
    grid->core->transpose(op, args);
  });
}

cudecompResult_t update_halos(const char* function, int axis, cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                              void* input, void* work, cudecompDataType_t dtype, const int32_t halo_extents[],
                              const bool halo_periods[], int32_t dim, const int32_t padding[], cudaStream_t stream) {
  return guarded(function, [&] {
    auto* grid = lookup(handle, grid_desc);
    require(halo_extents, "halo_extents");
    require(input, "input");
    require(work, "work");
    decomp::HaloArgs args;
    args.axis = axis;
    args.data = input;
    args.dtype = dtype;
    args.halo = optional3(halo_extents);
    const std::unique_ptr<decomp::BlockMover> device = decomp::device_mover_for(input, stream);
    args.mover = device.get();
    decomp::check_work_location(work, device != nullptr);
    args.work = work;
    if (halo_periods != nullptr) args.periods = {halo_periods[0], halo_periods[1], halo_periods[2]};
    args.dim = dim;
    args.padding = optional3(padding);
    grid->core->check_halo(args);
    refuse_empty_pencils(*grid->core, "a halo update");
    grid->core->update_halos(args);
  });
}

}  // namespace

extern "C" {

cudecompResult_t cudecompInit(cudecompHandle_t* handle, MPI_Comm mpi_comm) {
  return guarded("cudecompInit", [&] {
    require(handle, "handle");
    auto wrapper = std::make_unique<cudecompHandle>();
    wrapper->core = std::make_unique<decomp::Handle>(mpi_comm);
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    *handle = wrapper.get();
    r.handles.emplace(wrapper.get(), std::move(wrapper));
  });
}

cudecompResult_t cudecompInit_F(cudecompHandle_t* handle, MPI_Fint mpi_comm) {
  // Fortran passes its communicator handle; MPI_Comm_f2c gives the C communicator it names.
  return cudecompInit(handle, MPI_Comm_f2c(mpi_comm));
}

cudecompResult_t cudecompFinalize(cudecompHandle_t handle) {
  return guarded("cudecompFinalize", [&] {
    lookup(handle);
    auto& r = registry();
    std::unique_ptr<cudecompHandle> owned;
    {
      std::lock_guard lock(r.mutex);
      // Grids still alive belong to this handle: destroy them first, as cuDecomp expects.
      for (auto it = r.grids.begin(); it != r.grids.end();) {
        it = it->second->owner == handle ? r.grids.erase(it) : std::next(it);
      }
      auto it = r.handles.find(handle);
      owned = std::move(it->second);
      r.handles.erase(it);
    }
  });
}

cudecompResult_t cudecompGridDescCreateVersioned(cudecompHandle_t handle, cudecompGridDesc_t* grid_desc,
                                                 cudecompGridDescConfig_t* config, int64_t config_size,
                                                 int32_t config_version,
                                                 const cudecompGridDescAutotuneOptions_t* options, int64_t options_size,
                                                 int32_t options_version) {
  return guarded("cudecompGridDescCreate", [&] {
    auto* owner = lookup(handle);
    require(grid_desc, "grid_desc");
    require(config, "config");
    decomp::check_initialized(*config, config_size, config_version);
    if (options != nullptr) decomp::check_initialized(*options, options_size, options_version);
    auto wrapper = std::make_unique<cudecompGridDesc>();
    wrapper->owner = owner;
    wrapper->core = decomp::create_grid_desc(*owner->core, *config, options);
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    *grid_desc = wrapper.get();
    r.grids.emplace(wrapper.get(), std::move(wrapper));
  });
}

cudecompResult_t cudecompGridDescDestroy(cudecompHandle_t handle, cudecompGridDesc_t grid_desc) {
  return guarded("cudecompGridDescDestroy", [&] {
    auto* grid = lookup(handle, grid_desc);
    // Collective like the destruction itself: upstream prints the report here.
    grid->core->print_performance_report();
    std::unique_ptr<cudecompGridDesc> owned;
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    auto it = r.grids.find(grid_desc);
    owned = std::move(it->second);
    r.grids.erase(it);
  });
}

cudecompResult_t cudecompGridDescConfigSetDefaultsVersioned(cudecompGridDescConfig_t* config, int64_t struct_size,
                                                            int32_t version) {
  return guarded("cudecompGridDescConfigSetDefaults", [&] {
    require(config, "config");
    decomp::check_caller_struct<cudecompGridDescConfig_t>(struct_size, version, "config");
    *config = decomp::default_config();
  });
}

cudecompResult_t cudecompGridDescAutotuneOptionsSetDefaultsVersioned(cudecompGridDescAutotuneOptions_t* options,
                                                                     int64_t struct_size, int32_t version) {
  return guarded("cudecompGridDescAutotuneOptionsSetDefaults", [&] {
    require(options, "options");
    decomp::check_caller_struct<cudecompGridDescAutotuneOptions_t>(struct_size, version, "options");
    *options = decomp::default_autotune_options();
  });
}

cudecompResult_t cudecompGetPencilInfoVersioned(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                cudecompPencilInfo_t* pencil_info, int64_t struct_size, int32_t version,
                                                int32_t axis, const int32_t halo_extents[], const int32_t padding[]) {
  return guarded("cudecompGetPencilInfo", [&] {
    auto* grid = lookup(handle, grid_desc);
    require(pencil_info, "pencil_info");
    decomp::check_caller_struct<cudecompPencilInfo_t>(struct_size, version, "pencil_info");
    *pencil_info = grid->core->pencil_info(axis, optional3(halo_extents), optional3(padding));
  });
}

cudecompResult_t cudecompGetTransposeWorkspaceSize(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                   int64_t* workspace_size) {
  return guarded("cudecompGetTransposeWorkspaceSize", [&] {
    auto* grid = lookup(handle, grid_desc);
    require(workspace_size, "workspace_size");
    *workspace_size = grid->core->transpose_workspace_size();
  });
}

cudecompResult_t cudecompGetHaloWorkspaceSize(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, int32_t axis,
                                              const int32_t halo_extents[], int64_t* workspace_size) {
  return guarded("cudecompGetHaloWorkspaceSize", [&] {
    auto* grid = lookup(handle, grid_desc);
    require(halo_extents, "halo_extents");
    require(workspace_size, "workspace_size");
    *workspace_size = grid->core->halo_workspace_size(axis, optional3(halo_extents));
  });
}

cudecompResult_t cudecompGetDataTypeSize(cudecompDataType_t dtype, int64_t* dtype_size) {
  return guarded("cudecompGetDataTypeSize", [&] {
    require(dtype_size, "dtype_size");
    *dtype_size = decomp::data_type_size(dtype);
  });
}

cudecompResult_t cudecompMalloc(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer,
                                size_t buffer_size_bytes) {
  return guarded("cudecompMalloc", [&] {
    check_allocation(handle, grid_desc, buffer, buffer_size_bytes);
    // Device memory where the CUDA build has a device (decomp/device_dispatch.hpp), but only
    // when every rank has one: buffers on both sides of a transpose must take the same path.
    void* device =
        handle->core->device_on_every_rank() ? decomp::allocate_caller_device_memory(buffer_size_bytes) : nullptr;
    *buffer = device != nullptr ? device : aligned_host_allocate(buffer_size_bytes);
  });
}

cudecompResult_t cudecompMallocHost(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void** buffer,
                                    size_t buffer_size_bytes) {
  return guarded("cudecompMallocHost", [&] {
    check_allocation(handle, grid_desc, buffer, buffer_size_bytes);
    // Page-locked where the CUDA build has a device; without one, page-locking buys nothing.
    void* pinned = decomp::allocate_caller_pinned_memory(buffer_size_bytes);
    *buffer = pinned != nullptr ? pinned : aligned_host_allocate(buffer_size_bytes);
  });
}

cudecompResult_t cudecompFree(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* buffer) {
  return guarded("cudecompFree", [&] {
    lookup(handle, grid_desc);
    // Pinned and device memory go back to CUDA; what is left is aligned_host_allocate's.
    if (!decomp::release_caller_cuda_memory(buffer)) std::free(buffer);
  });
}

const char* cudecompTransposeCommBackendToString(cudecompTransposeCommBackend_t comm_backend) {
  const char* name = decomp::transpose_backend_display_name(comm_backend);
  return name == nullptr ? "ERROR" : name;
}

const char* cudecompHaloCommBackendToString(cudecompHaloCommBackend_t comm_backend) {
  const char* name = decomp::halo_backend_display_name(comm_backend);
  return name == nullptr ? "ERROR" : name;
}

cudecompResult_t cudecompGetGridDescConfigVersioned(cudecompHandle_t handle, cudecompGridDesc_t grid_desc,
                                                    cudecompGridDescConfig_t* config, int64_t struct_size,
                                                    int32_t version) {
  return guarded("cudecompGetGridDescConfig", [&] {
    auto* grid = lookup(handle, grid_desc);
    require(config, "config");
    decomp::check_caller_struct<cudecompGridDescConfig_t>(struct_size, version, "config");
    *config = grid->core->config();
  });
}

cudecompResult_t cudecompGetShiftedRank(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, int32_t axis,
                                        int32_t dim, int32_t displacement, bool periodic, int32_t* shifted_rank) {
  return guarded("cudecompGetShiftedRank", [&] {
    auto* grid = lookup(handle, grid_desc);
    require(shifted_rank, "shifted_rank");
    *shifted_rank = grid->core->shifted_rank(axis, dim, displacement, periodic);
  });
}

cudecompResult_t cudecompTransposeXToY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream) {
  return transpose("cudecompTransposeXToY", decomp::TransposeOp::kXToY, handle, grid_desc, input, output, work, dtype,
                   input_halo_extents, output_halo_extents, input_padding, output_padding, stream);
}

cudecompResult_t cudecompTransposeYToZ(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream) {
  return transpose("cudecompTransposeYToZ", decomp::TransposeOp::kYToZ, handle, grid_desc, input, output, work, dtype,
                   input_halo_extents, output_halo_extents, input_padding, output_padding, stream);
}

cudecompResult_t cudecompTransposeZToY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream) {
  return transpose("cudecompTransposeZToY", decomp::TransposeOp::kZToY, handle, grid_desc, input, output, work, dtype,
                   input_halo_extents, output_halo_extents, input_padding, output_padding, stream);
}

cudecompResult_t cudecompTransposeYToX(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* output,
                                       void* work, cudecompDataType_t dtype, const int32_t input_halo_extents[],
                                       const int32_t output_halo_extents[], const int32_t input_padding[],
                                       const int32_t output_padding[], cudaStream_t stream) {
  return transpose("cudecompTransposeYToX", decomp::TransposeOp::kYToX, handle, grid_desc, input, output, work, dtype,
                   input_halo_extents, output_halo_extents, input_padding, output_padding, stream);
}

cudecompResult_t cudecompUpdateHalosX(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream) {
  return update_halos("cudecompUpdateHalosX", 0, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim,
                      padding, stream);
}

cudecompResult_t cudecompUpdateHalosY(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream) {
  return update_halos("cudecompUpdateHalosY", 1, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim,
                      padding, stream);
}

cudecompResult_t cudecompUpdateHalosZ(cudecompHandle_t handle, cudecompGridDesc_t grid_desc, void* input, void* work,
                                      cudecompDataType_t dtype, const int32_t halo_extents[], const bool halo_periods[],
                                      int32_t dim, const int32_t padding[], cudaStream_t stream) {
  return update_halos("cudecompUpdateHalosZ", 2, handle, grid_desc, input, work, dtype, halo_extents, halo_periods, dim,
                      padding, stream);
}

const char* cudecompGetLastErrorMessage(void) {
  return last_error.c_str();
}

}  // extern "C"
