#include "jit/jit_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <array>
#include <atomic>
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

std::atomic<CxxJit*> loaded_jit{nullptr};

// The CPUID words LLVM's host processor detection reads: vendor, family/model/stepping and the
// feature leaves (basic, extended, structured), and the OS-enabled register state.
[[maybe_unused]] std::string processor_signature() {  // (unused in a build without the compiler)
#if defined(__x86_64__)
  std::string words;
  auto add = [&words](unsigned leaf, unsigned subleaf) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid_count(leaf, subleaf, &a, &b, &c, &d) == 0) a = b = c = d = 0;
    if (leaf == 1) b &= 0x00FFFFFFU;  // bits 24-31: the APIC id of the core this thread runs on
    for (const unsigned word : {a, b, c, d}) words += std::to_string(word) + ",";
  };
  add(0, 0);
  add(1, 0);
  add(7, 0);
  add(7, 1);
  add(0x80000001U, 0);
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) != 0 && (c & (1U << 27)) != 0) {  // OSXSAVE: xgetbv is allowed
    unsigned low = 0, high = 0;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    words += "xcr0=" + std::to_string(low) + "," + std::to_string(high);
  }
  return words;
#else
  return {};
#endif
}

}  // namespace

CxxJit* cxx_jit(std::string* why_not) {
  static const Loaded loaded = [] {
    Loaded result = load();
    loaded_jit.store(result.jit, std::memory_order_release);
    return result;
  }();
  if (loaded.jit == nullptr && why_not != nullptr) *why_not = loaded.why_not;
  return loaded.jit;
}

CxxJit* cxx_jit_if_loaded() {
  return loaded_jit.load(std::memory_order_acquire);
}

const std::string& cxx_jit_identity_inputs() {
  // Once per process (CPUID traps to the hypervisor in a virtual machine).
  static const std::string inputs = []() -> std::string {
#ifndef WAVESTACK_HAS_JIT
    return {};
#else
    const std::string processor = processor_signature();
    if (processor.empty()) return {};
    for (const std::filesystem::path& path : candidates()) {
      struct stat info {};
      if (::stat(path.c_str(), &info) != 0) continue;
      return path.string() + "|" + std::to_string(info.st_size) + "|" + std::to_string(info.st_mtim.tv_sec) + "." +
             std::to_string(info.st_mtim.tv_nsec) + "|" + processor;
    }
    return {};
#endif
  }();
  return inputs;
}

}  // namespace wavestack::jit
