#include "jit/perf_map_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace wavestack::jit {
namespace {

struct PerfMap {
  std::mutex mutex;
  std::FILE* file = nullptr;
};

PerfMap& perf_map() {
  static PerfMap* map = [] {
    auto* opened = new PerfMap();  // never closed: code is linked until the process exits
    const char* wanted = std::getenv("WAVESTACK_PERF_MAP");
    if (wanted != nullptr && std::strcmp(wanted, "1") == 0) {
      const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
      opened->file = std::fopen(path.c_str(), "a");  // a profiling aid only: no map, no names
    }
    return opened;
  }();
  return *map;
}

}  // namespace

bool perf_map_enabled() {
  return perf_map().file != nullptr;
}

void write_perf_map(std::span<const PerfMapEntry> entries) {
  PerfMap& map = perf_map();
  if (map.file == nullptr) return;
  const std::lock_guard lock(map.mutex);
  for (const PerfMapEntry& entry : entries) {
    std::fprintf(map.file, "%llx %llx %s\n", static_cast<unsigned long long>(entry.start),
                 static_cast<unsigned long long>(entry.size), entry.name.c_str());
  }
  std::fflush(map.file);
}

}  // namespace wavestack::jit
