#include "jit/jit_loader.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace wavestack::jit {
namespace {

constexpr const char* kLibraryName = "libwavestack_jit.so";

struct Loaded {
  CxxJit* jit = nullptr;
  std::string why_not;
};

// The directory of the shared object (or executable) holding this function.
std::filesystem::path own_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_directory), &info) == 0 || info.dli_fname == nullptr) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

std::vector<std::filesystem::path> candidates() {
  std::vector<std::filesystem::path> paths;
  if (const char* chosen = std::getenv("WAVESTACK_JIT_LIBRARY"); chosen != nullptr && *chosen != '\0') {
    paths.emplace_back(chosen);
    return paths;
  }
  if (const auto beside = own_directory(); !beside.empty()) paths.push_back(beside / kLibraryName);
#ifdef WAVESTACK_JIT_BUILD_PATH
  paths.emplace_back(WAVESTACK_JIT_BUILD_PATH);
#endif
  return paths;
}

Loaded load() {
  Loaded loaded;
#ifndef WAVESTACK_HAS_JIT
  loaded.why_not = "this build has no in-process compiler (LLVM 15 and clang 15 were not found when it was configured)";
  return loaded;
#else
  std::string tried;
  for (const std::filesystem::path& path : candidates()) {
    if (!std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path.string() + " (missing)";
      continue;
    }
    // RTLD_LOCAL: LLVM's symbols stay out of the global namespace (Mesa's llvmpipe may load its
    // own copy).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      tried += (tried.empty() ? "" : ", ") + path.string() + " (" + dlerror() + ")";
      continue;
    }
    using Create = CxxJit* (*)(char*, std::size_t);
    auto create = reinterpret_cast<Create>(dlsym(handle, "wavestack_jit_create"));
    if (create == nullptr) {
      tried += (tried.empty() ? "" : ", ") + path.string() + " (no wavestack_jit_create)";
      continue;
    }
    std::array<char, 1024> error{};
    loaded.jit = create(error.data(), error.size());
    if (loaded.jit == nullptr) loaded.why_not = "the in-process compiler did not start: " + std::string(error.data());
    return loaded;
  }
  loaded.why_not = "the in-process compiler's library was not found: tried " + tried;
  return loaded;
#endif
}

}  // namespace

CxxJit* cxx_jit(std::string* why_not) {
  static const Loaded loaded = load();
  if (loaded.jit == nullptr && why_not != nullptr) *why_not = loaded.why_not;
  return loaded.jit;
}

}  // namespace wavestack::jit
