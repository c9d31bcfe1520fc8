// Reading a WASI region back on the host (after it was downloaded from the device): captured
// streams, files by path, the exit status. Read-only; the device library's own lookups are
// used, so paths resolve exactly as the guest's would (except that symlinks are not followed:
// these read a regular file's stored path).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wavestack::wasm {

enum class WasiStream : std::uint8_t { kStdin = 0, kStdout = 1, kStderr = 2 };

// All bytes of a stream: stdin as configured, stdout / stderr as captured.
[[nodiscard]] std::string wasi_stream_bytes(std::span<const std::uint32_t> region, WasiStream stream);

enum class WasiFileStatus : std::uint8_t {
  kFound,
  kNotFound,     // no such name, a symlink on the way or at the end, or a file on the way
  kIsDirectory,  // the path names a directory
};

struct WasiFile {
  WasiFileStatus status = WasiFileStatus::kNotFound;
  std::string bytes;  // the content when found
};

// The regular file at `path` ('/'-separated, relative to the root; empty and "." components
// are skipped). Throws runtime::InvalidArgument for an absolute path or a ".." component.
[[nodiscard]] WasiFile wasi_read_file(std::span<const std::uint32_t> region, std::string_view path);

enum class WasiExitKind : std::uint8_t { kRunning, kExited, kSignalled };

struct WasiExit {
  WasiExitKind kind = WasiExitKind::kRunning;
  std::uint32_t value = 0;  // proc_exit's code or proc_raise's signal
};

[[nodiscard]] WasiExit wasi_exit_status(std::span<const std::uint32_t> region);

// Region checks for the tests and the integrator: storage in use (content bytes), blocks in
// content trees, inodes and names in use.
struct WasiUsage {
  std::uint32_t content_bytes = 0;
  std::uint32_t blocks = 0;
  std::uint32_t inodes = 0;
  std::uint32_t names = 0;
  std::uint32_t open_fds = 0;
};

[[nodiscard]] WasiUsage wasi_usage(std::span<const std::uint32_t> region);

}  // namespace wavestack::wasm
