// The error of a spawn that would exceed a budget or a limit (Python: ResourceLimitError).
#pragma once

#include <stdexcept>
#include <string>

namespace wavestack::wasm {

// A spawn would exceed a budget (max_resident_bytes, stack_size, a WASI quota's maximum) or a
// device limit (memory, buffer range, batch size); thrown before anything is allocated. The
// message names the argument to change.
class ResourceLimit : public std::runtime_error {
 public:
  explicit ResourceLimit(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace wavestack::wasm
