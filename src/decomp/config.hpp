// Defaults, names and validation of the configuration structs and enums of cudecomp.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cudecomp.h"

namespace wavestack::decomp {

cudecompGridDescConfig_t default_config();
cudecompGridDescAutotuneOptions_t default_autotune_options();

// Element size in bytes; throws DecompError (INVALID_USAGE naming `argument`) for other values.
int64_t data_type_size(cudecompDataType_t dtype, const char* argument = "dtype");

// The enum's token ("MPI_P2P_PL", ...), used by environment variables; nullptr outside the enum.
const char* transpose_backend_name(cudecompTransposeCommBackend_t backend);
const char* halo_backend_name(cudecompHaloCommBackend_t backend);
// cuDecomp's display name ("MPI_P2P (pipelined)", ...), as *CommBackendToString returns it.
const char* transpose_backend_display_name(cudecompTransposeCommBackend_t backend);
const char* halo_backend_display_name(cudecompHaloCommBackend_t backend);
std::optional<cudecompTransposeCommBackend_t> transpose_backend_from_name(const std::string& name);
std::optional<cudecompHaloCommBackend_t> halo_backend_from_name(const std::string& name);

// Backends this build can run (backend_support.hpp, for this_build()). Unknown values are
// INVALID_USAGE, known but unavailable ones (NCCL, NVSHMEM) NOT_SUPPORTED; the message names
// `argument`.
void check_transpose_backend(cudecompTransposeCommBackend_t backend, const char* argument);
void check_halo_backend(cudecompHaloCommBackend_t backend, const char* argument);

// Checks everything about a configuration that does not depend on the communicator size.
void validate_config(const cudecompGridDescConfig_t& config);
void validate_autotune_options(const cudecompGridDescAutotuneOptions_t& options);

}  // namespace wavestack::decomp
