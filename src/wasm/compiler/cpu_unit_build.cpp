#include "wasm/compiler/cpu_unit_build.hpp"

#include <array>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "jit/jit_loader.hpp"
#include "runtime/disk_cache.hpp"
#include "wasm/compiler/cpu_toolchain.hpp"
#include "wasm/device/compiled_glsl.hpp"

namespace wavestack::wasm::compiler {
namespace {

using device::CpuHeaders;

// The host compiler, looked for once per process (it runs `compiler --version`).
const CpuToolchain& host_toolchain() {
  static const std::optional<CpuToolchain> toolchain = find_cpu_toolchain();
  if (!toolchain) {
    throw std::runtime_error(
        "compiled mode on the cpu device needs a C++ compiler to build its units, and none was found (tried "
        "$WAVESTACK_CXX, $CXX, c++, g++ and clang++); install one or use execution=\"interpreter\"");
  }
  return *toolchain;
}

jit::CxxJit& in_process_compiler() {
  std::string why_not;
  jit::CxxJit* compiler = jit::cxx_jit(&why_not);
  if (compiler == nullptr) throw std::runtime_error("compiled mode on the cpu device: " + why_not);
  return *compiler;
}

// The freestanding preamble's digest, computed once (every object's key holds it).
const std::string& preamble_digest() {
  static const std::string digest =
      runtime::make_cache_key({"cpu-preamble", device::compiled_cpu_preamble(CpuHeaders::kFreestanding)});
  return digest;
}

BuiltUnit build_in_process(CpuTier tier, const std::string& text, const char* symbol, const char* second_symbol) {
  jit::CxxJit& compiler = in_process_compiler();
  const jit::OptLevel level = tier == CpuTier::kFast ? jit::OptLevel::kFast : jit::OptLevel::kOptimized;
  const std::string key =
      runtime::make_cache_key({"cpu-jit", compiler.identity(), cpu_tier_name(tier), preamble_digest(), text});
  const runtime::DiskCache cache;
  BuiltUnit built;
  std::string object;
  // An entry holds its key before the object: the cache's checksum catches a damaged entry,
  // the key one that belongs to another unit (a file copied or renamed into place), and
  // either is rebuilt, never loaded.
  const std::string header = key + "\n";
  if (auto cached = cache.load("cpu-jit", key);
      cached && cached->size() > header.size() &&
      std::string_view(reinterpret_cast<const char*>(cached->data()), header.size()) == header) {
    object.assign(reinterpret_cast<const char*>(cached->data()) + header.size(), cached->size() - header.size());
    built.from_cache = true;
  } else {
    object = compiler.compile(device::compiled_cpu_preamble(CpuHeaders::kFreestanding), text, level);
    const std::string entry = header + object;
    (void)cache.store("cpu-jit", key,
                      std::span<const std::byte>(reinterpret_cast<const std::byte*>(entry.data()), entry.size()));
  }
  std::vector<const char*> symbols{symbol};
  if (second_symbol != nullptr) symbols.push_back(second_symbol);
  const std::vector<void*> addresses = compiler.load(object, symbols);
  built.entry = addresses.at(0);
  if (second_symbol != nullptr) built.second = addresses.at(1);
  return built;
}

}  // namespace

BuiltUnit build_cpu_unit(CpuTier tier, const std::string& text, const char* symbol, const char* second_symbol) {
  if (cpu_tier_is_in_process(tier)) return build_in_process(tier, text, symbol, second_symbol);
  const std::string source = device::compiled_cpu_preamble(CpuHeaders::kStandard) + text;
  const LoadedUnit loaded = load_cpu_unit(host_toolchain(), source, symbol, second_symbol);
  return {loaded.entry, loaded.second, loaded.from_cache};
}

}  // namespace wavestack::wasm::compiler
