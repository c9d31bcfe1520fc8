#include "wasm/wasi/wasi_listing.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "wasm/device/numerics.hpp"

namespace wavestack::wasm::device {
namespace {

// The region being listed; the listing only reads it.
thread_local std::span<const std::uint32_t> listed;

uint wasi_get(uint w) {
  if (w >= listed.size()) throw std::out_of_range("WASI region: word " + std::to_string(w) + " is outside it");
  return listed[w];
}
void wasi_set(uint /*w*/, uint /*v*/) {
  throw std::logic_error("listing a WASI region must not write it");
}

#define WAVESTACK_WASI_FS_ONLY
#include "wasm/device/wasi_library.hpp"
#undef WAVESTACK_WASI_FS_ONLY

// The path of directory entry d from the root (names joined by '/'); empty when it is not
// reachable from the root. Bounded by max_files steps (a directory is never its own ancestor).
std::string entry_path(uint d) {
  std::string path;
  const uint limit = wasi_get(WASI_H_DENT_COUNT);
  for (uint step = 0; step <= limit; ++step) {
    std::string name;
    const uint length = wasi_dget(d, WASI_D_NAMELEN);
    for (uint k = 0; k < length; ++k) name += static_cast<char>(wasi_dent_name_byte(d, k));
    path = path.empty() ? name : name + "/" + path;
    const uint parent = wasi_dget(d, WASI_D_PARENT);
    if (parent == WASI_INODE_ROOT) return path;
    if (parent == WASI_NONE || wasi_ikind(parent) != WASI_KIND_DIR) return {};
    d = wasi_iget(parent, WASI_I_DENT);
    if (d == WASI_NONE) return {};
  }
  return {};
}

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasm {

std::map<std::string, std::string> wasi_list_files(std::span<const std::uint32_t> region) {
  namespace dev = device;
  dev::listed = region;
  std::map<std::string, std::string> files;
  const dev::uint count = dev::wasi_get(dev::WASI_H_DENT_COUNT);
  for (dev::uint d = 0; d < count; ++d) {
    if (dev::wasi_dget(d, dev::WASI_D_PARENT) == dev::WASI_NONE) continue;
    const dev::uint inode = dev::wasi_dget(d, dev::WASI_D_INODE);
    if (dev::wasi_ikind(inode) != dev::WASI_KIND_FILE) continue;
    std::string path = dev::entry_path(d);
    if (path.empty()) continue;
    const dev::uint size = dev::wasi_iget(inode, dev::WASI_I_SIZE);
    std::string bytes(size, '\0');
    // Block by block: finding a block walks the file's tree, once per 64 bytes rather than per
    // byte (CPython's 645 library files took 0.26 s byte by byte).
    for (dev::uint pos = 0; pos < size; pos += dev::WASI_BLOCK_BYTES) {
      const dev::uint base = dev::wasi_block_addr(dev::wasi_content_block(inode, pos));
      const dev::uint end = std::min(size, pos + dev::WASI_BLOCK_BYTES);
      for (dev::uint k = pos; k < end; k += 4) {
        const dev::uint word = dev::wasi_get(base + (k - pos) / 4);
        for (dev::uint b = 0; b < 4 && k + b < end; ++b) bytes[k + b] = static_cast<char>((word >> (8 * b)) & 0xFFu);
      }
    }
    files.emplace(std::move(path), std::move(bytes));
  }
  dev::listed = {};
  return files;
}

}  // namespace wavestack::wasm
