// Resumable calls: the same sequence of calls run with a budget of 1, 7 and unlimited work
// units per invocation must end in identical regions, memories and results (so interrupting a
// call any number of times neither loses nor repeats an effect), and a small budget must keep
// every invocation's work small however much data a call moves.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "wasi_test_harness.hpp"
#include "wasm/wasi/wasi_inspect.hpp"

namespace wavestack::wasi_test {
namespace {

using wasm::WasiConfig;

std::vector<std::uint32_t> state(const Guest& g) {
  std::vector<std::uint32_t> s = g.region;
  for (uint k = 0; k < dev::WASI_CONT_WORDS; ++k) s[dev::WASI_H_CONT + k] = 0;
  return s;
}

WasiConfig scenario_config() {
  WasiConfig config;
  config.args = {"prog", std::string(300, 'a'), "x"};
  config.env = {std::string("K=").append(200, 'v'), "E=1"};
  config.stdin_bytes = std::string(3000, 's');
  config.storage_size = 256 * 1024;
  config.max_files = 64;
  config.preopen = "/a/preopen/name";
  config.seed = 99u;
  for (int k = 0; k < 12; ++k) config.files.emplace_back("dir/entry_with_a_longish_name_" + std::to_string(k), "e");
  return config;
}

// Runs every resumable entry point on data large enough to need many invocations at small
// budgets; returns every result the calls produced.
std::vector<std::uint64_t> scenario(Guest& g) {
  std::vector<std::uint64_t> log;
  auto note = [&](std::uint64_t v) { log.push_back(v); };
  std::string data(20'000, '\0');
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>((k * 131) ^ (k >> 7));
  g.put(0x4000, data);
  // Writes: gather from three pieces (one empty), then a positioned write past the end.
  uint oe = 0;
  uint fd = 0;
  std::tie(oe, fd) = g.open("dir/file", dev::WASI_OFLAG_CREAT);
  note(oe);
  uint n = g.iovecs({{0x4000, 9000}, {0x4000, 0}, {0x4000 + 9000, 6000}});
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_write(fd, kIovecs, n, kOut, g.now, b, p); }));
  note(g.u32(kOut));
  n = g.iovecs({{0x4000 + 15000, 5000}});
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_pwrite(fd, kIovecs, n, u64v(30'000), kOut, g.now, b, p); }));
  note(g.u32(kOut));
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_write(1, kIovecs, n, kOut, g.now, b, p); }));
  // Reads: scatter into four pieces, positioned, from stdin.
  note(g.seek(fd, 100, dev::WASI_WHENCE_SET).first);
  n = g.iovecs({{0x9000, 7000}, {0x9000 + 7000, 0}, {0x9000 + 7000, 1}, {0x9000 + 8000, 9000}});
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, kIovecs, n, kOut, b, p); }));
  note(g.u32(kOut));
  n = g.iovecs({{0x20000, 12000}});
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_pread(fd, kIovecs, n, u64v(25'000), kOut, b, p); }));
  note(g.u32(kOut));
  n = g.iovecs({{0x30000, 2500}});
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_read(0, kIovecs, n, kOut, b, p); }));
  note(g.u32(kOut));
  // A read whose data overwrites its own later iovecs: the same short read at every budget.
  g.put_u32(kIovecs, kIovecs + 8);
  g.put_u32(kIovecs + 4, 8);
  g.put_u32(kIovecs + 8, 0x38000);
  g.put_u32(kIovecs + 12, 100);
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_pread(fd, kIovecs, 2, u64v(9000), kOut, b, p); }));
  note(g.u32(kOut));
  // Sizes.
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(60'000), g.now, b, p); }));
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(777), g.now, b, p); }));
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_allocate(fd, u64v(500), u64v(40'000), g.now, b, p); }));
  // Directory listing, whole and in small buffers following cookies.
  uint de = 0;
  uint dfd = 0;
  std::tie(de, dfd) = g.open("dir", dev::WASI_OFLAG_DIRECTORY, dev::WASI_RIGHT_FD_READDIR);
  note(de);
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_readdir(dfd, 0x40000, 4096, u64v(0), kOut, b, p); }));
  note(g.u32(kOut));
  std::uint64_t cookie = 0;
  for (int k = 0; k < 20; ++k) {
    note(g.run([&](uint b, uint& p) { return dev::wasi_fd_readdir(dfd, 0x41000, 90, u64v(cookie), kOut, b, p); }));
    note(g.u32(kOut));
    const std::vector<Dirent> got = parse_dirents(g.get(0x41000, g.u32(kOut)));
    if (got.empty()) break;
    cookie = got.back().next;
  }
  // Random bytes, arguments, environment, the preopen name.
  note(g.run([&](uint b, uint& p) { return dev::wasi_random_get(0x42000, 1000, b, p); }));
  note(g.run([&](uint b, uint& p) { return dev::wasi_args_get(0x43000, 0x43100, b, p); }));
  note(g.run([&](uint b, uint& p) { return dev::wasi_environ_get(0x44000, 0x44100, b, p); }));
  note(g.run([&](uint b, uint& p) { return dev::wasi_fd_prestat_dir_name(3, 0x45000, 100, b, p); }));
  // Path calls (their arguments are copied in budget-sized steps).
  const std::string deep = std::string("dir/").append(200, 'q');
  note(g.mkdir(deep));
  note(g.symlink("../entry_with_a_longish_name_3", deep + "/ln"));
  auto [le, lbytes] = g.readlink(deep + "/ln", 20);
  note(le);
  note(lbytes.size());
  note(g.link("dir/file", deep + "/hard"));
  note(g.rename("dir/entry_with_a_longish_name_5", deep + "/moved"));
  note(g.unlink("dir/entry_with_a_longish_name_6"));
  note(g.stat(deep + "/ln", 1).first);
  note(g.stat(deep + "/ln", 0).first);
  g.put(kPathA, deep);
  note(g.run([&](uint b, uint& p) {
    return dev::wasi_path_filestat_set_times(3, 0, kPathA, static_cast<uint>(deep.size()), u64v(5), u64v(6),
                                             dev::WASI_FSTFLAG_ATIM | dev::WASI_FSTFLAG_MTIM, g.now, b, p);
  }));
  note(g.open(deep + "/new", dev::WASI_OFLAG_CREAT).first);
  note(g.rmdir("dir"));
  // poll_oneoff over many subscriptions.
  for (uint i = 0; i < 40; ++i) {
    const uint at = 0x46000 + 48 * i;
    g.put(at, std::string(48, '\0'));
    g.put_u32(at, i);
    g.put(at + 8, std::string(1, static_cast<char>(i % 3)));
    g.put_u32(at + 16, i % 3 == 0 ? 1u : 1u + (i % 2));
    g.put_u32(at + 24, 1000 + i);
  }
  uvec2 advance(0u, 0u);
  note(g.run([&](uint b, uint& p) { return dev::wasi_poll_oneoff(0x46000, 0x48000, 40, kOut, g.now, advance, b, p); }));
  note(g.u32(kOut));
  note(advance.x);
  note(g.close(fd));
  return log;
}

TEST(WasiResumable, BudgetsGiveIdenticalResults) {
  const WasiConfig config = scenario_config();
  Guest whole(config, 1 << 20);
  const std::vector<std::uint64_t> expected = scenario(whole);
  ASSERT_GT(expected.size(), 40u);
  RecordProperty("max_accesses_unlimited", std::to_string(whole.max_accesses));
  for (std::size_t k = 0; k < expected.size(); ++k) {
    if (expected[k] == dev::WASI_AGAIN) ADD_FAILURE() << "step " << k;
  }
  for (uint budget : {1u, 7u}) {
    Guest g(config, 1 << 20, budget);
    const std::vector<std::uint64_t> got = scenario(g);
    EXPECT_EQ(got, expected) << "budget " << budget;
    EXPECT_EQ(state(g), state(whole)) << "budget " << budget;
    EXPECT_EQ(g.memory, whole.memory) << "budget " << budget;
    EXPECT_GT(g.invocations, budget == 1 ? 50'000u : 5'000u) << "budget " << budget;
    // Every invocation did a bounded amount of work (accessor calls, a proxy for loop
    // iterations), while single calls moved up to 15,000 bytes.
    EXPECT_LT(g.max_accesses, 12'000u) << "budget " << budget;
    RecordProperty("invocations_budget_" + std::to_string(budget), std::to_string(g.invocations));
    RecordProperty("max_accesses_budget_" + std::to_string(budget), std::to_string(g.max_accesses));
  }
  // And the results are the right ones, not just the same ones.
  EXPECT_EQ(wasm::wasi_stream_bytes(whole.region, wasm::WasiStream::kStdout),
            std::string(whole.get(0x4000 + 15000, 5000)));
  const wasm::WasiFile file = wasm::wasi_read_file(whole.region, "dir/file");
  EXPECT_EQ(file.status, wasm::WasiFileStatus::kFound);
  EXPECT_EQ(file.bytes.size(), 40'500u);
}

TEST(WasiResumable, AnInterruptedWriteAppliesOnce) {
  // Appending through many invocations: the append position is fixed at the start, so the data
  // lands once, contiguously, after what was there.
  WasiConfig config;
  config.files = {{"f", "head:"}};
  Guest g(config, 65536, 3);
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("f", 0, kAllRights, dev::WASI_FDFLAG_APPEND);
  ASSERT_EQ(e, 0u);
  const std::string body(1000, 'b');
  EXPECT_EQ(g.write(fd, body), std::make_pair(0u, 1000u));
  EXPECT_EQ(wasm::wasi_read_file(g.region, "f").bytes, "head:" + body);
  EXPECT_GT(g.invocations, 300u);
  EXPECT_EQ(wasm::wasi_usage(g.region).content_bytes, 1005u);
}

}  // namespace
}  // namespace wavestack::wasi_test
