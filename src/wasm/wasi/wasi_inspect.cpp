#include "wasm/wasi/wasi_inspect.hpp"

#include <array>
#include <stdexcept>
#include <vector>

#include "runtime/error.hpp"
#include "wasm/device/numerics.hpp"

namespace wavestack::wasm::device {
namespace {

// The region being read, plus a small writable overlay over the start of path buffer A where
// a looked-up name is staged (the device lookups compare against region bytes); the region
// itself is never written.
struct InspectView {
  std::span<const std::uint32_t> region;
  std::uint32_t overlay_base = 0;
  std::array<std::uint32_t, 64> overlay{};
};

thread_local InspectView* view = nullptr;

bool in_overlay(uint w) {
  return w >= view->overlay_base && w - view->overlay_base < view->overlay.size();
}

uint wasi_get(uint w) {
  if (in_overlay(w)) return view->overlay[w - view->overlay_base];
  if (w >= view->region.size()) throw std::out_of_range("WASI region: word " + std::to_string(w) + " is outside it");
  return view->region[w];
}
void wasi_set(uint w, uint v) {
  if (!in_overlay(w)) throw std::logic_error("WASI inspection must not write the region");
  view->overlay[w - view->overlay_base] = v;
}

#define WAVESTACK_WASI_FS_ONLY
#include "wasm/device/wasi_library.hpp"
#undef WAVESTACK_WASI_FS_ONLY

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasm {
namespace {

namespace dev = device;

// Installs the view for one inspection call.
class ScopedView {
 public:
  explicit ScopedView(std::span<const std::uint32_t> region) {
    if (region.size() < dev::WASI_HEADER_WORDS || region[dev::WASI_H_MAGIC] != dev::WASI_MAGIC ||
        region[dev::WASI_H_WORDS] != region.size()) {
      throw runtime::InvalidArgument("region", "is not a WASI region");
    }
    view_.region = region;
    view_.overlay_base = region[dev::WASI_H_PATH_A];
    dev::view = &view_;
  }
  ~ScopedView() { dev::view = nullptr; }
  ScopedView(const ScopedView&) = delete;
  ScopedView& operator=(const ScopedView&) = delete;

 private:
  dev::InspectView view_;
};

std::string content_of(dev::uint i) {
  const dev::uint size = dev::wasi_iget(i, dev::WASI_I_SIZE);
  std::string bytes(size, '\0');
  for (dev::uint pos = 0; pos < size; ++pos) bytes[pos] = static_cast<char>(dev::wasi_content_byte(i, pos));
  return bytes;
}

}  // namespace

std::string wasi_stream_bytes(std::span<const std::uint32_t> region, WasiStream stream) {
  const ScopedView scope(region);
  return content_of(static_cast<dev::uint>(stream));
}

WasiFile wasi_read_file(std::span<const std::uint32_t> region, std::string_view path) {
  if (!path.empty() && path.front() == '/') throw runtime::InvalidArgument("path", "must be relative to the root");
  const ScopedView scope(region);
  const dev::uint base = dev::wasi_path_base(0u);
  WasiFile result;
  dev::uint dir = dev::WASI_INODE_ROOT;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view name = path.substr(start, end - start);
    const bool last = path.find_first_not_of('/', end) == std::string_view::npos;
    start = end + 1;
    if (name == "..") throw runtime::InvalidArgument("path", "must not contain \"..\"");
    if (name.empty() || name == ".") {
      if (last) break;
      continue;
    }
    if (name.size() > dev::WASI_NAME_MAX) return result;
    for (std::size_t k = 0; k < name.size(); ++k) {
      dev::wasi_region_set_byte(base, static_cast<dev::uint>(k), static_cast<unsigned char>(name[k]));
    }
    const auto len = static_cast<dev::uint>(name.size());
    const dev::uint d = dev::wasi_dir_lookup(dir, base, 0u, len, dev::wasi_name_hash(dir, base, 0u, len));
    if (d == dev::WASI_NONE) return result;
    const dev::uint child = dev::wasi_dget(d, dev::WASI_D_INODE);
    const dev::uint kind = dev::wasi_ikind(child);
    if (last) {
      if (kind == dev::WASI_KIND_FILE) {
        result.status = WasiFileStatus::kFound;
        result.bytes = content_of(child);
      } else if (kind == dev::WASI_KIND_DIR) {
        result.status = WasiFileStatus::kIsDirectory;
      }
      return result;
    }
    if (kind != dev::WASI_KIND_DIR) return result;
    dir = child;
  }
  result.status = WasiFileStatus::kIsDirectory;  // "", "." or "d/": a directory
  return result;
}

WasiExit wasi_exit_status(std::span<const std::uint32_t> region) {
  const ScopedView scope(region);
  WasiExit exit;
  const dev::uint state = dev::wasi_get(dev::WASI_H_EXIT_STATE);
  if (state == dev::WASI_EXIT_EXITED) exit.kind = WasiExitKind::kExited;
  if (state == dev::WASI_EXIT_SIGNALLED) exit.kind = WasiExitKind::kSignalled;
  exit.value = state == dev::WASI_EXIT_RUNNING ? 0u : dev::wasi_get(dev::WASI_H_EXIT_CODE);
  return exit;
}

WasiUsage wasi_usage(std::span<const std::uint32_t> region) {
  const ScopedView scope(region);
  WasiUsage usage;
  usage.content_bytes = dev::wasi_get(dev::WASI_H_USED);
  usage.blocks = dev::wasi_get(dev::WASI_H_BLOCKS_USED);
  usage.inodes = dev::wasi_get(dev::WASI_H_INODES_USED);
  usage.names = dev::wasi_get(dev::WASI_H_DENTS_USED);
  for (dev::uint fd = 0; fd < dev::wasi_get(dev::WASI_H_FD_COUNT); ++fd) {
    if (dev::wasi_fd_valid(fd)) ++usage.open_fds;
  }
  return usage;
}

}  // namespace wavestack::wasm
