// Linking a module's imports against the host modules the runtime defines on the device:
// `wasi_snapshot_preview1` (its functions run as device code; names and types were checked
// at load) and `spectest` (the spec tests' host module: its print functions are no-op host
// functions, its globals initial values, its table and memory the instance's own). A wrong
// name or type is a link error, as the spec's assert_unlinkable expects ("unknown import",
// "incompatible import type").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

class LinkError : public std::runtime_error {
 public:
  explicit LinkError(const std::string& reason) : std::runtime_error(reason) {}
};

inline constexpr std::uint32_t kNotWasi = 0xFFFFFFFFu;

struct LinkedImports {
  // Per imported function, in order: its WASI function id (wasi_preview1.hpp), or kNotWasi
  // for a spectest no-op.
  std::vector<std::uint32_t> function_wasi_ids;
  [[nodiscard]] bool uses_wasi() const noexcept {
    for (std::uint32_t id : function_wasi_ids)
      if (id != kNotWasi) return true;
    return false;
  }
  std::vector<std::uint64_t> global_values;  // per imported global (bit patterns)
  std::vector<TableType> tables;             // per imported table: the provided table's type
  std::optional<MemoryType> memory;          // the provided memory's type, when imported
};

// Throws LinkError for an import the host does not define or defines with another type.
[[nodiscard]] LinkedImports link_imports(const Module& module);

}  // namespace wavestack::wasm
