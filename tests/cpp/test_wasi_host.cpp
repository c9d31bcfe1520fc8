// The host side of WASI: the configuration's checks, the initial region (layout, implied
// directories, reserved descriptors), the inspection API, and the table of the 46 imports.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <tuple>

#include "runtime/error.hpp"
#include "wasi_test_harness.hpp"
#include "wasm/module/resource_limit.hpp"
#include "wasm/wasi/wasi_inspect.hpp"
#include "wasm/wasi/wasi_signatures.hpp"

namespace wavestack::wasi_test {
namespace {

using wasm::WasiConfig;

// The argument a bad configuration names: an InvalidArgument's, or "limit:" and the field a
// ResourceLimit's message starts with (a quota beyond one instance, content beyond the storage).
std::string invalid_field(const WasiConfig& config) {
  try {
    (void)wasm::build_wasi_region(config);
  } catch (const runtime::InvalidArgument& e) {
    return e.argument();
  } catch (const wasm::ResourceLimit& e) {
    const std::string what = e.what();
    return "limit:" + what.substr(0, what.find(':'));
  }
  return "";
}

TEST(WasiHost, ConfigurationErrorsNameTheField) {
  WasiConfig c;
  c.args = {std::string("a\0b", 3)};
  EXPECT_EQ(invalid_field(c), "args");
  c = {};
  c.env = {"NOEQUALS"};
  EXPECT_EQ(invalid_field(c), "env");
  c = {};
  c.max_files = 3;
  EXPECT_EQ(invalid_field(c), "max_files");
  c = {};
  c.max_fds = 3;
  EXPECT_EQ(invalid_field(c), "max_fds");
  c = {};
  c.seed = 0u;
  EXPECT_EQ(invalid_field(c), "seed");
  c = {};
  c.clock_resolution_ns = 0;
  EXPECT_EQ(invalid_field(c), "clock_resolution_ns");
  c = {};
  c.preopen = "";
  EXPECT_EQ(invalid_field(c), "preopen");
  c = {};
  c.storage_size = 10;
  c.stdin_bytes = std::string(11, 'x');
  EXPECT_EQ(invalid_field(c), "limit:storage_size");
  c = {};
  c.storage_size = (1u << 30) + 1;
  EXPECT_EQ(invalid_field(c), "limit:storage_size");
  c = {};
  c.max_files = (1u << 20) + 1;
  EXPECT_EQ(invalid_field(c), "limit:max_files");
  c = {};
  c.max_fds = (1u << 20) + 1;
  EXPECT_EQ(invalid_field(c), "limit:max_fds");
  for (const char* bad : {"", "/abs", "a//b", "a/", "./a", "a/../b", "bad\xff"}) {
    c = {};
    c.files = {{bad, "x"}};
    EXPECT_EQ(invalid_field(c), "files") << bad;
  }
  c = {};
  c.files = {{"a", "1"}, {"a/b", "2"}};  // "a" cannot be a file and a directory
  EXPECT_EQ(invalid_field(c), "files");
  c = {};
  c.files = {{"a", "1"}, {"a", "2"}};
  EXPECT_EQ(invalid_field(c), "files");
  c = {};
  c.max_files = 6;  // 4 reserved + "d" + "d/f": fits; one more does not
  c.files = {{"d/f", "1"}};
  EXPECT_EQ(invalid_field(c), "");
  c.files.emplace_back("d/g", "2");
  EXPECT_EQ(invalid_field(c), "max_files");
}

// The region says how far its builder wrote: every word from zero_from() on is zero (a spawn
// copies and scans only the words before it), and the bound is near the files' last block, not
// the end of the storage.
TEST(WasiHost, RegionIsZeroFromWhereItsBuilderStopped) {
  WasiConfig config;
  config.files = {{"a/b.bin", std::string(10'000, '\x5a')}, {"c.txt", "tail"}};
  config.stdin_bytes = "in";
  config.storage_size = 1 << 20;
  config.max_files = 16;
  const runtime::ZeroedWords region = wasm::build_wasi_region(config);
  const std::vector<std::uint32_t> words = region.to_vector();
  ASSERT_EQ(words.size(), region.size());
  const auto last_nonzero = std::find_if(words.rbegin(), words.rend(), [](std::uint32_t w) { return w != 0; });
  ASSERT_NE(last_nonzero, words.rend());
  const auto written = static_cast<std::size_t>(words.rend() - last_nonzero);  // one past the last nonzero word
  EXPECT_LE(written, region.zero_from());
  const std::size_t block_store = region[dev::WASI_H_BLOCKS];
  EXPECT_GT(region.zero_from(), block_store);                   // the files' content lies in the block store
  EXPECT_LE(region.zero_from(), block_store + 2 * 10'100 / 4);  // content and index blocks, with room
  EXPECT_LT(region.zero_from(), region.size() / 2);
}

TEST(WasiHost, InitialRegion) {
  WasiConfig config;
  config.files = {{"data/input.txt", "1.25\n2.5\n"}, {"data/sub/deep.bin", std::string(5000, '\x7f')}, {"top", ""}};
  config.stdin_bytes = "in";
  config.storage_size = 10'000;
  config.max_files = 10;
  config.max_fds = 8;
  Guest g(config);
  const auto& r = g.region;
  // The image is the same every time; instances differ only in their index.
  EXPECT_EQ(wasm::build_wasi_region(config).to_vector(), r);
  std::vector<std::uint32_t> copy = r;
  wasm::set_wasi_instance(copy, 5);
  EXPECT_EQ(copy[dev::WASI_H_INSTANCE], 5u);
  EXPECT_EQ(r[dev::WASI_H_MAGIC], dev::WASI_MAGIC);
  EXPECT_EQ(r[dev::WASI_H_WORDS], r.size());
  EXPECT_EQ(r[dev::WASI_H_LAYOUT], dev::WASI_LAYOUT_VERSION);
  EXPECT_EQ(r[dev::WASI_H_INODES_USED], 4u + 5u);  // data, input.txt, sub, deep.bin, top
  EXPECT_EQ(r[dev::WASI_H_DENTS_USED], 5u);
  EXPECT_EQ(r[dev::WASI_H_USED], 2u + 9u + 5000u);
  EXPECT_EQ(r[dev::WASI_H_FD_COUNT], 8u);
  // The block count covers the worst case the quota allows (wasi_layout.glsl's formula).
  const std::uint64_t d = (10'000 + 63) / 64 + 10;
  EXPECT_EQ(r[dev::WASI_H_BLOCK_COUNT], 1 + d + (d + 14) / 15 + 7 * 10);
  EXPECT_EQ(r[dev::WASI_H_BLOCKS_USED],
            dev::wasi_tree_blocks(2) + dev::wasi_tree_blocks(9) + dev::wasi_tree_blocks(5000));
  // Reserved descriptors.
  const wasm::WasiUsage usage = wasm::wasi_usage(r);
  EXPECT_EQ(usage.open_fds, 4u);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(0, kOut), 0u);
  EXPECT_EQ(g.u64(kOut + 8), dev::WASI_RIGHTS_STDIN);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(3, kOut), 0u);
  EXPECT_EQ(g.u8(kOut), dev::WASI_FILETYPE_DIRECTORY);
  // Files and implied directories are there, with their bytes.
  EXPECT_EQ(wasm::wasi_read_file(r, "data/input.txt").bytes, "1.25\n2.5\n");
  EXPECT_EQ(wasm::wasi_read_file(r, "data/sub/deep.bin").bytes, std::string(5000, '\x7f'));
  EXPECT_EQ(wasm::wasi_read_file(r, "top").status, wasm::WasiFileStatus::kFound);
  EXPECT_EQ(wasm::wasi_read_file(r, "data/sub").status, wasm::WasiFileStatus::kIsDirectory);
  EXPECT_EQ(wasm::wasi_read_file(r, "").status, wasm::WasiFileStatus::kIsDirectory);
  EXPECT_EQ(wasm::wasi_read_file(r, "./data//input.txt").bytes, "1.25\n2.5\n");
  EXPECT_EQ(wasm::wasi_read_file(r, "data/none").status, wasm::WasiFileStatus::kNotFound);
  EXPECT_EQ(wasm::wasi_read_file(r, "top/x").status, wasm::WasiFileStatus::kNotFound);
  EXPECT_THROW((void)wasm::wasi_read_file(r, "/data"), runtime::InvalidArgument);
  EXPECT_THROW((void)wasm::wasi_read_file(r, "data/../top"), runtime::InvalidArgument);
  EXPECT_EQ(wasm::wasi_stream_bytes(r, wasm::WasiStream::kStdin), "in");
  EXPECT_EQ(wasm::wasi_stream_bytes(r, wasm::WasiStream::kStdout), "");
  // The guest sees the same tree.
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("data/input.txt", 0);
  ASSERT_EQ(e, 0u);
  EXPECT_EQ(g.read(fd, 100).second, "1.25\n2.5\n");
  EXPECT_THROW((void)wasm::wasi_stream_bytes(std::vector<std::uint32_t>(10, 0u), wasm::WasiStream::kStdout),
               runtime::InvalidArgument);
}

TEST(WasiHost, SignatureTable) {
  const auto table = wasm::wasi_signatures();
  ASSERT_EQ(table.size(), 46u);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i].id, i);
    names.insert(table[i].name);
    EXPECT_EQ(wasm::find_wasi_signature(table[i].name), &table[i]);
  }
  EXPECT_EQ(names.size(), 46u);
  EXPECT_EQ(wasm::find_wasi_signature("fd_nope"), nullptr);
  // Spot checks against the witx definitions (core wasm lowering).
  using wasm::ValType;
  const auto type = [](std::string_view name) { return wasm::wasi_func_type(*wasm::find_wasi_signature(name)); };
  EXPECT_EQ(type("path_open").params,
            (std::vector<ValType>{ValType::kI32, ValType::kI32, ValType::kI32, ValType::kI32, ValType::kI32,
                                  ValType::kI64, ValType::kI64, ValType::kI32, ValType::kI32}));
  EXPECT_EQ(type("path_open").results, (std::vector<ValType>{ValType::kI32}));
  EXPECT_EQ(type("proc_exit").results, std::vector<ValType>{});
  EXPECT_EQ(type("sched_yield").params, std::vector<ValType>{});
  EXPECT_EQ(type("fd_seek").params, (std::vector<ValType>{ValType::kI32, ValType::kI64, ValType::kI32, ValType::kI32}));
  EXPECT_EQ(type("clock_time_get").params, (std::vector<ValType>{ValType::kI32, ValType::kI64, ValType::kI32}));
  EXPECT_EQ(type("fd_filestat_set_times").params,
            (std::vector<ValType>{ValType::kI32, ValType::kI64, ValType::kI64, ValType::kI32}));
  EXPECT_EQ(type("sock_recv").params.size(), 6u);
  // wasi_path_op's operation numbers are the path calls' ids minus WASI_PATH_OP_BASE_ID.
  const std::array<std::pair<std::string_view, uint>, dev::WASI_PATH_OPS> path_ops = {{
      {"path_create_directory", dev::WASI_PATH_OP_CREATE_DIRECTORY},
      {"path_filestat_get", dev::WASI_PATH_OP_FILESTAT_GET},
      {"path_filestat_set_times", dev::WASI_PATH_OP_FILESTAT_SET_TIMES},
      {"path_link", dev::WASI_PATH_OP_LINK},
      {"path_open", dev::WASI_PATH_OP_OPEN},
      {"path_readlink", dev::WASI_PATH_OP_READLINK},
      {"path_remove_directory", dev::WASI_PATH_OP_REMOVE_DIRECTORY},
      {"path_rename", dev::WASI_PATH_OP_RENAME},
      {"path_symlink", dev::WASI_PATH_OP_SYMLINK},
      {"path_unlink_file", dev::WASI_PATH_OP_UNLINK_FILE},
  }};
  for (const auto& [name, op] : path_ops) {
    EXPECT_EQ(wasm::find_wasi_signature(name)->id - dev::WASI_PATH_OP_BASE_ID, op) << name;
  }
  for (const wasm::WasiSignature& s : table) {
    for (ValType t : type(s.name).params) EXPECT_TRUE(t == ValType::kI32 || t == ValType::kI64);
    EXPECT_EQ(s.advances_clock, s.name == "poll_oneoff");
  }
}

}  // namespace
}  // namespace wavestack::wasi_test
