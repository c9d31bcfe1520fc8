// The versioned struct ABI of cuDecomp 0.7: every public struct starts with struct_size, magic
// and version. The library checks what the caller's header says about a struct before it
// writes one (so it never writes past a smaller struct) and before it reads one (so an
// uninitialized struct is a clear INVALID_USAGE error instead of garbage settings).
#pragma once

#include <cstdint>

#include "cudecomp.h"

namespace wavestack::decomp {

// Size of a struct at each version this library knows; 0 for a version it does not know.
int64_t struct_size_of_version(const cudecompGridDescConfig_t*, int32_t version);
int64_t struct_size_of_version(const cudecompGridDescAutotuneOptions_t*, int32_t version);
int64_t struct_size_of_version(const cudecompPencilInfo_t*, int32_t version);

// The size/version pair a wrapper passed must describe a version this library knows, at the
// size that version has. Throws INVALID_USAGE naming `argument` otherwise.
void check_caller_abi(int64_t struct_size, int32_t version, int64_t expected_size, const char* argument);

template <typename Struct>
void check_caller_struct(int64_t struct_size, int32_t version, const char* argument) {
  check_caller_abi(struct_size, version, struct_size_of_version(static_cast<const Struct*>(nullptr), version),
                   argument);
}

// A struct passed in to be read: initialized by *SetDefaults (magic), of the caller's version
// and size. Throws INVALID_USAGE otherwise.
void check_initialized(const cudecompGridDescConfig_t& config, int64_t struct_size, int32_t version);
void check_initialized(const cudecompGridDescAutotuneOptions_t& options, int64_t struct_size, int32_t version);

}  // namespace wavestack::decomp
