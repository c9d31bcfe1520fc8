#include "wasm/compiler/cpu_unit_build.hpp"

#include <atomic>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jit/jit_loader.hpp"
#include "jit/object_loader.hpp"
#include "runtime/disk_cache.hpp"
#include "wasm/compiler/build_pool.hpp"
#include "wasm/compiler/cpu_toolchain.hpp"
#include "wasm/device/compiled_glsl.hpp"

namespace wavestack::wasm::compiler {
namespace {

using device::CpuPreamble;

constexpr const char* kCacheKind = "cpu-jit";
constexpr const char* kIdentityCacheKind = "cpu-jit-identity";
constexpr const char* kRuntimeCacheKind = "cpu-runtime";  // the fast tier's shared runtime

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

// The compiler's identity kept in the cache under what it is a function of
// (jit::cxx_jit_identity_inputs), so that a warm start finds its cached objects' keys without
// loading the compiler. Read once per cache directory (a process may change
// WAVESTACK_CACHE_DIR); nullopt when unknown.
class RememberedIdentities {
 public:
  std::optional<std::string> find() {
    const auto root = runtime::DiskCache::default_root();
    const std::string& inputs = jit::cxx_jit_identity_inputs();
    if (!root || inputs.empty()) return std::nullopt;
    const std::lock_guard lock(mutex_);
    const auto [entry, added] = by_root_.try_emplace(root->string());
    if (added) {
      const auto cached = runtime::DiskCache(*root).load(kIdentityCacheKind, key(inputs));
      if (cached && !cached->empty())
        entry->second.assign(reinterpret_cast<const char*>(cached->data()), cached->size());
    }
    if (entry->second.empty()) return std::nullopt;
    return entry->second;
  }

  void remember(const std::string& identity) {
    const auto root = runtime::DiskCache::default_root();
    const std::string& inputs = jit::cxx_jit_identity_inputs();
    if (!root || inputs.empty() || find() == identity) return;
    (void)runtime::DiskCache(*root).store(
        kIdentityCacheKind, key(inputs),
        std::span<const std::byte>(reinterpret_cast<const std::byte*>(identity.data()), identity.size()));
    const std::lock_guard lock(mutex_);
    by_root_[root->string()] = identity;
  }

 private:
  static std::string key(const std::string& inputs) { return runtime::make_cache_key({kIdentityCacheKind, inputs}); }

  std::mutex mutex_;
  std::unordered_map<std::string, std::string> by_root_;  // empty: none in that directory
};

RememberedIdentities& remembered_identities() {
  static auto* identities = new RememberedIdentities();  // never destroyed: builds may run at exit
  return *identities;
}

jit::CxxJit& in_process_compiler() {
  std::string why_not;
  jit::CxxJit* compiler = jit::cxx_jit(&why_not);
  if (compiler == nullptr) throw std::runtime_error("compiled mode on the cpu device: " + why_not);
  // Background builds stopping at exit cancel what the compiler is running (their results
  // are dropped): an exiting process waits for them.
  static const bool hooked = [] {
    BuildPool::set_before_stop([] {
      if (jit::CxxJit* running = jit::cxx_jit()) running->cancel_running();
    });
    return true;
  }();
  (void)hooked;
  return *compiler;
}

// The fast tier's units call the device runtime in one object shared by all of them (built
// once, cached like a unit); the optimised tier compiles it into each unit, to inline it.
CpuPreamble preamble_kind(CpuTier tier) {
  return tier == CpuTier::kFast ? CpuPreamble::kInProcessShared : CpuPreamble::kInProcess;
}

jit::PreambleCode preamble_code(CpuTier tier) {
  return tier == CpuTier::kFast ? jit::PreambleCode::kShared : jit::PreambleCode::kInEveryUnit;
}

// A preamble's digest, computed once per kind.
const std::string& preamble_digest(CpuPreamble kind) {
  static const std::string in_every_unit =
      runtime::make_cache_key({"cpu-preamble", device::compiled_cpu_preamble(CpuPreamble::kInProcess)});
  static const std::string shared =
      runtime::make_cache_key({"cpu-preamble-shared", device::compiled_cpu_preamble(CpuPreamble::kInProcessShared)});
  return kind == CpuPreamble::kInProcessShared ? shared : in_every_unit;
}

std::string object_key(const std::string& identity, CpuTier tier, const std::string& unit_key) {
  return runtime::make_cache_key(
      {kCacheKind, identity, cpu_tier_name(tier), preamble_digest(preamble_kind(tier)), unit_key});
}

// A cache entry holds its key before the object: the cache's checksum catches a damaged entry,
// the key one that belongs to another unit (a file copied or renamed into place); either is a
// miss, rebuilt and replaced, never loaded.
class CachedObject {
 public:
  static std::optional<CachedObject> load(const char* kind, const std::string& key) {
    const std::string header = key + "\n";
    auto cached = runtime::DiskCache().load(kind, key);
    if (!cached || cached->size() <= header.size() ||
        std::string_view(reinterpret_cast<const char*>(cached->data()), header.size()) != header) {
      return std::nullopt;
    }
    return CachedObject(std::move(*cached), header.size());
  }
  // The object, without copying it out of the entry (thousands of tens of KiB in a warm start).
  [[nodiscard]] std::string_view object() const {
    return {reinterpret_cast<const char*>(entry_.data()) + offset_, entry_.size() - offset_};
  }

 private:
  CachedObject(std::vector<std::byte> entry, std::size_t offset) : entry_(std::move(entry)), offset_(offset) {}
  std::vector<std::byte> entry_;
  std::size_t offset_;
};

void store_object(const char* kind, const std::string& key, const std::string& object) {
  const std::string entry = key + "\n" + object;
  (void)runtime::DiskCache().store(
      kind, key, std::span<const std::byte>(reinterpret_cast<const std::byte*>(entry.data()), entry.size()));
}

std::atomic<bool> shared_runtime_linked{false};

// Links the shared runtime of the fast tier's units into the process once, before the first
// such unit: from the cache, else built (about 0.1 s) and cached.
void ensure_shared_runtime(jit::CxxJit& compiler) {
  static std::once_flag linked;
  std::call_once(linked, [&compiler] {
    const std::string key = runtime::make_cache_key(
        {kRuntimeCacheKind, compiler.identity(), preamble_digest(CpuPreamble::kInProcessShared)});
    if (const std::optional<CachedObject> cached = CachedObject::load(kRuntimeCacheKind, key)) {
      compiler.load_shared(cached->object());
    } else {
      const std::string object =
          compiler.compile_preamble_object(device::compiled_cpu_preamble(CpuPreamble::kInProcessShared));
      if (object.empty())
        throw std::runtime_error("compiled mode: the runtime's build was cancelled (the process is exiting)");
      store_object(kRuntimeCacheKind, key, object);
      compiler.load_shared(object);
    }
    shared_runtime_linked.store(true, std::memory_order_release);
  });
}

// Every object this process linked, by its key: a unit is linked once per process however many
// modules of the same binary load it (as dlopen does for a library), since linked code stays for
// the process's life (a test's worker loading one module thousands of times ran out of mappings).
class LinkedUnits {
 public:
  std::optional<BuiltUnit> find(const std::string& key) {
    const std::lock_guard lock(mutex_);
    const auto found = units_.find(key);
    if (found == units_.end()) return std::nullopt;
    return found->second;
  }
  BuiltUnit add(const std::string& key, const BuiltUnit& unit) {
    const std::lock_guard lock(mutex_);
    return units_.emplace(key, unit).first->second;  // a unit two threads linked at once: the first
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, BuiltUnit> units_;
};

LinkedUnits& linked_units() {
  static auto* units = new LinkedUnits();  // never destroyed: its code outlives every module
  return *units;
}

std::vector<const char*> symbol_names(UnitSymbols symbols) {
  std::vector<const char*> names{symbols.symbol};
  if (symbols.second_symbol != nullptr) names.push_back(symbols.second_symbol);
  return names;
}

BuiltUnit load_object(jit::CxxJit& compiler, std::string_view object, UnitSymbols symbols, bool from_cache) {
  const std::vector<const char*> names = symbol_names(symbols);
  const std::vector<void*> addresses = compiler.load(object, names);
  BuiltUnit built;
  built.entry = addresses.at(0);
  if (symbols.second_symbol != nullptr) built.second = addresses.at(1);
  built.from_cache = from_cache;
  return built;
}

// A linker of this module's own (the compiler's library holds another), for cached objects
// loaded before the compiler is: null where the process cannot use one or
// WAVESTACK_JIT_LINKER=jitlink asks for LLVM's linker.
jit::ObjectLoader* cached_object_linker() {
  static const std::unique_ptr<jit::ObjectLoader> loader = []() -> std::unique_ptr<jit::ObjectLoader> {
    const char* linker = std::getenv("WAVESTACK_JIT_LINKER");
    if (linker != nullptr && std::string_view(linker) == "jitlink") return nullptr;
    return jit::ObjectLoader::create(nullptr);
  }();
  return loader.get();
}

// The optimised tier's cached unit linked without the compiler (a warm start then never loads
// LLVM unless it builds): its objects hold the runtime they call (the fast tier's need the
// shared runtime the compiler links), so the process's C library is all they resolve against.
// nullopt when this cannot be done here; `missing` says whether it was a cache miss.
std::optional<BuiltUnit> load_cached_without_compiler(const std::string& unit_key, UnitSymbols symbols, bool& missing) {
  missing = false;
  jit::ObjectLoader* linker = cached_object_linker();
  if (linker == nullptr || jit::cxx_jit_identity_inputs().empty()) return std::nullopt;
  const std::optional<std::string> identity = remembered_identities().find();
  // Every process that stores an object has loaded the compiler and remembered its identity
  // first: without it, the cache holds no object of this compiler (a cold cache).
  missing = !identity;
  if (!identity) return std::nullopt;
  const std::string key = object_key(*identity, CpuTier::kOptimized, unit_key);
  if (auto linked = linked_units().find(key)) {
    linked->from_cache = true;
    return linked;
  }
  const std::optional<CachedObject> cached = CachedObject::load(kCacheKind, key);
  if (!cached) {
    missing = true;
    return std::nullopt;
  }
  static std::atomic<std::uint64_t> serial{0};
  const std::vector<const char*> names = symbol_names(symbols);
  const auto addresses =
      linker->load(cached->object(), "cached-unit-" + std::to_string(serial.fetch_add(1)), names, false, nullptr);
  if (!addresses) return std::nullopt;  // one the loader does not handle: the compiler links it
  BuiltUnit built;
  built.entry = addresses->at(0);
  if (symbols.second_symbol != nullptr) built.second = addresses->at(1);
  built.from_cache = true;
  return linked_units().add(key, built);
}

}  // namespace

std::optional<BuiltUnit> load_cached_cpu_unit(CpuTier tier, const std::string& unit_key, UnitSymbols symbols) {
  if (!cpu_tier_is_in_process(tier)) return std::nullopt;
  if (tier == CpuTier::kOptimized && jit::cxx_jit_if_loaded() == nullptr) {
    bool missing = false;
    if (auto linked = load_cached_without_compiler(unit_key, symbols, missing)) return linked;
    if (missing) return std::nullopt;
  }
  // (The default plan counts on the compiler before loading it: where it does not load, no
  // cached object of its tiers can be linked, and the host's compiler builds instead.)
  if (jit::cxx_jit() == nullptr) return std::nullopt;
  jit::CxxJit& compiler = in_process_compiler();
  const std::string key = object_key(compiler.identity(), tier, unit_key);
  if (auto linked = linked_units().find(key)) {
    linked->from_cache = true;
    return linked;
  }
  const std::optional<CachedObject> cached = CachedObject::load(kCacheKind, key);
  if (!cached) return std::nullopt;
  if (tier == CpuTier::kFast) ensure_shared_runtime(compiler);
  return linked_units().add(key, load_object(compiler, cached->object(), symbols, true));
}

BuiltUnit build_cpu_unit(CpuTier tier, const std::string& unit_key, const std::string& text, UnitSymbols symbols) {
  if (!cpu_tier_is_in_process(tier)) {
    const std::string source = device::compiled_cpu_preamble(CpuPreamble::kHostCompiler) + text;
    const LoadedUnit loaded = load_cpu_unit(host_toolchain(), source, symbols.symbol, symbols.second_symbol);
    return {loaded.entry, loaded.second, loaded.from_cache};
  }
  jit::CxxJit& compiler = in_process_compiler();
  // A background build that loaded the compiler while the process began to exit did not see
  // the exit's cancel: it would hold the exit for a whole build.
  if (BuildPool::stopping_shared()) {
    throw std::runtime_error("compiled mode: a unit's build was cancelled (the process is exiting)");
  }
  const jit::OptLevel level = tier == CpuTier::kFast ? jit::OptLevel::kFast : jit::OptLevel::kOptimized;
  // The shared runtime is needed only to link the unit: a cold process's first fast unit builds
  // beside it (on a second core, the runtime's build was most of a small program's fixed cost).
  std::future<void> runtime;
  if (tier == CpuTier::kFast && !shared_runtime_linked.load(std::memory_order_acquire)) {
    runtime = std::async(std::launch::async, [&compiler] { ensure_shared_runtime(compiler); });
  }
  const std::string object =
      compiler.compile(device::compiled_cpu_preamble(preamble_kind(tier)), text, level, preamble_code(tier));
  if (runtime.valid()) runtime.get();  // its failure, if any, is this build's
  if (object.empty()) throw std::runtime_error("compiled mode: a unit's build was cancelled (the process is exiting)");
  const std::string key = object_key(compiler.identity(), tier, unit_key);
  // A cache directory learns the identity before its first object of this compiler, so that a
  // warm start can key its objects without loading the compiler.
  remembered_identities().remember(compiler.identity());
  store_object(kCacheKind, key, object);
  BuiltUnit built = linked_units().add(key, load_object(compiler, object, symbols, false));
  built.from_cache = false;
  return built;
}

}  // namespace wavestack::wasm::compiler
