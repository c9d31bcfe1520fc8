#include "wasm/wasi/wasi_config.hpp"

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "runtime/error.hpp"
#include "wasm/device/numerics.hpp"
#include "wasm/module/resource_limit.hpp"

namespace wavestack::wasm::device {
namespace {

// The image being built. The builder runs the device library itself (the file-system part),
// so the initial tree is laid out exactly as the device code would lay it out.
thread_local std::uint32_t* building = nullptr;
thread_local std::size_t building_end = 0;  // one past the highest word the library wrote

uint wasi_get(uint w) {
  return building[w];
}
void wasi_set(uint w, uint v) {
  building[w] = v;
  building_end = std::max<std::size_t>(building_end, std::size_t{w} + 1);
}

#define WAVESTACK_WASI_FS_ONLY
#include "wasm/device/wasi_library.hpp"
#undef WAVESTACK_WASI_FS_ONLY

}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasm {
namespace {

namespace dev = device;
using runtime::InvalidArgument;

constexpr std::uint64_t kMaxStorage = std::uint64_t{1} << 30;
constexpr std::uint32_t kMaxTableRecords = 1u << 20;

std::uint32_t words_for_bytes(std::size_t bytes) {
  return static_cast<std::uint32_t>((bytes + 3) / 4);
}

std::uint32_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>((a + b - 1) / b);
}

void check_strings(const std::vector<std::string>& strings, const char* field, bool need_equals) {
  for (const std::string& s : strings) {
    if (s.find('\0') != std::string::npos) throw InvalidArgument(field, "contains a NUL byte");
    if (need_equals && s.find('=') == std::string::npos) throw InvalidArgument(field, "\"" + s + "\" is not KEY=VALUE");
  }
}

// The components of a configured file path; throws for anything but a plain relative path.
std::vector<std::string_view> split_path(std::string_view path) {
  auto bad = [&](const std::string& why) { return InvalidArgument("files", "\"" + std::string(path) + "\" " + why); };
  if (path.empty()) throw bad("is empty");
  if (path.size() > dev::WASI_NAME_MAX) throw bad("is longer than 255 bytes");
  if (path.front() == '/') throw bad("is absolute");
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) throw bad("has an empty component");
    if (part == "." || part == "..") throw bad("has a \".\" or \"..\" component");
    if (part.find('\0') != std::string_view::npos) throw bad("contains a NUL byte");
    parts.push_back(part);
    start = end + 1;
  }
  return parts;
}

// Puts a name into path buffer A at byte 0 (the device lookup reads names from the region).
void stage_name(std::string_view name) {
  const dev::uint base = dev::wasi_path_base(0u);
  for (std::size_t k = 0; k < name.size(); ++k) {
    dev::wasi_region_set_byte(base, static_cast<dev::uint>(k), static_cast<unsigned char>(name[k]));
  }
}

// Writes `bytes` as the whole content of inode i (empty before).
void store_content(dev::uint i, std::string_view bytes) {
  dev::WasiWork work = dev::wasi_work(0xFFFFFFFFu);
  dev::wasi_content_grow(i, static_cast<dev::uint>(bytes.size()), work);
  for (std::size_t pos = 0; pos < bytes.size(); pos += dev::WASI_BLOCK_BYTES) {
    const dev::uint base = dev::wasi_block_addr(dev::wasi_content_block(i, static_cast<dev::uint>(pos)));
    const std::size_t n = std::min<std::size_t>(dev::WASI_BLOCK_BYTES, bytes.size() - pos);
    for (std::size_t k = 0; k < n; ++k) {
      dev::wasi_region_set_byte(base, static_cast<dev::uint>(k), static_cast<unsigned char>(bytes[pos + k]));
    }
  }
}

// Creates the file at `parts` (and the directories above it) with `content`, all times `now`.
void create_file(const std::vector<std::string_view>& parts, std::string_view path, std::string_view content,
                 dev::uvec2 now) {
  dev::uint dir = dev::WASI_INODE_ROOT;
  const dev::uint base = dev::wasi_path_base(0u);
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const std::string_view name = parts[p];
    const bool last = p + 1 == parts.size();
    stage_name(name);
    const auto len = static_cast<dev::uint>(name.size());
    if (!dev::wasi_utf8_ok(base, 0u, len)) {
      throw InvalidArgument("files", "\"" + std::string(path) + "\" is not valid UTF-8");
    }
    const dev::uint hash = dev::wasi_name_hash(dir, base, 0u, len);
    const dev::uint d = dev::wasi_dir_lookup(dir, base, 0u, len, hash);
    if (d != dev::WASI_NONE) {
      const dev::uint child = dev::wasi_dget(d, dev::WASI_D_INODE);
      if (last || dev::wasi_ikind(child) != dev::WASI_KIND_DIR) {
        throw InvalidArgument("files", "\"" + std::string(path) + "\" collides with another entry");
      }
      dir = child;
      continue;
    }
    if (!dev::wasi_inode_available() || !dev::wasi_dent_available()) {
      throw InvalidArgument("max_files", "too small for the files and the directories they imply (4 are reserved)");
    }
    const dev::uint child = dev::wasi_inode_alloc(last ? dev::WASI_KIND_FILE : dev::WASI_KIND_DIR, now);
    dev::wasi_dir_add(dir, child, base, 0u, len, hash, now);
    if (last) store_content(child, content);
    dir = child;
  }
}

void put_bytes(std::span<std::uint32_t> region, std::uint32_t base, std::string_view bytes) {
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    region[base + k / 4] |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])) << (8 * (k % 4));
  }
}

// The argument or environment block: offsets table, then the NUL-terminated strings.
std::uint32_t put_strings(std::span<std::uint32_t> region, std::uint32_t at, std::uint32_t header,
                          const std::vector<std::string>& strings) {
  std::uint32_t bytes = 0;
  const auto count = static_cast<std::uint32_t>(strings.size());
  const std::uint32_t data = at + count;
  std::string joined;
  for (std::uint32_t i = 0; i < count; ++i) {
    region[at + i] = bytes;
    joined += strings[i];
    joined += '\0';
    bytes = static_cast<std::uint32_t>(joined.size());
  }
  put_bytes(region, data, joined);
  region[header] = count;
  region[header + 1] = bytes;
  region[header + 2] = at;
  region[header + 3] = data;
  return data + words_for_bytes(joined.size());
}

std::size_t strings_words(const std::vector<std::string>& strings) {
  std::size_t bytes = 0;
  for (const std::string& s : strings) bytes += s.size() + 1;
  return strings.size() + (bytes + 3) / 4;
}

}  // namespace

runtime::ZeroedWords build_wasi_region(const WasiConfig& config) {
  check_strings(config.args, "args", false);
  check_strings(config.env, "env", true);
  if (config.preopen.empty() || config.preopen.size() > dev::WASI_NAME_MAX ||
      config.preopen.find('\0') != std::string::npos) {
    throw InvalidArgument("preopen", "must be 1 to 255 bytes without NUL");
  }
  // Below the minimum is a bad argument (ValueError); above what one instance's region can hold
  // is a resource limit (ResourceLimitError), as the original package classes them.
  if (config.max_files < dev::WASI_RESERVED_INODES) {
    throw InvalidArgument("max_files", "must be at least 4 (4 entries are reserved)");
  }
  if (config.max_files > kMaxTableRecords) {
    throw ResourceLimit("max_files: " + std::to_string(config.max_files) +
                        " inodes exceed what one instance's file system holds (at most 2^20); lower max_files");
  }
  if (config.max_fds < 4) throw InvalidArgument("max_fds", "must be at least 4 (fds 0..3 are reserved)");
  if (config.max_fds > kMaxTableRecords) {
    throw ResourceLimit("max_fds: " + std::to_string(config.max_fds) +
                        " descriptors exceed what one instance holds (at most 2^20); lower max_fds");
  }
  if (config.storage_size > kMaxStorage) {
    throw ResourceLimit("storage_size: " + std::to_string(config.storage_size) +
                        " bytes exceed what one instance's file system holds (at most 2^30); lower storage_size");
  }
  if (config.clock_resolution_ns == 0) throw InvalidArgument("clock_resolution_ns", "must be at least 1");
  if (const auto* seed = std::get_if<std::uint32_t>(&config.seed); seed != nullptr && *seed == 0) {
    throw InvalidArgument("seed", "must be nonzero (or a 32-byte key)");
  }
  std::uint64_t content = config.stdin_bytes.size();
  std::vector<std::vector<std::string_view>> parts;
  for (const auto& [path, bytes] : config.files) {
    parts.push_back(split_path(path));
    content += bytes.size();
  }
  if (content > config.storage_size) {
    throw ResourceLimit("storage_size: " + std::to_string(config.storage_size) +
                        " bytes cannot hold stdin and the files (" + std::to_string(content) +
                        " bytes); raise storage_size");
  }

  // Layout (wasi_layout.glsl).
  const std::uint32_t files = config.max_files;
  std::uint32_t buckets = 16;
  while (buckets < files) buckets *= 2;
  const std::uint32_t data_blocks = ceil_div(config.storage_size, dev::WASI_BLOCK_BYTES) + files;
  const std::uint64_t blocks =
      1ull + data_blocks + ceil_div(data_blocks, 15) + std::uint64_t{dev::WASI_MAX_HEIGHT} * files;
  std::uint64_t at = dev::WASI_HEADER_WORDS;
  const std::uint64_t args_at = at;
  at += strings_words(config.args);
  const std::uint64_t env_at = at;
  at += strings_words(config.env);
  const std::uint64_t preopen_at = at;
  at += words_for_bytes(config.preopen.size());
  const std::uint64_t inodes_at = at;
  at += std::uint64_t{files} * dev::WASI_I_WORDS;
  const std::uint64_t dents_at = at;
  at += std::uint64_t{files} * dev::WASI_D_WORDS;
  const std::uint64_t buckets_at = at;
  at += buckets;
  const std::uint64_t fds_at = at;
  at += std::uint64_t{config.max_fds} * dev::WASI_FD_WORDS;
  const std::uint64_t path_a = at;
  at += dev::WASI_PATH_BUF_WORDS;
  const std::uint64_t path_b = at;
  at += dev::WASI_PATH_BUF_WORDS;
  const std::uint64_t links_at = at;
  at += blocks;
  const std::uint64_t blocks_at = at;
  at += blocks * dev::WASI_BLOCK_WORDS;
  if (at >= 0xFFFFFFFFull) {
    throw ResourceLimit("storage_size / max_files: one instance's WASI region would exceed 2^32 words; lower them");
  }

  // Zero pages: the block store (most of the region) is written only where files are.
  runtime::ZeroedWords region(static_cast<std::size_t>(at));
  auto u32 = [](std::uint64_t v) { return static_cast<std::uint32_t>(v); };
  region[dev::WASI_H_MAGIC] = dev::WASI_MAGIC;
  region[dev::WASI_H_WORDS] = u32(at);
  region[dev::WASI_H_LAYOUT] = dev::WASI_LAYOUT_VERSION;
  region[dev::WASI_H_CLOCK_RES] = u32(config.clock_resolution_ns);
  region[dev::WASI_H_CLOCK_RES + 1] = u32(config.clock_resolution_ns >> 32);
  region[dev::WASI_H_CLOCK_EPOCH] = u32(config.clock_epoch_ns);
  region[dev::WASI_H_CLOCK_EPOCH + 1] = u32(config.clock_epoch_ns >> 32);
  if (const auto* seed = std::get_if<std::uint32_t>(&config.seed)) {
    region[dev::WASI_H_KEY] = *seed;
  } else {
    const auto& key = std::get<std::array<std::uint8_t, 32>>(config.seed);
    for (std::size_t k = 0; k < key.size(); ++k)
      region[dev::WASI_H_KEY + k / 4] |= std::uint32_t{key[k]} << (8 * (k % 4));
  }
  put_strings(region, u32(args_at), dev::WASI_H_ARGC, config.args);
  put_strings(region, u32(env_at), dev::WASI_H_ENVC, config.env);
  region[dev::WASI_H_PREOPEN_LEN] = u32(config.preopen.size());
  region[dev::WASI_H_PREOPEN] = u32(preopen_at);
  put_bytes(region, u32(preopen_at), config.preopen);
  region[dev::WASI_H_INODES] = u32(inodes_at);
  region[dev::WASI_H_INODE_COUNT] = files;
  region[dev::WASI_H_DENTS] = u32(dents_at);
  region[dev::WASI_H_DENT_COUNT] = files;
  region[dev::WASI_H_BUCKETS] = u32(buckets_at);
  region[dev::WASI_H_BUCKET_MASK] = buckets - 1;
  region[dev::WASI_H_FDS] = u32(fds_at);
  region[dev::WASI_H_FD_COUNT] = config.max_fds;
  region[dev::WASI_H_PATH_A] = u32(path_a);
  region[dev::WASI_H_PATH_B] = u32(path_b);
  region[dev::WASI_H_BLOCK_LINKS] = u32(links_at);
  region[dev::WASI_H_BLOCKS] = u32(blocks_at);
  region[dev::WASI_H_BLOCK_COUNT] = u32(blocks);
  region[dev::WASI_H_QUOTA] = config.storage_size;
  // Free lists: inodes 4.., every dentry, blocks 1.. in ascending order.
  for (std::uint32_t i = dev::WASI_RESERVED_INODES; i < files; ++i) {
    region[inodes_at + std::uint64_t{i} * dev::WASI_I_WORDS + dev::WASI_I_LINK] =
        i + 1 < files ? i + 1 : dev::WASI_NONE;
  }
  region[dev::WASI_H_INODE_FREE] = files > dev::WASI_RESERVED_INODES ? dev::WASI_RESERVED_INODES : dev::WASI_NONE;
  for (std::uint32_t d = 0; d < files; ++d) {
    const std::uint64_t rec = dents_at + std::uint64_t{d} * dev::WASI_D_WORDS;
    region[rec + dev::WASI_D_PARENT] = dev::WASI_NONE;
    region[rec + dev::WASI_D_NEXT] = d + 1 < files ? d + 1 : dev::WASI_NONE;
  }
  region[dev::WASI_H_DENT_FREE] = 0;
  std::fill_n(region.begin() + static_cast<std::ptrdiff_t>(buckets_at), buckets, dev::WASI_NONE);
  for (std::uint32_t fd = 0; fd < config.max_fds; ++fd) {
    region[fds_at + std::uint64_t{fd} * dev::WASI_FD_WORDS + dev::WASI_F_INODE] = dev::WASI_NONE;
  }
  for (std::uint64_t b = 1; b < blocks; ++b) region[links_at + b] = b + 1 < blocks ? u32(b + 1) : 0u;
  region[dev::WASI_H_FREE_HEAD] = blocks > 1 ? 1u : 0u;

  // The reserved inodes and descriptors, then the files, through the device library.
  dev::building = region.data();
  dev::building_end = 0;
  const dev::uvec2 now(u32(config.clock_epoch_ns), u32(config.clock_epoch_ns >> 32));
  for (dev::uint i = 0; i < dev::WASI_RESERVED_INODES; ++i) {
    for (dev::uint f = 0; f < dev::WASI_I_WORDS; ++f) dev::wasi_iset(i, f, 0u);
    const bool root = i == dev::WASI_INODE_ROOT;
    dev::wasi_iset(i, dev::WASI_I_KIND, root ? dev::WASI_KIND_DIR : dev::WASI_KIND_STREAM);
    dev::wasi_iset(i, dev::WASI_I_NLINK, 1u);  // pinned: reserved inodes are never freed
    dev::wasi_iset(i, dev::WASI_I_DENT, dev::WASI_NONE);
    dev::wasi_iset(i, dev::WASI_I_LINK, root ? dev::WASI_INODE_ROOT : 0u);
    dev::wasi_iset64(i, dev::WASI_I_ATIM, now);
    dev::wasi_iset64(i, dev::WASI_I_MTIM, now);
    dev::wasi_iset64(i, dev::WASI_I_CTIM, now);
  }
  region[dev::WASI_H_INODES_USED] = dev::WASI_RESERVED_INODES;
  dev::wasi_fd_install(0u, dev::WASI_INODE_STDIN, 0u, dev::WASI_RIGHTS_STDIN, 0u);
  dev::wasi_fd_install(1u, dev::WASI_INODE_STDOUT, 0u, dev::WASI_RIGHTS_STDOUT, 0u);
  dev::wasi_fd_install(2u, dev::WASI_INODE_STDERR, 0u, dev::WASI_RIGHTS_STDOUT, 0u);
  if (config.preopen_root) {
    dev::wasi_fd_install(dev::WASI_PREOPEN_FD, dev::WASI_INODE_ROOT, dev::WASI_F_PREOPEN_BIT,
                         dev::WASI_RIGHTS_DIRECTORY, dev::WASI_RIGHTS_DIRECTORY | dev::WASI_RIGHTS_REGULAR);
  }
  try {
    store_content(dev::WASI_INODE_STDIN, config.stdin_bytes);
    for (std::size_t f = 0; f < config.files.size(); ++f) {
      create_file(parts[f], config.files[f].first, config.files[f].second, now);
    }
  } catch (...) {
    dev::building = nullptr;
    throw;
  }
  dev::building = nullptr;
  std::fill_n(region.begin() + static_cast<std::ptrdiff_t>(path_a), 2 * dev::WASI_PATH_BUF_WORDS, 0u);  // scratch
  // The builder's own words all lie before the block store; the library's may reach into it.
  region.set_zero_from(std::max<std::size_t>(blocks_at, dev::building_end));
  return region;
}

void set_wasi_instance(std::span<std::uint32_t> region, std::uint32_t instance) {
  region[dev::WASI_H_INSTANCE] = instance;
}

void add_wasi_file(std::vector<std::uint32_t>& region, std::string_view path, std::string_view content) {
  if (region.size() <= dev::WASI_HEADER_WORDS || region[dev::WASI_H_MAGIC] != dev::WASI_MAGIC) {
    throw std::logic_error("add_wasi_file: not a WASI region");
  }
  const std::vector<std::string_view> parts = split_path(path);
  const std::uint64_t free_bytes = std::uint64_t{region[dev::WASI_H_QUOTA]} - region[dev::WASI_H_USED];
  if (content.size() > free_bytes) {
    throw ResourceLimit("storage_size: " + std::to_string(content.size()) + " bytes do not fit the " +
                        std::to_string(free_bytes) + " left of the instance's storage_size of " +
                        std::to_string(region[dev::WASI_H_QUOTA]) + "; raise storage_size");
  }
  const dev::uvec2 now(region[dev::WASI_H_CLOCK_EPOCH], region[dev::WASI_H_CLOCK_EPOCH + 1]);
  dev::building = region.data();
  try {
    create_file(parts, path, content, now);
  } catch (...) {
    dev::building = nullptr;
    throw;
  }
  dev::building = nullptr;
  // The path buffers are the device's scratch, zero between calls (build_wasi_region).
  std::fill_n(region.begin() + region[dev::WASI_H_PATH_A], 2 * dev::WASI_PATH_BUF_WORDS, 0u);
}

}  // namespace wavestack::wasm
