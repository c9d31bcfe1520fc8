#include "wasm/compiler/cpu_toolchain.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/disk_cache.hpp"

extern char** environ;

namespace wavestack::wasm::compiler {
namespace {

namespace fs = std::filesystem;

// -O1 and what the generated code needs of -O2, since a program's first run builds hundreds of
// units (graphviz.wasm's first render 526): -O2 takes 1.6 to 1.8 times as long for a full
// unit of graphviz.wasm here. GCC's -O1 leaves out strict aliasing (without it every store to
// the state reloads the buffer pointers), inlining of small functions (frame_branch,
// slot_get, the numerics), value-range and peephole passes, and the SLP vectorizer, which is
// what keeps an f64 (a uvec2 of two words) in one register between the host fast path's
// operations, and -fipa-ra, which tells the register allocator that the fast path's cold
// NaN calls clobber one register, not every SSE register, so a loop's f64 values stay in
// registers instead of going through the stack each iteration (f64_loop 5 to 8% faster);
// together they give most of -O2's speed (docs/PERFORMANCE.md) at -O1's build time.
// Clang's -O1 differs, so other compilers get -O1 alone (not measured here).
// -fno-math-errno: sqrt of a negative operand need not call libm to set errno (its NaN takes
// the library's path either way). WAVESTACK_UNIT_CXXFLAGS comes after these, so it can
// override them. Nothing may reassociate or flush floating point (the numerics are integer
// code; the host fast path is IEEE).
constexpr const char* kBaseFlags = "-std=c++20 -O1 -fPIC -shared -w -fno-fast-math -fno-math-errno";
constexpr const char* kGccFlags =
    "-fstrict-aliasing -finline-small-functions -fpeephole2 -ftree-vrp -fexpensive-optimizations "
    "-ftree-slp-vectorize -fcse-follow-jumps -fipa-sra -fipa-ra";

// The flags for the compiler `version` names (the first line of its --version): GCC's
// selection above unless it is Clang.
std::string optimization_flags(const std::string& version) {
  return version.find("clang") == std::string::npos ? kGccFlags : "";
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// Runs argv with stdout and stderr to `log`; returns the exit status (-1 when it did not start).
int run_logged(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path scratch_dir() {
  return fs::temp_directory_path() / ("wavestack-units-" + std::to_string(getpid()));
}

// Where built libraries live: the disk cache's root, or a per-process scratch directory
// when the cache is off (WAVESTACK_CACHE_DIR=off).
fs::path library_dir() {
  const auto root = runtime::DiskCache::default_root();
  fs::path dir = root ? *root / "cpu-units" : scratch_dir();
  fs::create_directories(dir);
  return dir;
}

std::string unique_suffix() {
  std::ostringstream suffix;
  suffix << getpid() << '-' << std::this_thread::get_id();
  return suffix.str();
}

std::optional<std::string> version_of(const std::string& compiler) {
  const fs::path log = scratch_dir() / ("version-" + unique_suffix() + ".txt");
  fs::create_directories(log.parent_path());
  const int status = run_logged({compiler, "--version"}, log);
  const std::string text = read_text(log);
  std::error_code ignored;
  fs::remove(log, ignored);
  if (status != 0) return std::nullopt;
  return text.substr(0, text.find('\n'));
}

}  // namespace

std::optional<CpuToolchain> find_cpu_toolchain() {
  std::vector<std::string> candidates;
  for (const char* variable : {"WAVESTACK_CXX", "CXX"}) {
    if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') candidates.emplace_back(value);
  }
  candidates.insert(candidates.end(), {"c++", "g++", "clang++"});
  for (const std::string& candidate : candidates) {
    if (const auto version = version_of(candidate)) {
      CpuToolchain toolchain{candidate, *version, ""};
      if (const char* flags = std::getenv("WAVESTACK_UNIT_CXXFLAGS")) toolchain.flags = flags;
      return toolchain;
    }
  }
  return std::nullopt;
}

LoadedUnit load_cpu_unit(const CpuToolchain& toolchain, const std::string& source, const char* symbol,
                         const char* second_symbol) {
  const std::string key = runtime::make_cache_key({"cpu-unit", toolchain.compiler, toolchain.version, kBaseFlags,
                                                   optimization_flags(toolchain.version), toolchain.flags, source});
  const fs::path dir = library_dir();
  const fs::path library = dir / (key + ".so");
  LoadedUnit loaded;
  loaded.from_cache = fs::exists(library);
  if (!loaded.from_cache) {
    // Built under a private name and renamed into place, so a concurrent reader never
    // loads a half-written library.
    const std::string suffix = unique_suffix();
    const fs::path source_path = dir / (key + "." + suffix + ".cpp");
    const fs::path temporary = dir / (key + "." + suffix + ".so");
    const fs::path log = dir / (key + "." + suffix + ".log");
    std::ofstream(source_path) << source;
    std::vector<std::string> args{toolchain.compiler};
    for (const std::string& flag : split_words(kBaseFlags)) args.push_back(flag);
    for (const std::string& flag : split_words(optimization_flags(toolchain.version))) args.push_back(flag);
    for (const std::string& flag : split_words(toolchain.flags)) args.push_back(flag);
    args.insert(args.end(), {"-o", temporary.string(), source_path.string()});
    const int status = run_logged(args, log);
    const std::string messages = read_text(log);
    std::error_code ignored;
    if (status != 0) {
      fs::remove(temporary, ignored);
      fs::remove(log, ignored);
      throw std::runtime_error("compiled mode: " + toolchain.compiler + " could not build a unit (exit " +
                               std::to_string(status) + "; source kept at " + source_path.string() + "):\n" +
                               messages.substr(0, 4000));
    }
    fs::rename(temporary, library);
    fs::remove(source_path, ignored);
    fs::remove(log, ignored);
  }
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error("compiled mode: cannot load " + library.string() + ": " + dlerror());
  loaded.entry = dlsym(handle, symbol);
  if (loaded.entry == nullptr) throw std::runtime_error("compiled mode: " + library.string() + " lacks " + symbol);
  if (second_symbol != nullptr) {
    loaded.second = dlsym(handle, second_symbol);
    if (loaded.second == nullptr) {
      throw std::runtime_error("compiled mode: " + library.string() + " lacks " + second_symbol);
    }
  }
  return loaded;
}

}  // namespace wavestack::wasm::compiler
