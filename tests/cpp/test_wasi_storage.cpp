// Block storage under random load: files written, overwritten, extended, truncated, deleted and
// recreated at random sizes and offsets (with random budgets per invocation), compared after
// every step with a std::string model of each file; and the allocator's invariants: every
// block is either in exactly one content tree or reachable from the free list (counting the
// lazily reclaimed subtrees), and the blocks in use match the canonical tree of every size.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "wasi_test_harness.hpp"
#include "wasm/wasi/wasi_inspect.hpp"

namespace wavestack::wasi_test {
namespace {

// Blocks of the subtree rooted at block b of `level` (0 = a data block), each recorded once.
void collect(const Guest& g, uint b, uint level, std::set<uint>& seen, bool& duplicate) {
  if (!seen.insert(b).second) duplicate = true;
  if (level == 0) return;
  const uint base = g.region[dev::WASI_H_BLOCKS] + b * dev::WASI_BLOCK_WORDS;
  for (uint k = 0; k < dev::WASI_BLOCK_FANOUT; ++k) {
    const uint child = g.region[base + k];
    if (child != 0) collect(g, child, level - 1, seen, duplicate);
  }
}

// Checks that trees and the free list partition blocks 1..count-1.
void check_blocks(const Guest& g) {
  const auto& r = g.region;
  std::set<uint> used;
  std::set<uint> free;
  bool duplicate = false;
  std::uint64_t canonical = 0;
  for (uint i = 0; i < r[dev::WASI_H_INODE_COUNT]; ++i) {
    const uint at = r[dev::WASI_H_INODES] + i * dev::WASI_I_WORDS;
    if (r[at + dev::WASI_I_KIND] == dev::WASI_KIND_FREE) continue;
    canonical += dev::wasi_tree_blocks(r[at + dev::WASI_I_SIZE]);
    if (r[at + dev::WASI_I_ROOT] != 0)
      collect(g, r[at + dev::WASI_I_ROOT], r[at + dev::WASI_I_HEIGHT], used, duplicate);
  }
  for (uint b = r[dev::WASI_H_FREE_HEAD], guard = 0; b != 0 && guard < r[dev::WASI_H_BLOCK_COUNT]; ++guard) {
    const uint link = r[r[dev::WASI_H_BLOCK_LINKS] + b];
    collect(g, b, link >> dev::WASI_LINK_LEVEL_SHIFT, free, duplicate);
    b = link & dev::WASI_LINK_NEXT_MASK;
  }
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(used.size(), canonical);
  EXPECT_EQ(used.size(), r[dev::WASI_H_BLOCKS_USED]);
  EXPECT_EQ(used.size() + free.size(), r[dev::WASI_H_BLOCK_COUNT] - 1);
  for (uint b : used) EXPECT_EQ(free.count(b), 0u);
  EXPECT_EQ(used.count(0), 0u);
  EXPECT_EQ(free.count(0), 0u);
}

TEST(WasiStorage, RandomFileOperationsMatchAModel) {
  wasm::WasiConfig config;
  config.storage_size = 200'000;
  config.max_files = 16;
  Guest g(config, 1 << 20);
  std::mt19937 rng(12345);
  auto pick = [&](uint n) { return static_cast<uint>(rng() % n); };
  std::map<std::string, std::string> model;
  std::uint64_t used = 0;
  const std::vector<std::string> names = {"a", "b", "c", "dir_one", "e"};
  for (int step = 0; step < 1500; ++step) {
    g.budget = pick(4) == 0 ? 0xFFFFFFFFu : 1 + pick(200);
    const std::string& name = names[pick(static_cast<uint>(names.size()))];
    const bool exists = model.count(name) != 0;
    const uint op = pick(10);
    SCOPED_TRACE(::testing::Message() << "step " << step << " op " << op << " " << name);
    if (op <= 3) {  // pwrite at a random offset (often past the end), random length
      uint fd = 0;
      uint err = 0;
      std::tie(err, fd) = g.open(name, dev::WASI_OFLAG_CREAT);
      ASSERT_EQ(err, 0u);
      std::string& file = model[name];
      const uint offset = pick(4) == 0 ? pick(70'000) : pick(static_cast<uint>(file.size()) + 1);
      const uint len = pick(3) == 0 ? pick(20'000) : pick(300);
      const std::string data(len, static_cast<char>('A' + pick(26)));
      const std::uint64_t grown = std::max<std::uint64_t>(file.size(), std::uint64_t{offset} + len);
      const bool fits = len == 0 || used - file.size() + grown <= config.storage_size;
      const auto [werr, n] = g.pwrite(fd, data, offset);
      if (fits) {
        ASSERT_EQ(werr, 0u);
        ASSERT_EQ(n, len);
        if (len > 0) {
          if (file.size() < offset + len) file.resize(offset + len, '\0');
          file.replace(offset, len, data);
        }
      } else {
        ASSERT_EQ(werr, dev::WASI_ERRNO_NOSPC);
      }
      g.close(fd);
    } else if (op <= 5 && exists) {  // set_size to a random size
      uint fd = 0;
      uint err = 0;
      std::tie(err, fd) = g.open(name, 0);
      ASSERT_EQ(err, 0u);
      std::string& file = model[name];
      const uint size = pick(3) == 0 ? pick(40'000) : pick(static_cast<uint>(file.size()) + 200);
      const bool fits = size <= file.size() || used - file.size() + size <= config.storage_size;
      const uint r =
          g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(size), g.now, b, p); });
      if (fits) {
        ASSERT_EQ(r, 0u);
        file.resize(size, '\0');
      } else {
        ASSERT_EQ(r, dev::WASI_ERRNO_NOSPC);
      }
      g.close(fd);
    } else if (op == 6 && exists) {  // read a random range
      uint fd = 0;
      uint err = 0;
      std::tie(err, fd) = g.open(name, 0);
      ASSERT_EQ(err, 0u);
      const std::string& file = model[name];
      const uint at = pick(static_cast<uint>(file.size()) + 10);
      const uint len = pick(5000);
      const auto [rerr, got] = g.pread(fd, len, at);
      ASSERT_EQ(rerr, 0u);
      ASSERT_EQ(got, at >= file.size() ? std::string() : file.substr(at, len));
      g.close(fd);
    } else if (op == 7 && exists) {
      ASSERT_EQ(g.unlink(name), 0u);
      model.erase(name);
    } else if (op == 8 && exists) {  // truncate through path_open
      ASSERT_EQ(g.open(name, dev::WASI_OFLAG_TRUNC).first, 0u);
      g.close(g.u32(kOut));
      model[name].clear();
    } else if (op == 9 && exists) {  // rename onto another name (replacing it)
      const std::string& to = names[pick(static_cast<uint>(names.size()))];
      ASSERT_EQ(g.rename(name, to), 0u);
      if (to != name) {
        model[to] = model[name];
        model.erase(name);
      }
    }
    used = 0;
    for (const auto& [n, content] : model) used += content.size();
    ASSERT_EQ(wasm::wasi_usage(g.region).content_bytes, used);
    if (step % 50 == 0) check_blocks(g);
  }
  for (const auto& [name, content] : model) EXPECT_EQ(wasm::wasi_read_file(g.region, name).bytes, content) << name;
  check_blocks(g);
  // Everything deleted: all storage is back and can be used in full again.
  for (const auto& [name, content] : model) ASSERT_EQ(g.unlink(name), 0u);
  EXPECT_EQ(wasm::wasi_usage(g.region).blocks, 0u);
  check_blocks(g);
  ASSERT_EQ(g.create("whole", std::string(config.storage_size, 'w')), 0u);
  check_blocks(g);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "whole").bytes, std::string(config.storage_size, 'w'));
}

TEST(WasiStorage, WorstCaseLayoutNeverRunsOutOfBlocks) {
  // max_files - 4 files of 65 bytes each (two blocks, the second nearly empty) plus one file
  // with the rest of the quota: every byte of the quota is usable.
  wasm::WasiConfig config;
  config.storage_size = 64 * 1024;
  config.max_files = 40;
  Guest g(config, 1 << 20);
  std::uint64_t used = 0;
  for (int k = 0; k < 35; ++k) {
    ASSERT_EQ(g.create(std::string("f").append(std::to_string(k)), std::string(65, 'x')), 0u);
    used += 65;
  }
  const std::string rest(config.storage_size - used, 'r');
  ASSERT_EQ(g.create("rest", rest), 0u);
  EXPECT_EQ(wasm::wasi_usage(g.region).content_bytes, config.storage_size);
  check_blocks(g);
  uint fd = 0;
  uint err = 0;
  std::tie(err, fd) = g.open("f0", 0);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g.pwrite(fd, "x", 65).first, dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(g.open("more", dev::WASI_OFLAG_CREAT).first, dev::WASI_ERRNO_NFILE);  // 40 inodes
  EXPECT_EQ(wasm::wasi_read_file(g.region, "rest").bytes, rest);
}

}  // namespace
}  // namespace wavestack::wasi_test
