// Test harness of the device WASI library: the .glsl files compiled as C++ (as the cpu device
// will), over one instance's region and guest memory held in std::vectors. The accessors
// bounds-check every word (std::vector::at), so a stray access fails the test, and count their
// calls: a proxy for the loop work one invocation does.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wasm/device/numerics.hpp"
#include "wasm/wasi/wasi_config.hpp"

namespace wavestack::wasm::device {
namespace {

struct WasiTestBuffers {
  std::vector<std::uint32_t>* region = nullptr;
  std::vector<std::uint32_t>* memory = nullptr;
  std::uint64_t accesses = 0;
};

thread_local WasiTestBuffers wasi_test_buffers;

uint wasi_get(uint w) {
  ++wasi_test_buffers.accesses;
  return wasi_test_buffers.region->at(w);
}
void wasi_set(uint w, uint v) {
  ++wasi_test_buffers.accesses;
  wasi_test_buffers.region->at(w) = v;
}
// The byte helpers the integrator takes from instance_memory.glsl, defined here over the
// test's memory (the library itself never defines them).
uint memory_size_bytes() {
  return static_cast<uint>(wasi_test_buffers.memory->size() * 4);
}
uint memory_byte(uint addr) {
  ++wasi_test_buffers.accesses;
  return (wasi_test_buffers.memory->at(addr >> 2u) >> ((addr & 3u) * 8u)) & 0xFFu;
}
void memory_set_byte(uint addr, uint value) {
  ++wasi_test_buffers.accesses;
  uint& word = wasi_test_buffers.memory->at(addr >> 2u);
  const uint shift = (addr & 3u) * 8u;
  word = (word & ~(0xFFu << shift)) | ((value & 0xFFu) << shift);
}

#include "wasm/device/wasi_library.hpp"

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasi_test {
namespace {

namespace dev = wasm::device;
using dev::uint;
using dev::uvec2;

inline uvec2 u64v(std::uint64_t v) {
  return {static_cast<uint>(v), static_cast<uint>(v >> 32)};
}

constexpr uint kAllRights = 0x0FFFFFFFu;  // everything the root may pass on
// Guest addresses the wrappers use: records below 4 KiB, paths, then data from 8 KiB up (so
// data of any size never overlaps the records).
constexpr uint kIovecs = 0x100;
constexpr uint kOut = 0xF00;  // results; kOut - 64 holds a filestat
constexpr uint kPathA = 0x1000;
constexpr uint kPathB = 0x1800;
constexpr uint kData = 0x2000;

// One instance: its region and memory, and wrappers that run calls to completion with a budget
// per invocation (so a test can run the same steps with budget 1, 7 or unlimited).
class Guest {
 public:
  explicit Guest(const wasm::WasiConfig& config, uint memory_bytes = 65536, uint budget_per_invocation = 0xFFFFFFFFu)
      : region(wasm::build_wasi_region(config).to_vector()),
        memory(memory_bytes / 4, 0u),
        budget(budget_per_invocation) {
    activate();
  }

  void activate() {
    dev::wasi_test_buffers.region = &region;
    dev::wasi_test_buffers.memory = &memory;
  }

  // Runs a resumable call until it returns something other than WASI_AGAIN.
  uint run(const std::function<uint(uint, uint&)>& call) {
    activate();
    uint progress = 0;
    for (std::uint64_t guard = 0; guard < 100'000'000; ++guard) {
      const std::uint64_t before = dev::wasi_test_buffers.accesses;
      const uint result = call(budget, progress);
      max_accesses = std::max(max_accesses, dev::wasi_test_buffers.accesses - before);
      ++invocations;
      if (result != dev::WASI_AGAIN) return result;
      EXPECT_NE(progress, 0u);
    }
    ADD_FAILURE() << "call never finished";
    return 0xFFFFFFFFu;
  }

  // ---- guest memory ----
  void put(uint addr, std::string_view bytes) {
    activate();
    for (std::size_t k = 0; k < bytes.size(); ++k) {
      dev::memory_set_byte(addr + static_cast<uint>(k), static_cast<unsigned char>(bytes[k]));
    }
  }
  std::string get(uint addr, uint n) {
    activate();
    std::string s(n, '\0');
    for (uint k = 0; k < n; ++k) s[k] = static_cast<char>(dev::memory_byte(addr + k));
    return s;
  }
  void put_u32(uint addr, uint v) {
    activate();
    dev::wasi_store_u32(addr, v);
  }
  uint u32(uint addr) {
    activate();
    return dev::wasi_load_u32(addr);
  }
  std::uint64_t u64(uint addr) {
    activate();
    const uvec2 v = dev::wasi_load_u64(addr);
    return v.x | (std::uint64_t{v.y} << 32);
  }
  uint u8(uint addr) {
    activate();
    return dev::memory_byte(addr);
  }
  // iovecs (buf, len) at kIovecs; returns their count.
  uint iovecs(const std::vector<std::pair<uint, uint>>& list) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      put_u32(kIovecs + 8 * static_cast<uint>(i), list[i].first);
      put_u32(kIovecs + 8 * static_cast<uint>(i) + 4, list[i].second);
    }
    return static_cast<uint>(list.size());
  }

  // ---- calls ----
  std::pair<uint, uint> open(std::string_view path, uint oflags = 0, uint rights = kAllRights, uint fdflags = 0,
                             uint dirfd = 3, uint lookup = 1, uint inheriting = kAllRights) {
    put(kPathA, path);
    const uint err = run([&](uint b, uint& p) {
      return dev::wasi_path_open(dirfd, lookup, kPathA, static_cast<uint>(path.size()), oflags, uvec2(rights, 0u),
                                 uvec2(inheriting, 0u), fdflags, kOut, now, b, p);
    });
    return {err, err == 0 ? u32(kOut) : 0xFFFFFFFFu};
  }
  uint create(std::string_view path, std::string_view content) {
    auto [err, fd] = open(path, dev::WASI_OFLAG_CREAT | dev::WASI_OFLAG_TRUNC);
    if (err != 0) return err;
    auto [werr, n] = write(fd, content);
    EXPECT_EQ(n, content.size());
    dev::wasi_fd_close(fd);
    return werr;
  }
  std::pair<uint, uint> write(uint fd, std::string_view bytes) {
    put(kData, bytes);
    const uint n = iovecs({{kData, static_cast<uint>(bytes.size())}});
    const uint err = run([&](uint b, uint& p) { return dev::wasi_fd_write(fd, kIovecs, n, kOut, now, b, p); });
    return {err, u32(kOut)};
  }
  std::pair<uint, uint> pwrite(uint fd, std::string_view bytes, std::uint64_t offset) {
    put(kData, bytes);
    const uint n = iovecs({{kData, static_cast<uint>(bytes.size())}});
    const uint err =
        run([&](uint b, uint& p) { return dev::wasi_fd_pwrite(fd, kIovecs, n, u64v(offset), kOut, now, b, p); });
    return {err, u32(kOut)};
  }
  std::pair<uint, std::string> read(uint fd, uint len) {
    const uint n = iovecs({{kData, len}});
    const uint err = run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, kIovecs, n, kOut, b, p); });
    return {err, err == 0 ? get(kData, u32(kOut)) : std::string()};
  }
  std::pair<uint, std::string> pread(uint fd, uint len, std::uint64_t offset) {
    const uint n = iovecs({{kData, len}});
    const uint err = run([&](uint b, uint& p) { return dev::wasi_fd_pread(fd, kIovecs, n, u64v(offset), kOut, b, p); });
    return {err, err == 0 ? get(kData, u32(kOut)) : std::string()};
  }
  std::pair<uint, std::uint64_t> seek(uint fd, std::int64_t offset, uint whence) {
    activate();
    const uint err = dev::wasi_fd_seek(fd, u64v(static_cast<std::uint64_t>(offset)), whence, kOut);
    return {err, err == 0 ? u64(kOut) : 0};
  }
  uint mkdir(std::string_view path, uint dirfd = 3) {
    put(kPathA, path);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_create_directory(dirfd, kPathA, static_cast<uint>(path.size()), now, b, p);
    });
  }
  uint rmdir(std::string_view path, uint dirfd = 3) {
    put(kPathA, path);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_remove_directory(dirfd, kPathA, static_cast<uint>(path.size()), now, b, p);
    });
  }
  uint unlink(std::string_view path, uint dirfd = 3) {
    put(kPathA, path);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_unlink_file(dirfd, kPathA, static_cast<uint>(path.size()), now, b, p);
    });
  }
  uint rename(std::string_view from, std::string_view to, uint fd = 3, uint new_fd = 3) {
    put(kPathA, from);
    put(kPathB, to);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_rename(fd, kPathA, static_cast<uint>(from.size()), new_fd, kPathB,
                                   static_cast<uint>(to.size()), now, b, p);
    });
  }
  uint link(std::string_view from, std::string_view to, uint follow = 0) {
    put(kPathA, from);
    put(kPathB, to);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_link(3, follow, kPathA, static_cast<uint>(from.size()), 3, kPathB,
                                 static_cast<uint>(to.size()), now, b, p);
    });
  }
  uint symlink(std::string_view target, std::string_view path) {
    put(kPathA, target);
    put(kPathB, path);
    return run([&](uint b, uint& p) {
      return dev::wasi_path_symlink(kPathA, static_cast<uint>(target.size()), 3, kPathB, static_cast<uint>(path.size()),
                                    now, b, p);
    });
  }
  std::pair<uint, std::string> readlink(std::string_view path, uint buf_len = 512) {
    put(kPathA, path);
    const uint err = run([&](uint b, uint& p) {
      return dev::wasi_path_readlink(3, kPathA, static_cast<uint>(path.size()), kData, buf_len, kOut, b, p);
    });
    return {err, err == 0 ? get(kData, u32(kOut)) : std::string()};
  }
  // filestat of path: errno and the 64 bytes.
  std::pair<uint, std::string> stat(std::string_view path, uint follow = 1, uint dirfd = 3) {
    put(kPathA, path);
    const uint err = run([&](uint b, uint& p) {
      return dev::wasi_path_filestat_get(dirfd, follow, kPathA, static_cast<uint>(path.size()), kOut - 64, b, p);
    });
    return {err, err == 0 ? get(kOut - 64, 64) : std::string()};
  }
  std::pair<uint, std::string> fstat(uint fd) {
    activate();
    const uint err = dev::wasi_fd_filestat_get(fd, kOut - 64);
    return {err, err == 0 ? get(kOut - 64, 64) : std::string()};
  }
  // readdir into kData with buf_len from cookie: errno, bufused.
  std::pair<uint, uint> readdir(uint fd, uint buf_len, std::uint64_t cookie) {
    const uint err =
        run([&](uint b, uint& p) { return dev::wasi_fd_readdir(fd, kData, buf_len, u64v(cookie), kOut, b, p); });
    return {err, u32(kOut)};
  }
  uint close(uint fd) {
    activate();
    return dev::wasi_fd_close(fd);
  }

  std::vector<std::uint32_t> region;
  std::vector<std::uint32_t> memory;
  uint budget;
  uvec2 now{1000u, 0u};
  std::uint64_t invocations = 0;
  std::uint64_t max_accesses = 0;
};

// Little-endian fields of a filestat record.
inline std::uint64_t field64(const std::string& rec, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t k = 0; k < 8; ++k) v |= std::uint64_t{static_cast<unsigned char>(rec[at + k])} << (8 * k);
  return v;
}

struct Dirent {
  std::uint64_t next;
  std::uint64_t ino;
  uint type;
  std::string name;
};

// Parses whole entries of a readdir buffer.
inline std::vector<Dirent> parse_dirents(const std::string& buf) {
  std::vector<Dirent> out;
  std::size_t at = 0;
  while (at + 24 <= buf.size()) {
    Dirent d;
    d.next = field64(buf, at);
    d.ino = field64(buf, at + 8);
    const auto namelen = static_cast<std::size_t>(field64(buf, at + 16) & 0xFFFFFFFFu);
    d.type = static_cast<unsigned char>(buf[at + 20]);
    if (at + 24 + namelen > buf.size()) break;
    d.name = buf.substr(at + 24, namelen);
    out.push_back(d);
    at += 24 + namelen;
  }
  return out;
}

}  // namespace
}  // namespace wavestack::wasi_test
