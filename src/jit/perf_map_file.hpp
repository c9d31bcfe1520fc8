// Linux perf's map of JIT-compiled code: with WAVESTACK_PERF_MAP=1 every function the
// in-process compiler links is appended to /tmp/perf-<pid>.map (perf's format for code it
// cannot find in a file), so `perf report` names a unit's run and block functions instead of
// showing bare addresses. Both linkers (object_loader.hpp, and JITLink's plugin in perf_map.hpp)
// write here.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace wavestack::jit {

struct PerfMapEntry {
  std::uint64_t start = 0;
  std::uint64_t size = 0;
  std::string name;
};

// Appends `entries` to the map, one line each ("START SIZE NAME" in hexadecimal), when
// WAVESTACK_PERF_MAP is 1; otherwise does nothing. Thread-safe.
void write_perf_map(std::span<const PerfMapEntry> entries);

// Whether write_perf_map writes anything (so that linkers skip collecting names).
[[nodiscard]] bool perf_map_enabled();

}  // namespace wavestack::jit
