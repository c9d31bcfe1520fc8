#include "decomp/struct_abi.hpp"

#include <string>

#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

// Version 1 is the only layout so far. A later version appends fields and adds its size here.
template <typename Struct>
int64_t size_of(int32_t version) {
  return version == 1 ? static_cast<int64_t>(sizeof(Struct)) : 0;
}

void check_header(int64_t stored_size, int32_t stored_magic, int32_t stored_version, int32_t magic, int64_t struct_size,
                  int32_t version, int64_t expected_size, const char* argument, const char* initializer) {
  check_caller_abi(struct_size, version, expected_size, argument);
  if (stored_magic != magic) {
    invalid_argument(argument, std::string("was not initialized; call ") + initializer + " first");
  }
  if (stored_size != struct_size || stored_version != version) {
    invalid_argument(argument, "struct_size/version fields (" + std::to_string(stored_size) + "/" +
                                   std::to_string(stored_version) + ") differ from the caller's header (" +
                                   std::to_string(struct_size) + "/" + std::to_string(version) + ")");
  }
}

}  // namespace

int64_t struct_size_of_version(const cudecompGridDescConfig_t*, int32_t version) {
  return size_of<cudecompGridDescConfig_t>(version);
}
int64_t struct_size_of_version(const cudecompGridDescAutotuneOptions_t*, int32_t version) {
  return size_of<cudecompGridDescAutotuneOptions_t>(version);
}
int64_t struct_size_of_version(const cudecompPencilInfo_t*, int32_t version) {
  return size_of<cudecompPencilInfo_t>(version);
}

void check_caller_abi(int64_t struct_size, int32_t version, int64_t expected_size, const char* argument) {
  if (expected_size == 0) {
    invalid_argument(argument, "struct version " + std::to_string(version) +
                                   " is unknown to this library (built for cuDecomp " + std::to_string(CUDECOMP_MAJOR) +
                                   "." + std::to_string(CUDECOMP_MINOR) + "." + std::to_string(CUDECOMP_PATCH) + ")");
  }
  if (struct_size != expected_size) {
    invalid_argument(argument, "struct_size " + std::to_string(struct_size) + " does not match version " +
                                   std::to_string(version) + " of the struct (" + std::to_string(expected_size) +
                                   " bytes)");
  }
}

void check_initialized(const cudecompGridDescConfig_t& config, int64_t struct_size, int32_t version) {
  check_header(config.struct_size, config.magic, config.version, CUDECOMP_GRID_DESC_CONFIG_MAGIC, struct_size, version,
               struct_size_of_version(&config, version), "config", "cudecompGridDescConfigSetDefaults");
}

void check_initialized(const cudecompGridDescAutotuneOptions_t& options, int64_t struct_size, int32_t version) {
  check_header(options.struct_size, options.magic, options.version, CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_MAGIC,
               struct_size, version, struct_size_of_version(&options, version), "options",
               "cudecompGridDescAutotuneOptionsSetDefaults");
}

}  // namespace wavestack::decomp
