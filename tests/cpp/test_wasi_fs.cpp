// The WASI file system and descriptor calls, call by call, against what POSIX and wasmtime
// (the reference where the spec is loose) answer: reads, writes, seeks, appends, truncation,
// positioned I/O, directory listing with cookies, rename, hard links, symlinks and loops,
// unlink while open, storage reclaim, running out of storage / inodes / descriptors without
// changing anything, capability escapes, rights, and bad pointers.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "wasi_test_harness.hpp"
#include "wasm/wasi/wasi_inspect.hpp"

namespace wavestack::wasi_test {
namespace {

using wasm::WasiConfig;

constexpr uint kCreat = dev::WASI_OFLAG_CREAT;
constexpr uint kDir = dev::WASI_OFLAG_DIRECTORY;
constexpr uint kExcl = dev::WASI_OFLAG_EXCL;
constexpr uint kTrunc = dev::WASI_OFLAG_TRUNC;
constexpr uint kRead = dev::WASI_RIGHT_FD_READ | dev::WASI_RIGHT_FD_SEEK | dev::WASI_RIGHT_FD_TELL |
                       dev::WASI_RIGHT_FD_FILESTAT_GET | dev::WASI_RIGHT_FD_READDIR;

// The region without the scratch words (continuation state, path buffers): what an error must
// leave unchanged.
std::vector<std::uint32_t> state(const Guest& g) {
  std::vector<std::uint32_t> s = g.region;
  for (uint k = 0; k < dev::WASI_CONT_WORDS; ++k) s[dev::WASI_H_CONT + k] = 0;
  for (uint k = 0; k < 2 * dev::WASI_PATH_BUF_WORDS; ++k) s[g.region[dev::WASI_H_PATH_A] + k] = 0;
  return s;
}

std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  unsigned x = seed;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 16);
  }
  return s;
}

TEST(WasiFs, CreateWriteSeekReadTell) {
  Guest g(WasiConfig{});
  uint err = 0;
  uint fd = 0;
  std::tie(err, fd) = g.open("a.txt", kCreat);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(fd, 4u);  // the lowest free descriptor
  EXPECT_EQ(g.write(fd, "hello world"), std::make_pair(0u, 11u));
  EXPECT_EQ(g.seek(fd, 0, dev::WASI_WHENCE_CUR), std::make_pair(0u, std::uint64_t{11}));
  EXPECT_EQ(g.seek(fd, -5, dev::WASI_WHENCE_END), std::make_pair(0u, std::uint64_t{6}));
  EXPECT_EQ(g.read(fd, 100), std::make_pair(0u, std::string("world")));
  EXPECT_EQ(g.read(fd, 100), std::make_pair(0u, std::string()));  // at the end
  EXPECT_EQ(g.seek(fd, 2, dev::WASI_WHENCE_SET).first, 0u);
  EXPECT_EQ(g.read(fd, 3), std::make_pair(0u, std::string("llo")));
  EXPECT_EQ(dev::wasi_fd_tell(fd, kOut), 0u);
  EXPECT_EQ(g.u64(kOut), 5u);
  // Seeking before 0 and bad whence are INVAL; past the end is allowed and a write there fills
  // the gap with zeros.
  EXPECT_EQ(g.seek(fd, -6, dev::WASI_WHENCE_CUR).first, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.seek(fd, 0, 3).first, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.seek(fd, INT64_MIN, dev::WASI_WHENCE_END).first, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.seek(fd, 15, dev::WASI_WHENCE_SET).first, 0u);
  EXPECT_EQ(g.write(fd, "!"), std::make_pair(0u, 1u));
  EXPECT_EQ(g.pread(fd, 100, 0), std::make_pair(0u, std::string("hello world\0\0\0\0!", 16)));
  // stat: size, type, nlink, dev, inode number consistent between fd and path.
  auto [serr, st] = g.stat("a.txt");
  ASSERT_EQ(serr, 0u);
  EXPECT_EQ(field64(st, 0), dev::WASI_DEV);
  EXPECT_EQ(static_cast<uint>(st[16]), dev::WASI_FILETYPE_REGULAR_FILE);
  EXPECT_EQ(field64(st, 24), 1u);
  EXPECT_EQ(field64(st, 32), 16u);
  EXPECT_EQ(g.fstat(fd).second, st);
  EXPECT_EQ(g.close(fd), 0u);
  EXPECT_EQ(g.close(fd), dev::WASI_ERRNO_BADF);
  const wasm::WasiFile file = wasm::wasi_read_file(g.region, "a.txt");
  EXPECT_EQ(file.status, wasm::WasiFileStatus::kFound);
  EXPECT_EQ(file.bytes, std::string("hello world\0\0\0\0!", 16));
}

TEST(WasiFs, AppendTruncateAndSizes) {
  Guest g(WasiConfig{});
  ASSERT_EQ(g.create("log", "one\n"), 0u);
  uint err = 0;
  uint fd = 0;
  std::tie(err, fd) = g.open("log", 0, kAllRights, dev::WASI_FDFLAG_APPEND);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g.seek(fd, 0, dev::WASI_WHENCE_SET).first, 0u);
  EXPECT_EQ(g.write(fd, "two\n").first, 0u);  // appends whatever the offset
  EXPECT_EQ(g.seek(fd, 0, dev::WASI_WHENCE_CUR).second, 8u);
  EXPECT_EQ(g.pwrite(fd, "3\n", 0).first, 0u);  // pwrite on an append fd appends (Linux, wasmtime)
  EXPECT_EQ(g.pread(fd, 100, 0).second, "one\ntwo\n3\n");
  // fd_fdstat_set_flags clears append: writes go to the offset again.
  EXPECT_EQ(dev::wasi_fd_fdstat_set_flags(fd, 0), 0u);
  EXPECT_EQ(g.seek(fd, 0, dev::WASI_WHENCE_SET).first, 0u);
  EXPECT_EQ(g.write(fd, "ONE").first, 0u);
  EXPECT_EQ(g.pread(fd, 100, 0).second, "ONE\ntwo\n3\n");
  EXPECT_EQ(dev::wasi_fd_fdstat_set_flags(fd, 32), dev::WASI_ERRNO_INVAL);
  // set_size: shrink then grow (zeros), the offset is untouched.
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(2), g.now, b, p); }), 0u);
  EXPECT_EQ(g.pread(fd, 100, 0).second, "ON");
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(300), g.now, b, p); }), 0u);
  EXPECT_EQ(g.pread(fd, 400, 0).second, std::string("ON").append(298, '\0'));
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(1ull << 32), g.now, b, p); }),
            dev::WASI_ERRNO_FBIG);
  // fd_allocate only grows.
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_allocate(fd, u64v(10), u64v(20), g.now, b, p); }), 0u);
  EXPECT_EQ(g.fstat(fd).second.size(), 64u);
  EXPECT_EQ(field64(g.fstat(fd).second, 32), 300u);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_allocate(fd, u64v(300), u64v(100), g.now, b, p); }), 0u);
  EXPECT_EQ(field64(g.fstat(fd).second, 32), 400u);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_allocate(fd, u64v(0), u64v(0), g.now, b, p); }),
            dev::WASI_ERRNO_INVAL);
  // O_TRUNC empties an existing file; O_EXCL refuses it; O_DIRECTORY on a file is NOTDIR.
  EXPECT_EQ(g.open("log", kTrunc).first, 0u);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "log").bytes, "");
  EXPECT_EQ(g.open("log", kCreat | kExcl).first, dev::WASI_ERRNO_EXIST);
  EXPECT_EQ(g.open("log", kDir).first, dev::WASI_ERRNO_NOTDIR);
  EXPECT_EQ(g.open("log/", 0).first, dev::WASI_ERRNO_NOTDIR);
  EXPECT_EQ(g.open("nothere", 0).first, dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.open("x", kCreat | kDir).first, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.open("x", 16).first, dev::WASI_ERRNO_INVAL);
}

TEST(WasiFs, ScatterGatherAndPositionedIo) {
  Guest g(WasiConfig{});
  uint err = 0;
  uint fd = 0;
  std::tie(err, fd) = g.open("f", kCreat);
  ASSERT_EQ(err, 0u);
  g.put(kData, "abc");
  g.put(kData + 100, "defgh");
  const uint n = g.iovecs({{kData, 3}, {kData + 50, 0}, {kData + 100, 5}});
  ASSERT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_write(fd, kIovecs, n, kOut, g.now, b, p); }), 0u);
  EXPECT_EQ(g.u32(kOut), 8u);
  // Read back into three buffers (2, 0, 10 bytes): 2 + 6.
  const uint m = g.iovecs({{kData + 200, 2}, {kData + 300, 0}, {kData + 400, 10}});
  ASSERT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_pread(fd, kIovecs, m, u64v(0), kOut, b, p); }), 0u);
  EXPECT_EQ(g.u32(kOut), 8u);
  EXPECT_EQ(g.get(kData + 200, 2), "ab");
  EXPECT_EQ(g.get(kData + 400, 6), "cdefgh");
  // pwrite past the end: zeros in between, the offset does not move.
  EXPECT_EQ(g.pwrite(fd, "Z", 20), std::make_pair(0u, 1u));
  EXPECT_EQ(g.seek(fd, 0, dev::WASI_WHENCE_CUR).second, 8u);
  EXPECT_EQ(g.pread(fd, 100, 5), std::make_pair(0u, std::string("fgh\0\0\0\0\0\0\0\0\0\0\0\0Z", 16)));
  EXPECT_EQ(g.pread(fd, 100, 21).second, "");
  EXPECT_EQ(g.pread(fd, 100, 1ull << 40).second, "");
  // A large file across index levels (height 2: more than 16 KiB), read back in odd pieces.
  WasiConfig big;
  big.storage_size = 1 << 20;
  Guest h(big, 1 << 20);
  uint e2 = 0;
  uint f2 = 0;
  std::tie(e2, f2) = h.open("big", kCreat);
  ASSERT_EQ(e2, 0u);
  const std::string data = pattern(200'000, 7);
  h.put(0x10000, data);
  const uint k = h.iovecs({{0x10000, 200'000}});
  ASSERT_EQ(h.run([&](uint b, uint& p) { return dev::wasi_fd_write(f2, kIovecs, k, kOut, h.now, b, p); }), 0u);
  EXPECT_EQ(wasm::wasi_read_file(h.region, "big").bytes, data);
  for (std::uint64_t at : {0ull, 63ull, 64ull, 1023ull, 16383ull, 16384ull, 199'990ull}) {
    const auto [re, got] = h.pread(f2, 777, at);
    EXPECT_EQ(got, data.substr(at, 777)) << at;
  }
  // Shrinking across levels then growing again reads zeros beyond the cut.
  ASSERT_EQ(h.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(f2, u64v(1000), h.now, b, p); }), 0u);
  ASSERT_EQ(h.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(f2, u64v(20'000), h.now, b, p); }), 0u);
  EXPECT_EQ(wasm::wasi_read_file(h.region, "big").bytes, data.substr(0, 1000).append(19'000, '\0'));
  EXPECT_EQ(wasm::wasi_usage(h.region).blocks, dev::wasi_tree_blocks(20'000) + 0u);
}

TEST(WasiFs, StdioStreams) {
  WasiConfig config;
  config.stdin_bytes = "line one\nline two\n";
  Guest g(config);
  EXPECT_EQ(g.read(0, 9), std::make_pair(0u, std::string("line one\n")));
  EXPECT_EQ(g.read(0, 100), std::make_pair(0u, std::string("line two\n")));
  EXPECT_EQ(g.read(0, 100), std::make_pair(0u, std::string()));
  EXPECT_EQ(g.write(1, "out1 ").first, 0u);
  EXPECT_EQ(g.write(2, "err").first, 0u);
  EXPECT_EQ(g.write(1, "out2").first, 0u);
  EXPECT_EQ(wasm::wasi_stream_bytes(g.region, wasm::WasiStream::kStdout), "out1 out2");
  EXPECT_EQ(wasm::wasi_stream_bytes(g.region, wasm::WasiStream::kStderr), "err");
  EXPECT_EQ(wasm::wasi_stream_bytes(g.region, wasm::WasiStream::kStdin), config.stdin_bytes);
  // Streams do not seek (SPIPE), are not readable / writable the other way (NOTCAPABLE),
  // and report filetype unknown (not a tty), as wasmtime does for captured stdio.
  EXPECT_EQ(g.seek(1, 0, dev::WASI_WHENCE_CUR).first, dev::WASI_ERRNO_SPIPE);
  EXPECT_EQ(dev::wasi_fd_tell(0, kOut), dev::WASI_ERRNO_SPIPE);
  EXPECT_EQ(g.pread(0, 4, 0).first, dev::WASI_ERRNO_SPIPE);
  EXPECT_EQ(g.pwrite(1, "x", 0).first, dev::WASI_ERRNO_SPIPE);
  EXPECT_EQ(g.read(1, 4).first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.write(0, "x").first, dev::WASI_ERRNO_NOTCAPABLE);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(1, kOut - 24), 0u);
  EXPECT_EQ(g.u8(kOut - 24), dev::WASI_FILETYPE_UNKNOWN);
  EXPECT_EQ(g.u64(kOut - 16), dev::WASI_RIGHTS_STDOUT);
  EXPECT_EQ(dev::wasi_fd_sync(1), 0u);
  EXPECT_EQ(dev::wasi_fd_datasync(0), 0u);
  // stdout counts against storage_size.
  WasiConfig small;
  small.storage_size = 10;
  Guest s(small);
  EXPECT_EQ(s.write(1, "0123456789").first, 0u);
  const auto before = state(s);
  EXPECT_EQ(s.write(1, "x").first, dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(state(s), before);
}

TEST(WasiFs, ReaddirWithCookies) {
  WasiConfig config;
  config.files = {{"b.txt", "bb"}, {"sub/c", "c"}, {"a", ""}};
  Guest g(config);
  ASSERT_EQ(g.symlink("a", "ln"), 0u);
  auto [full_err, used] = g.readdir(3, 4096, 0);
  ASSERT_EQ(full_err, 0u);
  ASSERT_LT(used, 4096u);
  const std::vector<Dirent> all = parse_dirents(g.get(kData, used));
  ASSERT_EQ(all.size(), 6u);
  std::vector<std::string> names;
  names.reserve(all.size());
  for (const Dirent& d : all) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{".", "..", "b.txt", "sub", "a", "ln"}));  // creation order
  EXPECT_EQ(all[0].type, dev::WASI_FILETYPE_DIRECTORY);
  EXPECT_EQ(all[0].ino, all[1].ino);  // the root's parent is itself
  EXPECT_EQ(all[2].type, dev::WASI_FILETYPE_REGULAR_FILE);
  EXPECT_EQ(all[3].type, dev::WASI_FILETYPE_DIRECTORY);
  EXPECT_EQ(all[5].type, dev::WASI_FILETYPE_SYMBOLIC_LINK);
  EXPECT_EQ(all[2].ino, field64(g.stat("b.txt").second, 8));
  EXPECT_EQ(used, 6 * 24u + 1 + 2 + 5 + 3 + 1 + 2);
  // Resume after each entry with its d_next: the rest of the listing.
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto [e, u] = g.readdir(3, 4096, all[i].next);
    ASSERT_EQ(e, 0u);
    const std::vector<Dirent> rest = parse_dirents(g.get(kData, u));
    ASSERT_EQ(rest.size(), all.size() - i - 1);
    if (!rest.empty()) {
      EXPECT_EQ(rest[0].name, all[i + 1].name);
    }
  }
  EXPECT_EQ(g.readdir(3, 4096, 1ull << 40).second, 0u);
  // A small buffer is filled completely, the last entry truncated (24 + 1 bytes of "." + 5).
  auto [te, tu] = g.readdir(3, 30, 0);
  EXPECT_EQ(te, 0u);
  EXPECT_EQ(tu, 30u);
  const std::string head = g.get(kData, 30);
  EXPECT_EQ(field64(head, 0), 1u);  // "."'s d_next
  EXPECT_EQ(head[24], '.');
  EXPECT_EQ(head.substr(25), std::string("\x02\0\0\0\0", 5));  // the start of ".."'s header
  // Entries removed or added keep the other cookies valid.
  ASSERT_EQ(g.unlink("b.txt"), 0u);
  auto [e2, u2] = g.readdir(3, 4096, all[2].next);
  const std::vector<Dirent> after = parse_dirents(g.get(kData, u2));
  ASSERT_EQ(e2, 0u);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].name, "sub");
  // A subdirectory's listing, and its ".." is the root.
  uint de = 0;
  uint dfd = 0;
  std::tie(de, dfd) = g.open("sub", kDir, kRead);
  ASSERT_EQ(de, 0u);
  auto [se, su] = g.readdir(dfd, 4096, 0);
  ASSERT_EQ(se, 0u);
  const std::vector<Dirent> sub = parse_dirents(g.get(kData, su));
  ASSERT_EQ(sub.size(), 3u);
  EXPECT_EQ(sub[1].ino, all[0].ino);
  EXPECT_EQ(sub[2].name, "c");
  // Not a directory: BADF (wasmtime); no FD_READDIR right: NOTCAPABLE.
  uint fe = 0;
  uint ffd = 0;
  std::tie(fe, ffd) = g.open("a", 0);
  ASSERT_EQ(fe, 0u);
  EXPECT_EQ(g.readdir(ffd, 100, 0).first, dev::WASI_ERRNO_BADF);
  uint ne = 0;
  uint nfd = 0;
  std::tie(ne, nfd) = g.open("sub", kDir, dev::WASI_RIGHT_PATH_OPEN);
  ASSERT_EQ(ne, 0u);
  EXPECT_EQ(g.readdir(nfd, 100, 0).first, dev::WASI_ERRNO_NOTCAPABLE);
}

TEST(WasiFs, DirectoriesAndRename) {
  Guest g(WasiConfig{});
  EXPECT_EQ(g.mkdir("d"), 0u);
  EXPECT_EQ(g.mkdir("d"), dev::WASI_ERRNO_EXIST);
  EXPECT_EQ(g.mkdir("."), dev::WASI_ERRNO_EXIST);
  EXPECT_EQ(g.mkdir("e/"), 0u);
  EXPECT_EQ(g.mkdir("x/y"), dev::WASI_ERRNO_NOENT);
  ASSERT_EQ(g.create("d/f", "data"), 0u);
  ASSERT_EQ(g.create("g", "gg"), 0u);
  // nlink of a directory: 2 + subdirectories.
  EXPECT_EQ(field64(g.stat(".").second, 24), 4u);
  EXPECT_EQ(g.rmdir("d"), dev::WASI_ERRNO_NOTEMPTY);
  EXPECT_EQ(g.rmdir("g"), dev::WASI_ERRNO_NOTDIR);
  EXPECT_EQ(g.rmdir("."), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.rmdir("d/.."), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.unlink("d"), dev::WASI_ERRNO_ISDIR);
  EXPECT_EQ(g.unlink("."), dev::WASI_ERRNO_ISDIR);
  EXPECT_EQ(g.unlink("g/"), dev::WASI_ERRNO_NOTDIR);
  // Renames as rename(2).
  EXPECT_EQ(g.rename("g", "d"), dev::WASI_ERRNO_ISDIR);
  EXPECT_EQ(g.rename("d", "g"), dev::WASI_ERRNO_NOTDIR);
  EXPECT_EQ(g.rename("e", "d"), dev::WASI_ERRNO_NOTEMPTY);
  EXPECT_EQ(g.rename("d", "d/sub"), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.rename(".", "z"), dev::WASI_ERRNO_BUSY);
  EXPECT_EQ(g.rename("g", "."), dev::WASI_ERRNO_BUSY);
  EXPECT_EQ(g.rename("nothere", "z"), dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.rename("g", "g"), 0u);
  EXPECT_EQ(g.rename("g", "d/g2"), 0u);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "d/g2").bytes, "gg");
  EXPECT_EQ(wasm::wasi_read_file(g.region, "g").status, wasm::WasiFileStatus::kNotFound);
  // A file replaces a file; the replaced one is freed at once (nothing holds it).
  const wasm::WasiUsage before = wasm::wasi_usage(g.region);
  EXPECT_EQ(g.rename("d/g2", "d/f"), 0u);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "d/f").bytes, "gg");
  const wasm::WasiUsage after = wasm::wasi_usage(g.region);
  EXPECT_EQ(after.inodes, before.inodes - 1);
  EXPECT_EQ(after.content_bytes, before.content_bytes - 4);
  // A directory moves (with its contents) and replaces an empty directory.
  EXPECT_EQ(g.rename("d", "e"), 0u);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "e/f").bytes, "gg");
  EXPECT_EQ(wasm::wasi_read_file(g.region, "e").status, wasm::WasiFileStatus::kIsDirectory);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "d").status, wasm::WasiFileStatus::kNotFound);
  EXPECT_EQ(g.mkdir("e/inner"), 0u);
  EXPECT_EQ(g.rename("e/inner", "top"), 0u);
  uint te = 0;
  uint tfd = 0;
  std::tie(te, tfd) = g.open("top", kDir, kRead | dev::WASI_RIGHT_PATH_OPEN | dev::WASI_RIGHT_PATH_CREATE_FILE);
  ASSERT_EQ(te, 0u);
  auto [re, ru] = g.readdir(tfd, 4096, 0);
  ASSERT_EQ(re, 0u);
  EXPECT_EQ(parse_dirents(g.get(kData, ru))[1].ino, field64(g.stat(".").second, 8));  // ".." follows the move
  EXPECT_EQ(field64(g.stat(".").second, 24), 4u);                                     // e and top
  EXPECT_EQ(g.rmdir("top"), 0u);
  // The removed directory stays usable as a descriptor but holds nothing.
  EXPECT_EQ(g.open("x", kCreat, kAllRights, 0, tfd).first, dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(field64(g.fstat(tfd).second, 24), 0u);
  EXPECT_EQ(g.close(tfd), 0u);
}

TEST(WasiFs, HardLinksAndUnlinkWhileOpen) {
  Guest g(WasiConfig{});
  const wasm::WasiUsage empty = wasm::wasi_usage(g.region);
  ASSERT_EQ(g.create("f", "content"), 0u);
  EXPECT_EQ(g.link("f", "f2"), 0u);
  EXPECT_EQ(field64(g.stat("f").second, 24), 2u);
  EXPECT_EQ(field64(g.stat("f").second, 8), field64(g.stat("f2").second, 8));
  EXPECT_EQ(g.link("f", "f2"), dev::WASI_ERRNO_EXIST);
  EXPECT_EQ(g.link("nothere", "f3"), dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.mkdir("d"), 0u);
  EXPECT_EQ(g.link("d", "d2"), dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.link("f", "q/"), dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.unlink("f"), 0u);
  EXPECT_EQ(wasm::wasi_read_file(g.region, "f2").bytes, "content");
  EXPECT_EQ(field64(g.stat("f2").second, 24), 1u);
  // Unlink while open: the descriptor keeps the file (and its storage) until closed.
  uint err = 0;
  uint fd = 0;
  std::tie(err, fd) = g.open("f2", 0);
  ASSERT_EQ(err, 0u);
  EXPECT_EQ(g.unlink("f2"), 0u);
  EXPECT_EQ(g.stat("f2").first, dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.write(fd, "MORE").first, 0u);
  EXPECT_EQ(g.pread(fd, 100, 0).second, "MOREent");
  EXPECT_EQ(field64(g.fstat(fd).second, 24), 0u);
  EXPECT_EQ(wasm::wasi_usage(g.region).content_bytes, 7u);
  EXPECT_EQ(g.close(fd), 0u);
  EXPECT_EQ(g.rmdir("d"), 0u);
  const wasm::WasiUsage end = wasm::wasi_usage(g.region);
  EXPECT_EQ(end.content_bytes, empty.content_bytes);
  EXPECT_EQ(end.blocks, empty.blocks);
  EXPECT_EQ(end.inodes, empty.inodes);
  EXPECT_EQ(end.names, empty.names);
}

TEST(WasiFs, SymlinksReadlinkAndLoops) {
  WasiConfig config;
  config.max_files = 64;
  Guest g(config);
  ASSERT_EQ(g.mkdir("d"), 0u);
  ASSERT_EQ(g.create("d/target", "T"), 0u);
  EXPECT_EQ(g.symlink("d/target", "ln"), 0u);
  EXPECT_EQ(g.symlink("target", "d/rel"), 0u);
  EXPECT_EQ(g.symlink("../d/target", "d/up"), 0u);
  EXPECT_EQ(g.symlink("d", "dirln"), 0u);
  EXPECT_EQ(g.readlink("ln"), std::make_pair(0u, std::string("d/target")));
  EXPECT_EQ(g.readlink("ln", 3), std::make_pair(0u, std::string("d/t")));  // truncated
  EXPECT_EQ(g.readlink("ln", 0), std::make_pair(0u, std::string()));
  EXPECT_EQ(g.readlink("d/target").first, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(g.readlink("nothere").first, dev::WASI_ERRNO_NOENT);
  for (const char* path : {"ln", "d/rel", "d/up", "dirln/target", "dirln/rel", "dirln/../ln"}) {
    uint e = 0;
    uint fd = 0;
    std::tie(e, fd) = g.open(path, 0);
    ASSERT_EQ(e, 0u) << path;
    EXPECT_EQ(g.read(fd, 10).second, "T") << path;
    g.close(fd);
  }
  // Not following: stat the link itself; open gives LOOP (O_NOFOLLOW).
  auto [le, lst] = g.stat("ln", 0);
  ASSERT_EQ(le, 0u);
  EXPECT_EQ(static_cast<uint>(lst[16]), dev::WASI_FILETYPE_SYMBOLIC_LINK);
  EXPECT_EQ(field64(lst, 32), 8u);
  EXPECT_EQ(static_cast<uint>(g.stat("ln", 1).second[16]), dev::WASI_FILETYPE_REGULAR_FILE);
  EXPECT_EQ(g.open("ln", 0, kAllRights, 0, 3, 0).first, dev::WASI_ERRNO_LOOP);
  EXPECT_EQ(g.open("dirln/", kDir, kRead, 0, 3, 0).first, 0u);  // a trailing slash follows
  // Loops and chains.
  EXPECT_EQ(g.symlink("loop", "loop"), 0u);
  EXPECT_EQ(g.open("loop", 0).first, dev::WASI_ERRNO_LOOP);
  EXPECT_EQ(g.symlink("b", "a"), 0u);
  EXPECT_EQ(g.symlink("a", "b"), 0u);
  EXPECT_EQ(g.stat("a/x").first, dev::WASI_ERRNO_LOOP);
  std::string prev = "ln";
  for (int k = 0; k < 31; ++k) {  // a chain of 32 links resolves; 33 is LOOP
    const std::string name = "c" + std::to_string(k);
    ASSERT_EQ(g.symlink(prev, name), 0u);
    prev = name;
  }
  EXPECT_EQ(g.stat(prev).first, 0u);
  EXPECT_EQ(g.read(g.open(prev, 0).second, 4).second, "T");
  ASSERT_EQ(g.symlink(prev, "c_over"), 0u);
  EXPECT_EQ(g.stat("c_over").first, dev::WASI_ERRNO_LOOP);
  EXPECT_EQ(g.stat("c_over", 0).first, 0u);
  // Dangling: stat without following works; following is NOENT; O_CREAT creates the target.
  Guest h(WasiConfig{});
  ASSERT_EQ(h.symlink("made", "dangling"), 0u);
  EXPECT_EQ(h.stat("dangling", 0).first, 0u);
  EXPECT_EQ(h.stat("dangling", 1).first, dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(h.open("dangling", kCreat).first, 0u);
  EXPECT_EQ(wasm::wasi_read_file(h.region, "made").status, wasm::WasiFileStatus::kFound);
  EXPECT_EQ(wasm::wasi_read_file(h.region, "dangling").status, wasm::WasiFileStatus::kNotFound);  // not followed
  EXPECT_EQ(h.symlink("", "empty"), dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(h.symlink("x", "made"), dev::WASI_ERRNO_EXIST);
  EXPECT_EQ(h.symlink(std::string(256, 'a'), "long"), dev::WASI_ERRNO_NAMETOOLONG);
}

TEST(WasiFs, CapabilityEscapes) {
  Guest g(WasiConfig{});
  ASSERT_EQ(g.mkdir("d"), 0u);
  ASSERT_EQ(g.create("top", "t"), 0u);
  EXPECT_EQ(g.open("../x", kCreat).first, dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.open("/x", kCreat).first, dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.open("d/../../x", kCreat).first, dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.open("nothere/../../x", kCreat).first, dev::WASI_ERRNO_NOENT);
  EXPECT_EQ(g.open("d/../top", 0).first, 0u);
  EXPECT_EQ(g.symlink("/etc/passwd", "abs"), dev::WASI_ERRNO_PERM);
  ASSERT_EQ(g.symlink("../outside", "out"), 0u);
  EXPECT_EQ(g.open("out", 0).first, dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.stat("out", 0).first, 0u);
  // A descriptor for "d" is a capability for "d" only: ".." out of it is PERM, even though the
  // root holds the target, and so is a symlink inside d that climbs out.
  uint e = 0;
  uint dfd = 0;
  std::tie(e, dfd) = g.open("d", kDir, kAllRights & ~dev::WASI_RIGHT_FD_WRITE);
  ASSERT_EQ(e, 0u);
  EXPECT_EQ(g.open("../top", 0, kRead, 0, dfd).first, dev::WASI_ERRNO_PERM);
  ASSERT_EQ(g.symlink("../top", "d/climb"), 0u);
  EXPECT_EQ(g.open("climb", 0, kRead, 0, dfd).first, dev::WASI_ERRNO_PERM);
  EXPECT_EQ(g.open("d/climb", 0).first, 0u);  // from the root it stays inside
  // Names and resolved paths are limited to 255 bytes; arguments to 1024; invalid UTF-8 is ILSEQ.
  EXPECT_EQ(g.open(std::string(256, 'n'), kCreat).first, dev::WASI_ERRNO_NAMETOOLONG);
  EXPECT_EQ(g.open(std::string(255, 'n'), kCreat).first, 0u);
  EXPECT_EQ(g.open(std::string("d/").append(254, 'n'), kCreat).first, dev::WASI_ERRNO_NAMETOOLONG);
  EXPECT_EQ(g.open(std::string("d/").append(253, 'n'), kCreat).first, 0u);
  EXPECT_EQ(g.open(std::string(1025, '/').replace(0, 1, "d"), 0).first, dev::WASI_ERRNO_NAMETOOLONG);
  EXPECT_EQ(g.open(std::string("d/").append(1000, '/').append(".."), kDir, kRead).first, 0u);
  EXPECT_EQ(g.open("bad\xff", kCreat).first, dev::WASI_ERRNO_ILSEQ);
  EXPECT_EQ(g.open("\xc3\xa9t\xc3\xa9", kCreat).first, 0u);
  EXPECT_EQ(g.open("", 0).first, dev::WASI_ERRNO_NOENT);
}

TEST(WasiFs, Rights) {
  Guest g(WasiConfig{});
  ASSERT_EQ(g.create("f", "abc"), 0u);
  uint e = 0;
  uint ro = 0;
  std::tie(e, ro) = g.open("f", 0, dev::WASI_RIGHT_FD_READ);
  ASSERT_EQ(e, 0u);
  EXPECT_EQ(g.write(ro, "x").first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.read(ro, 10).second, "abc");
  EXPECT_EQ(g.pread(ro, 10, 0).first, dev::WASI_ERRNO_NOTCAPABLE);  // needs FD_SEEK too
  EXPECT_EQ(g.seek(ro, 0, dev::WASI_WHENCE_SET).first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.fstat(ro).first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(ro, u64v(0), g.now, b, p); }),
            dev::WASI_ERRNO_NOTCAPABLE);
  // fdstat reports what was granted (the requested rights that apply to a file).
  ASSERT_EQ(dev::wasi_fd_fdstat_get(ro, kOut - 24), 0u);
  EXPECT_EQ(g.u8(kOut - 24), dev::WASI_FILETYPE_REGULAR_FILE);
  EXPECT_EQ(g.u64(kOut - 16), dev::WASI_RIGHT_FD_READ);
  uint e2 = 0;
  uint rw = 0;
  std::tie(e2, rw) = g.open("f", 0, kAllRights);
  ASSERT_EQ(e2, 0u);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(rw, kOut - 24), 0u);
  EXPECT_EQ(g.u64(kOut - 16), dev::WASI_RIGHTS_REGULAR);  // path rights do not apply to a file
  // Rights only shrink.
  EXPECT_EQ(dev::wasi_fd_fdstat_set_rights(rw, u64v(dev::WASI_RIGHT_FD_READ), u64v(0)), 0u);
  EXPECT_EQ(g.write(rw, "x").first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(dev::wasi_fd_fdstat_set_rights(rw, u64v(dev::WASI_RIGHT_FD_READ | dev::WASI_RIGHT_FD_WRITE), u64v(0)),
            dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(dev::wasi_fd_fdstat_set_rights(rw, u64v(1ull << 40), u64v(0)), dev::WASI_ERRNO_NOTCAPABLE);
  // Rights that apply to no file of ours (the sockets') are dropped, as preview 1 allows (the
  // preopen does not pass them on, and Wasmtime opens the file all the same).
  uint se = 0;
  uint sfd = 0;
  std::tie(se, sfd) = g.open("f", 0, dev::WASI_RIGHT_SOCK_SHUTDOWN | dev::WASI_RIGHT_FD_READ);
  ASSERT_EQ(se, 0u);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(sfd, kOut - 24), 0u);
  EXPECT_EQ(g.u64(kOut - 16), dev::WASI_RIGHT_FD_READ);
  EXPECT_EQ(g.open("f", 0, dev::WASI_RIGHT_FD_READ, 0, 3, 1, dev::WASI_RIGHT_SOCK_ACCEPT).first, 0u);
  // Those that apply must be within the directory's inheriting rights.
  uint re = 0;
  uint rfd = 0;
  std::tie(re, rfd) = g.open(".", kDir, dev::WASI_RIGHT_PATH_OPEN, 0, 3, 1, dev::WASI_RIGHT_FD_READ);
  ASSERT_EQ(re, 0u);
  EXPECT_EQ(g.open("f", 0, dev::WASI_RIGHT_FD_READ, 0, rfd).first, 0u);
  EXPECT_EQ(g.open("f", 0, dev::WASI_RIGHT_FD_READ | dev::WASI_RIGHT_FD_WRITE, 0, rfd).first,
            dev::WASI_ERRNO_NOTCAPABLE);
  // A directory descriptor without PATH_CREATE_FILE cannot create, without PATH_OPEN cannot open.
  uint de = 0;
  uint dfd = 0;
  std::tie(de, dfd) = g.open(".", kDir, dev::WASI_RIGHT_PATH_OPEN | dev::WASI_RIGHT_PATH_FILESTAT_GET);
  ASSERT_EQ(de, 0u);
  EXPECT_EQ(g.open("new", kCreat, dev::WASI_RIGHT_FD_READ, 0, dfd).first, dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.mkdir("nd", dfd), dev::WASI_ERRNO_NOTCAPABLE);
  EXPECT_EQ(g.stat("f", 1, dfd).first, 0u);
  // Its inheriting rights are what it was opened with (kAllRights): reading works.
  uint fe = 0;
  uint ffd = 0;
  std::tie(fe, ffd) = g.open("f", 0, dev::WASI_RIGHT_FD_READ, 0, dfd);
  EXPECT_EQ(fe, 0u);
  EXPECT_EQ(g.read(ffd, 5).second, "abc");
  EXPECT_EQ(dev::wasi_fd_fdstat_set_rights(dfd, u64v(dev::WASI_RIGHT_PATH_FILESTAT_GET), u64v(0)), 0u);
  EXPECT_EQ(g.open("f", 0, dev::WASI_RIGHT_FD_READ, 0, dfd).first, dev::WASI_ERRNO_NOTCAPABLE);
  // A directory cannot be opened for writing or truncation; byte operations on it are BADF.
  EXPECT_EQ(g.open(".", kDir, dev::WASI_RIGHT_FD_WRITE).first, dev::WASI_ERRNO_ISDIR);
  EXPECT_EQ(g.open(".", kTrunc, dev::WASI_RIGHT_FD_READ).first, dev::WASI_ERRNO_ISDIR);
  EXPECT_EQ(g.read(3, 4).first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.write(3, "x").first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.seek(3, 0, dev::WASI_WHENCE_SET).first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_fd_advise(3, u64v(0), u64v(0), 0), dev::WASI_ERRNO_BADF);
  // Path calls on a descriptor that is not a directory (wasmtime's answers): path_open on a
  // file's is NOTDIR, the others BADF, and on a stream BADF.
  EXPECT_EQ(g.open("x", 0, kRead, 0, ro).first, dev::WASI_ERRNO_NOTDIR);
  EXPECT_EQ(g.open("x", 0, kRead, 0, 1).first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.mkdir("y", ro), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.stat(".", 0, ro).first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.open("x", 0, kRead, 0, 99).first, dev::WASI_ERRNO_BADF);
}

TEST(WasiFs, RunningOutChangesNothing) {
  // Storage: a write that does not fit is refused whole.
  WasiConfig config;
  config.storage_size = 1000;
  config.max_files = 8;  // 4 reserved + 4
  config.max_fds = 6;
  Guest g(config);
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("f", kCreat);
  ASSERT_EQ(e, 0u);
  ASSERT_EQ(g.write(fd, std::string(990, 'a')).first, 0u);
  auto before = state(g);
  EXPECT_EQ(g.write(fd, std::string(11, 'b')).first, dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(g.pwrite(fd, "c", 1000).first, dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_filestat_set_size(fd, u64v(1001), g.now, b, p); }),
            dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_allocate(fd, u64v(1000), u64v(1), g.now, b, p); }),
            dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(g.symlink(std::string(20, 's'), "s"), dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(state(g), before);
  EXPECT_EQ(g.write(fd, std::string(10, 'b')).first, 0u);  // exactly the quota
  EXPECT_EQ(wasm::wasi_usage(g.region).content_bytes, 1000u);
  // Deleting reclaims: the space is usable again.
  EXPECT_EQ(g.close(fd), 0u);
  EXPECT_EQ(g.unlink("f"), 0u);
  EXPECT_EQ(wasm::wasi_usage(g.region).content_bytes, 0u);
  EXPECT_EQ(wasm::wasi_usage(g.region).blocks, 0u);
  ASSERT_EQ(g.create("f2", std::string(1000, 'z')), 0u);
  EXPECT_EQ(g.unlink("f2"), 0u);
  // Descriptors: 6 in all, 0..3 taken.
  uint e1 = 0;
  uint fd1 = 0;
  std::tie(e1, fd1) = g.open("a", kCreat);
  uint e2 = 0;
  uint fd2 = 0;
  std::tie(e2, fd2) = g.open("b", kCreat);
  ASSERT_EQ(e1 | e2, 0u);
  before = state(g);
  EXPECT_EQ(g.open("a", 0).first, dev::WASI_ERRNO_MFILE);
  EXPECT_EQ(g.open("c", kCreat).first, dev::WASI_ERRNO_MFILE);  // not created either
  EXPECT_EQ(state(g), before);
  EXPECT_EQ(g.stat("c").first, dev::WASI_ERRNO_NOENT);
  g.close(fd1);
  g.close(fd2);
  // Inodes: 4 free (a and b take 2).
  EXPECT_EQ(g.mkdir("d1"), 0u);
  EXPECT_EQ(g.mkdir("d2"), 0u);
  before = state(g);
  EXPECT_EQ(g.mkdir("d3"), dev::WASI_ERRNO_NFILE);
  EXPECT_EQ(g.open("c", kCreat).first, dev::WASI_ERRNO_NFILE);
  EXPECT_EQ(g.symlink("a", "s"), dev::WASI_ERRNO_NFILE);
  EXPECT_EQ(state(g), before);
  // Names: 8 dentries, 4 used; hard links take the rest, then NOSPC.
  for (const char* name : {"l1", "l2", "l3", "l4"}) EXPECT_EQ(g.link("a", name), 0u);
  before = state(g);
  EXPECT_EQ(g.link("a", "l5"), dev::WASI_ERRNO_NOSPC);
  EXPECT_EQ(state(g), before);
  // Renames replace in place and need no new name.
  EXPECT_EQ(g.rename("l1", "d1/moved"), 0u);
}

TEST(WasiFs, BadPointersAreFaultsAndChangeNothing) {
  Guest g(WasiConfig{}, 65536);
  ASSERT_EQ(g.create("f", "abc"), 0u);
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("f", 0);
  ASSERT_EQ(e, 0u);
  const uint end = 65536;
  constexpr uint kBadBuffer = kIovecs;        // one iovec reaching past the end of memory
  constexpr uint kWrapping = kIovecs + 0x40;  // one iovec wrapping around 2^32
  g.put_u32(kBadBuffer, end - 2);
  g.put_u32(kBadBuffer + 4, 3);
  g.put_u32(kWrapping, 0xFFFFFFFFu);
  g.put_u32(kWrapping + 4, 2);
  g.put(kPathA, "f");
  const auto before = state(g);
  const auto memory = g.memory;
  auto run = [&](const std::function<uint(uint, uint&)>& call) { return g.run(call); };
  // iovec array, a buffer inside it, the result pointer; 32-bit wrap-around.
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, end - 4, 1, kOut, b, p); }), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, 0xFFFFFFF8u, 2, kOut, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, 8, 0x20000000u, kOut, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, kIovecs, 0, end - 3, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_read(fd, kBadBuffer, 1, kOut, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_write(fd, kWrapping, 1, kOut, g.now, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_pwrite(fd, kBadBuffer, 1, u64v(0), kOut, g.now, b, p); }),
            dev::WASI_ERRNO_FAULT);
  // Paths, stat buffers, readdir buffers, fdstat, prestat, clocks, args.
  EXPECT_EQ(run([&](uint b, uint& p) {
              return dev::wasi_path_open(3, 1, end - 1, 2, 0, u64v(2), u64v(0), 0, kOut, g.now, b, p);
            }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) {
              return dev::wasi_path_open(3, 1, kPathA, 1, 0, u64v(2), u64v(0), 0, end, g.now, b, p);
            }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_path_filestat_get(3, 1, kPathA, 1, end - 63, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_fd_readdir(3, end - 10, 11, u64v(0), kOut, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(run([&](uint b, uint& p) { return dev::wasi_path_readlink(3, kPathA, 1, end, 1, kOut, b, p); }),
            dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_fd_fdstat_get(fd, end - 23), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_fd_filestat_get(fd, end - 63), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_fd_prestat_get(3, end - 7), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_fd_seek(fd, u64v(0), 0, end - 7), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_clock_time_get(0, u64v(0), end - 7, g.now), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_clock_res_get(1, 0xFFFFFFFCu), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(dev::wasi_args_sizes_get(end, 0), dev::WASI_ERRNO_FAULT);
  EXPECT_EQ(state(g), before);
  EXPECT_EQ(g.memory, memory);
}

TEST(WasiFs, DescriptorTableAndPreopen) {
  WasiConfig config;
  config.preopen = "/sandbox";
  Guest g(config);
  ASSERT_EQ(dev::wasi_fd_prestat_get(3, kOut), 0u);
  EXPECT_EQ(g.u8(kOut), 0u);
  EXPECT_EQ(g.u32(kOut + 4), 8u);
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_prestat_dir_name(3, kData, 8, b, p); }), 0u);
  EXPECT_EQ(g.get(kData, 8), "/sandbox");
  EXPECT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_fd_prestat_dir_name(3, kData, 7, b, p); }),
            dev::WASI_ERRNO_NAMETOOLONG);
  EXPECT_EQ(dev::wasi_fd_prestat_get(4, kOut), dev::WASI_ERRNO_BADF);  // wasi-libc stops its scan here
  EXPECT_EQ(dev::wasi_fd_prestat_get(0, kOut), dev::WASI_ERRNO_BADF);
  ASSERT_EQ(dev::wasi_fd_fdstat_get(3, kOut), 0u);
  EXPECT_EQ(g.u8(kOut), dev::WASI_FILETYPE_DIRECTORY);
  EXPECT_EQ(g.u64(kOut + 8), dev::WASI_RIGHTS_DIRECTORY);
  EXPECT_EQ(g.u64(kOut + 16), kAllRights);
  // Renumber: both must be open; the target is closed, the source moves (with the preopen).
  ASSERT_EQ(g.create("f", "xyz"), 0u);
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("f", 0);
  ASSERT_EQ(e, 0u);
  EXPECT_EQ(dev::wasi_fd_renumber(fd, 40), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_fd_renumber(fd, fd), 0u);
  EXPECT_EQ(dev::wasi_fd_renumber(3, fd), 0u);
  EXPECT_EQ(dev::wasi_fd_prestat_get(fd, kOut), 0u);
  EXPECT_EQ(dev::wasi_fd_prestat_get(3, kOut), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(g.open("f", 0, kAllRights, 0, fd).first, 0u);  // reuses 3, the lowest free
  EXPECT_EQ(g.u32(kOut), 3u);
  EXPECT_EQ(dev::wasi_fd_close(0), 0u);
  EXPECT_EQ(g.read(0, 1).first, dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_fd_sync(99), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_fd_fdstat_get(0xFFFFFFFFu, kOut), dev::WASI_ERRNO_BADF);
  // Sockets: BADF when closed, NOTSOCK when open.
  EXPECT_EQ(dev::wasi_sock_accept(0, 0, kOut), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_sock_accept(1, 0, kOut), dev::WASI_ERRNO_NOTSOCK);
  EXPECT_EQ(dev::wasi_sock_recv(3, 0, 0, 0, 0, 0), dev::WASI_ERRNO_NOTSOCK);
  EXPECT_EQ(dev::wasi_sock_send(77, 0, 0, 0, 0), dev::WASI_ERRNO_BADF);
  EXPECT_EQ(dev::wasi_sock_shutdown(2, 0), dev::WASI_ERRNO_NOTSOCK);
  EXPECT_EQ(dev::wasi_sched_yield(), 0u);
  // fd_advise checks its advice; fd_sync needs its right.
  EXPECT_EQ(dev::wasi_fd_advise(3, u64v(0), u64v(10), 5), 0u);
  EXPECT_EQ(dev::wasi_fd_advise(3, u64v(0), u64v(10), 6), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(dev::wasi_fd_advise(1, u64v(0), u64v(10), 0), dev::WASI_ERRNO_BADF);
}

TEST(WasiFs, TimestampsFollowTheVirtualClock) {
  WasiConfig config;
  config.clock_epoch_ns = 5'000'000'000ull;
  config.files = {{"f", "x"}};
  Guest g(config);
  auto [e0, st0] = g.stat("f");
  ASSERT_EQ(e0, 0u);
  EXPECT_EQ(field64(st0, 40), 5'000'000'000ull);
  EXPECT_EQ(field64(st0, 48), 5'000'000'000ull);
  g.now = u64v(7'000'000'000ull);
  uint e = 0;
  uint fd = 0;
  std::tie(e, fd) = g.open("f", 0);
  ASSERT_EQ(e, 0u);
  EXPECT_EQ(g.write(fd, "y").first, 0u);
  auto st = g.fstat(fd).second;
  EXPECT_EQ(field64(st, 40), 5'000'000'000ull);  // atime: reads and writes leave it
  EXPECT_EQ(field64(st, 48), 7'000'000'000ull);
  EXPECT_EQ(field64(st, 56), 7'000'000'000ull);
  g.now = u64v(9'000'000'000ull);
  EXPECT_EQ(dev::wasi_fd_filestat_set_times(fd, u64v(123), u64v(0), dev::WASI_FSTFLAG_ATIM | dev::WASI_FSTFLAG_MTIM_NOW,
                                            g.now),
            0u);
  st = g.fstat(fd).second;
  EXPECT_EQ(field64(st, 40), 123u);
  EXPECT_EQ(field64(st, 48), 9'000'000'000ull);
  EXPECT_EQ(dev::wasi_fd_filestat_set_times(fd, u64v(0), u64v(0), 3, g.now), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(dev::wasi_fd_filestat_set_times(fd, u64v(0), u64v(0), 12, g.now), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(dev::wasi_fd_filestat_set_times(fd, u64v(0), u64v(0), 16, g.now), dev::WASI_ERRNO_INVAL);
  g.put(kPathA, "f");
  EXPECT_EQ(g.run([&](uint b, uint& p) {
    return dev::wasi_path_filestat_set_times(3, 1, kPathA, 1, u64v(1), u64v(2),
                                             dev::WASI_FSTFLAG_ATIM | dev::WASI_FSTFLAG_MTIM, g.now, b, p);
  }),
            0u);
  st = g.stat("f").second;
  EXPECT_EQ(field64(st, 40), 1u);
  EXPECT_EQ(field64(st, 48), 2u);
  EXPECT_EQ(field64(st, 56), 9'000'000'000ull);
  // Creating a name updates the directory's mtime.
  g.now = u64v(11'000'000'000ull);
  ASSERT_EQ(g.mkdir("d"), 0u);
  EXPECT_EQ(field64(g.stat(".").second, 48), 11'000'000'000ull);
  EXPECT_EQ(field64(g.stat("d").second, 40), 11'000'000'000ull);
}

TEST(WasiFs, ClocksArgsEnvironAndProcess) {
  WasiConfig config;
  config.args = {"prog", "the \"second\" arg", ""};
  config.env = {"A=1", "PATH=/bin"};
  config.clock_resolution_ns = 1000;
  Guest g(config);
  ASSERT_EQ(dev::wasi_args_sizes_get(kOut, kOut + 4), 0u);
  EXPECT_EQ(g.u32(kOut), 3u);
  EXPECT_EQ(g.u32(kOut + 4), 5u + 17u + 1u);
  ASSERT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_args_get(kIovecs, kData, b, p); }), 0u);
  EXPECT_EQ(g.u32(kIovecs), kData);
  EXPECT_EQ(g.u32(kIovecs + 4), kData + 5);
  EXPECT_EQ(g.u32(kIovecs + 8), kData + 22);
  EXPECT_EQ(g.get(kData, 23), std::string("prog\0the \"second\" arg\0\0", 23));
  ASSERT_EQ(dev::wasi_environ_sizes_get(kOut, kOut + 4), 0u);
  EXPECT_EQ(g.u32(kOut), 2u);
  EXPECT_EQ(g.u32(kOut + 4), 14u);
  ASSERT_EQ(g.run([&](uint b, uint& p) { return dev::wasi_environ_get(kIovecs, kData, b, p); }), 0u);
  EXPECT_EQ(g.get(kData, 14), std::string("A=1\0PATH=/bin\0", 14));
  EXPECT_EQ(g.u32(kIovecs + 4), kData + 4);
  // Clocks: every id reads the caller's virtual time; resolution from the configuration.
  for (uint id = 0; id < 4; ++id) {
    EXPECT_EQ(dev::wasi_clock_res_get(id, kOut), 0u);
    EXPECT_EQ(g.u64(kOut), 1000u);
    EXPECT_EQ(dev::wasi_clock_time_get(id, u64v(0), kOut, u64v(0x123456789ull)), 0u);
    EXPECT_EQ(g.u64(kOut), 0x123456789ull);
  }
  EXPECT_EQ(dev::wasi_clock_res_get(4, kOut), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(dev::wasi_clock_time_get(9, u64v(0), kOut, g.now), dev::WASI_ERRNO_INVAL);
  // Process: private statuses; the inspection API reads them back.
  EXPECT_EQ(wasm::wasi_exit_status(g.region).kind, wasm::WasiExitKind::kRunning);
  EXPECT_EQ(dev::wasi_proc_raise(0), 0u);
  EXPECT_EQ(dev::wasi_proc_raise(31), dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(dev::wasi_proc_raise(15), dev::WASI_STATUS_RAISE);
  EXPECT_EQ(wasm::wasi_exit_status(g.region).kind, wasm::WasiExitKind::kSignalled);
  EXPECT_EQ(wasm::wasi_exit_status(g.region).value, 15u);
  EXPECT_EQ(dev::wasi_proc_exit(33), dev::WASI_STATUS_EXIT);
  EXPECT_EQ(wasm::wasi_exit_status(g.region).kind, wasm::WasiExitKind::kExited);
  EXPECT_EQ(wasm::wasi_exit_status(g.region).value, 33u);
}

// Subscriptions at kIovecs (48 bytes each), events at kData.
void subscribe_clock(Guest& g, uint i, std::uint64_t userdata, uint clock, std::uint64_t timeout, uint flags) {
  const uint at = kIovecs + 48 * i;
  g.put(at, std::string(48, '\0'));
  g.put_u32(at, static_cast<uint>(userdata));
  g.put_u32(at + 4, static_cast<uint>(userdata >> 32));
  g.put(at + 8, std::string(1, static_cast<char>(dev::WASI_EVENTTYPE_CLOCK)));
  g.put_u32(at + 16, clock);
  g.put_u32(at + 24, static_cast<uint>(timeout));
  g.put_u32(at + 28, static_cast<uint>(timeout >> 32));
  g.put(at + 40, std::string(1, static_cast<char>(flags)));
}

void subscribe_fd(Guest& g, uint i, std::uint64_t userdata, uint type, uint fd) {
  const uint at = kIovecs + 48 * i;
  g.put(at, std::string(48, '\0'));
  g.put_u32(at, static_cast<uint>(userdata));
  g.put(at + 8, std::string(1, static_cast<char>(type)));
  g.put_u32(at + 16, fd);
}

struct Polled {
  uint err;
  uint count;
  std::uint64_t advance;
  std::vector<std::pair<std::uint64_t, uint>> events;  // userdata, type
  std::vector<std::uint64_t> nbytes;
};

Polled poll(Guest& g, uint n, std::uint64_t now) {
  Polled r{};
  uvec2 advance(0u, 0u);
  r.err =
      g.run([&](uint b, uint& p) { return dev::wasi_poll_oneoff(kIovecs, kData, n, kOut, u64v(now), advance, b, p); });
  r.advance = advance.x | (std::uint64_t{advance.y} << 32);
  r.count = g.u32(kOut);
  for (uint e = 0; r.err == 0 && e < r.count; ++e) {
    r.events.emplace_back(g.u64(kData + 32 * e), g.u8(kData + 32 * e + 10));
    EXPECT_EQ(g.u8(kData + 32 * e + 8), 0u);  // error
    r.nbytes.push_back(g.u64(kData + 32 * e + 16));
  }
  return r;
}

TEST(WasiFs, PollOneoff) {
  WasiConfig config;
  config.stdin_bytes = "12345";
  config.storage_size = 100;
  Guest g(config);
  // Only clocks: the earliest deadline fires (relative and absolute alike) and the clock must
  // advance to it.
  subscribe_clock(g, 0, 10, 1, 500, 0);                            // now + 500
  subscribe_clock(g, 1, 11, 0, 1200, dev::WASI_SUBCLOCK_ABSTIME);  // at 1200
  subscribe_clock(g, 2, 12, 1, 200, 0);                            // now + 200 = 1200
  Polled r = poll(g, 3, 1000);
  ASSERT_EQ(r.err, 0u);
  EXPECT_EQ(r.advance, 1200u);
  EXPECT_EQ(r.events, (std::vector<std::pair<std::uint64_t, uint>>{{11, 0}, {12, 0}}));
  // A deadline already passed: no advance.
  subscribe_clock(g, 0, 20, 0, 10, dev::WASI_SUBCLOCK_ABSTIME);
  r = poll(g, 1, 1000);
  EXPECT_EQ(r.advance, 1000u);
  EXPECT_EQ(r.count, 1u);
  // Descriptors are always ready; with them only expired clocks are reported and time stays.
  subscribe_fd(g, 0, 30, dev::WASI_EVENTTYPE_FD_READ, 0);
  subscribe_fd(g, 1, 31, dev::WASI_EVENTTYPE_FD_WRITE, 1);
  subscribe_clock(g, 2, 32, 1, 1'000'000, 0);
  subscribe_clock(g, 3, 33, 1, 0, 0);
  r = poll(g, 4, 1000);
  ASSERT_EQ(r.err, 0u);
  EXPECT_EQ(r.advance, 1000u);
  EXPECT_EQ(r.events, (std::vector<std::pair<std::uint64_t, uint>>{{30, 1}, {31, 2}, {33, 0}}));
  EXPECT_EQ(r.nbytes[0], 5u);        // stdin bytes left
  EXPECT_EQ(r.nbytes[1], 100u - 5);  // storage left
  // Errors for the whole call, before any event: closed fd, directory, bad clock, bad tag,
  // no subscriptions, out of bounds.
  subscribe_fd(g, 0, 40, dev::WASI_EVENTTYPE_FD_READ, 9);
  EXPECT_EQ(poll(g, 1, 0).err, dev::WASI_ERRNO_BADF);
  subscribe_fd(g, 0, 40, dev::WASI_EVENTTYPE_FD_READ, 3);
  EXPECT_EQ(poll(g, 1, 0).err, dev::WASI_ERRNO_BADF);
  subscribe_clock(g, 0, 40, 4, 0, 0);
  EXPECT_EQ(poll(g, 1, 0).err, dev::WASI_ERRNO_INVAL);
  subscribe_fd(g, 0, 40, 3, 1);
  EXPECT_EQ(poll(g, 1, 0).err, dev::WASI_ERRNO_INVAL);
  EXPECT_EQ(poll(g, 0, 0).err, dev::WASI_ERRNO_INVAL);
  uvec2 advance(0u, 0u);
  EXPECT_EQ(
      g.run([&](uint b, uint& p) { return dev::wasi_poll_oneoff(kIovecs, 65536 - 40, 2, kOut, g.now, advance, b, p); }),
      dev::WASI_ERRNO_FAULT);
  // A relative timeout that would overflow saturates.
  subscribe_clock(g, 0, 50, 1, ~0ull, 0);
  r = poll(g, 1, 10);
  EXPECT_EQ(r.advance, ~0ull);
}

}  // namespace
}  // namespace wavestack::wasi_test
