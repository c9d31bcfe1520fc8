// The virtual environment of WASI preview 1 on the device: its configuration, and the initial
// image of the per-instance WASI region that the device library (src/wasm/device/wasi_*.glsl)
// works on. The layout is documented in src/wasm/device/wasi_layout.glsl.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "runtime/zeroed_words.hpp"

namespace wavestack::wasm {

// A u32 seed (nonzero) or a 32-byte ChaCha20 key; see wasi_chacha20.glsl for the stream.
using WasiSeed = std::variant<std::uint32_t, std::array<std::uint8_t, 32>>;

inline constexpr std::uint32_t kWasiDefaultSeed = 1;  // public: no unpredictable entropy

struct WasiConfig {
  std::vector<std::string> args;  // byte strings (argv[0] first); no NUL bytes
  std::vector<std::string> env;   // "KEY=VALUE" byte strings; no NUL bytes
  std::string stdin_bytes;        // what fd 0 reads
  // Relative paths ("dir/name", '/'-separated, UTF-8, no "." or ".." components, at most 255
  // bytes) and their contents; the directories they imply are created. Order is kept (it is
  // the order fd_readdir lists them in).
  std::vector<std::pair<std::string, std::string>> files;
  // Bytes of content the instance may hold: stdin, captured stdout and stderr, every file and
  // symlink target. At most 2^30.
  std::uint32_t storage_size = 65536;
  // Inodes: files, directories, symlinks and the four reserved ones (stdin, stdout, stderr,
  // root). Also the number of names (directory entries), hard links included.
  std::uint32_t max_files = 32;
  std::uint32_t max_fds = 64;  // descriptors, 0..3 included
  WasiSeed seed = kWasiDefaultSeed;
  std::uint64_t clock_epoch_ns = 0;       // the virtual clock's start (and every initial timestamp)
  std::uint64_t clock_resolution_ns = 1;  // clock_res_get; the clock's step per instruction
  std::string preopen = ".";              // the name the root is preopened under at fd 3
  bool preopen_root = true;               // false: no directory is preopened (fd 3 is free)
};

// The region image of one instance before it runs (instance index 0). Throws
// runtime::InvalidArgument naming the field for a configuration it cannot represent.
[[nodiscard]] runtime::ZeroedWords build_wasi_region(const WasiConfig& config);

// Sets the instance index (the ChaCha20 nonce) in a copy of the image.
void set_wasi_instance(std::span<std::uint32_t> region, std::uint32_t instance);

// Adds the regular file `path` (as WasiConfig::files names them) holding `content` to an
// instance's region, creating the directories above it, as the configuration's files are added
// (every time stamp the configured epoch). Throws runtime::InvalidArgument naming "path" for a
// bad or existing path or "max_files" when no inode is left, ResourceLimit naming storage_size
// when the content does not fit; the region may then be half-changed, so callers work on a copy.
void add_wasi_file(std::vector<std::uint32_t>& region, std::string_view path, std::string_view content);

}  // namespace wavestack::wasm
