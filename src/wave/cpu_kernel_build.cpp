#include "wave/cpu_kernel_build.hpp"

#include <array>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jit/jit_loader.hpp"
#include "runtime/disk_cache.hpp"
#include "wave/cpu_preamble.hpp"

namespace wavestack::wave {
namespace {

constexpr const char* kCacheKind = "wave-cpu";

jit::CxxJit& compiler() {
  std::string why_not;
  jit::CxxJit* found = jit::cxx_jit(&why_not);
  if (found == nullptr) {
    throw std::runtime_error("device='cpu' compiles kernels with the in-process compiler, which is unavailable: " +
                             why_not + "; use device='emulator'");
  }
  return *found;
}

const std::string& preamble_digest() {
  static const std::string digest = runtime::make_cache_key({"wave-cpu-preamble", cpu_preamble()});
  return digest;
}

// Kernels linked by this process, by key: linked code stays for the process's life, so a
// kernel compiled again (another Kernel object, the same IR) reuses it.
class LinkedKernels {
 public:
  std::optional<cpu_abi::KernelEntry> find(const std::string& key) {
    const std::lock_guard lock(mutex_);
    const auto found = entries_.find(key);
    if (found == entries_.end()) return std::nullopt;
    return found->second;
  }
  cpu_abi::KernelEntry add(const std::string& key, cpu_abi::KernelEntry entry) {
    const std::lock_guard lock(mutex_);
    return entries_.emplace(key, entry).first->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, cpu_abi::KernelEntry> entries_;
};

LinkedKernels& linked() {
  static auto* kernels = new LinkedKernels();  // never destroyed: the code it points to outlives it
  return *kernels;
}

cpu_abi::KernelEntry link(jit::CxxJit& jit, const std::string& object) {
  const std::array<const char*, 1> symbols{cpu_abi::kEntrySymbol};
  const std::vector<void*> addresses = jit.load(object, symbols);
  return reinterpret_cast<cpu_abi::KernelEntry>(addresses.at(0));
}

}  // namespace

BuiltCpuKernel build_cpu_kernel(const std::string& source) {
  jit::CxxJit& jit = compiler();
  const std::string key = runtime::make_cache_key({kCacheKind, jit.identity(), preamble_digest(), source});
  if (auto entry = linked().find(key)) return {*entry, true};
  const std::string header = key + "\n";
  const runtime::DiskCache cache;
  if (const auto cached = cache.load(kCacheKind, key);
      cached && cached->size() > header.size() &&
      std::string_view(reinterpret_cast<const char*>(cached->data()), header.size()) == header) {
    const std::string object(reinterpret_cast<const char*>(cached->data()) + header.size(),
                             cached->size() - header.size());
    return {linked().add(key, link(jit, object)), true};
  }
  const std::string object = jit.compile(cpu_preamble(), source, jit::OptLevel::kOptimized);
  if (object.empty()) throw std::runtime_error("device='cpu': a kernel's build was cancelled (the process is exiting)");
  const std::string entry = header + object;
  (void)cache.store(kCacheKind, key,
                    std::span<const std::byte>(reinterpret_cast<const std::byte*>(entry.data()), entry.size()));
  return {linked().add(key, link(jit, object)), false};
}

}  // namespace wavestack::wave
