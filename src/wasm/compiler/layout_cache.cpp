#include "wasm/compiler/layout_cache.hpp"

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "runtime/disk_cache.hpp"

namespace wavestack::wasm::compiler {
namespace {

constexpr std::uint32_t kFormat = 1;
constexpr const char* kCacheKind = "wasm-layout";

class Writer {
 public:
  void u32(std::uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<char>((value >> (8 * i)) & 0xFFU));
  }
  void u64(std::uint64_t value) {
    u32(static_cast<std::uint32_t>(value));
    u32(static_cast<std::uint32_t>(value >> 32));
  }
  void words(const std::vector<std::uint32_t>& values) {
    u32(static_cast<std::uint32_t>(values.size()));
    for (const std::uint32_t value : values) u32(value);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool u32(std::uint32_t& value) {
    if (bytes_.size() - at_ < 4) return false;
    value = 0;
    for (int i = 0; i < 4; ++i) value |= std::uint32_t{static_cast<unsigned char>(bytes_[at_ + i])} << (8 * i);
    at_ += 4;
    return true;
  }
  bool u64(std::uint64_t& value) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    if (!u32(low) || !u32(high)) return false;
    value = (std::uint64_t{high} << 32) | low;
    return true;
  }
  // A count of items of at least `item_bytes` each: never more than the bytes left allow.
  bool count(std::uint32_t& value, std::size_t item_bytes) {
    return u32(value) && std::size_t{value} * item_bytes <= bytes_.size() - at_;
  }
  bool words(std::vector<std::uint32_t>& values) {
    std::uint32_t size = 0;
    if (!count(size, 4)) return false;
    values.resize(size);
    for (std::uint32_t& value : values) {
      if (!u32(value)) return false;
    }
    return true;
  }
  [[nodiscard]] bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

constexpr std::uint32_t kLastTerminator = static_cast<std::uint32_t>(Terminator::kCallIndirect);

// What the code that reads a layout relies on: every block's address leads back to it, and
// every block id a block or a jump table names exists.
bool consistent(const CompiledLayout& layout) {
  const std::size_t blocks = layout.block_addresses.size();
  for (std::size_t id = 0; id < blocks; ++id) {
    const BlockAddress& address = layout.block_addresses[id];
    if (address.unit >= layout.units.size() || address.index >= layout.units[address.unit].blocks.size()) return false;
    if (layout.units[address.unit].blocks[address.index].id != id) return false;
  }
  for (const Unit& unit : layout.units) {
    for (const CompiledBlock& block : unit.blocks) {
      if (block.id >= blocks) return false;
      for (const std::uint32_t successor : block.successors) {
        if (successor > blocks) return false;  // (one past the last: the ENTRY id)
      }
      if (std::size_t{block.table_begin} + block.table_size > layout.jump_tables.size()) return false;
    }
  }
  for (const std::uint32_t target : layout.jump_tables) {
    if (target >= blocks) return false;
  }
  for (const std::uint32_t entry : layout.function_entries) {
    if (entry >= blocks) return false;
  }
  return true;
}

}  // namespace

std::string serialize_layout(const CompiledLayout& layout) {
  Writer out;
  out.u32(kFormat);
  out.u32(static_cast<std::uint32_t>(layout.units.size()));
  for (const Unit& unit : layout.units) {
    out.words(unit.functions);
    out.u32(unit.instruction_count);
    out.u64(unit.source_bytes);
    out.u32(static_cast<std::uint32_t>(unit.blocks.size()));
    for (const CompiledBlock& block : unit.blocks) {
      out.u32(block.id);
      out.u32(block.function);
      out.u32(block.begin);
      out.u32(block.end);
      out.u32(block.instruction_count);
      out.u32(static_cast<std::uint32_t>(block.terminator));
      out.u32(block.ends_in_call ? 1U : 0U);
      out.words(block.successors);
      out.u32(block.table_begin);
      out.u32(block.table_size);
    }
  }
  out.u32(static_cast<std::uint32_t>(layout.block_addresses.size()));
  for (const BlockAddress& address : layout.block_addresses) {
    out.u32(address.unit);
    out.u32(address.index);
  }
  out.words(layout.function_entries);
  out.words(layout.jump_tables);
  return out.take();
}

std::optional<CompiledLayout> deserialize_layout(std::string_view bytes) {
  Reader in(bytes);
  CompiledLayout layout;
  std::uint32_t format = 0;
  std::uint32_t units = 0;
  if (!in.u32(format) || format != kFormat || !in.count(units, 20)) return std::nullopt;
  layout.units.resize(units);
  for (Unit& unit : layout.units) {
    std::uint32_t blocks = 0;
    if (!in.words(unit.functions) || !in.u32(unit.instruction_count)) return std::nullopt;
    std::uint64_t source_bytes = 0;
    if (!in.u64(source_bytes) || !in.count(blocks, 44)) return std::nullopt;
    unit.source_bytes = static_cast<std::size_t>(source_bytes);
    unit.blocks.resize(blocks);
    for (CompiledBlock& block : unit.blocks) {
      std::uint32_t terminator = 0;
      std::uint32_t ends_in_call = 0;
      if (!in.u32(block.id) || !in.u32(block.function) || !in.u32(block.begin) || !in.u32(block.end) ||
          !in.u32(block.instruction_count) || !in.u32(terminator) || terminator > kLastTerminator ||
          !in.u32(ends_in_call) || ends_in_call > 1 || !in.words(block.successors) || !in.u32(block.table_begin) ||
          !in.u32(block.table_size)) {
        return std::nullopt;
      }
      block.terminator = static_cast<Terminator>(terminator);
      block.ends_in_call = ends_in_call == 1;
    }
  }
  std::uint32_t addresses = 0;
  if (!in.count(addresses, 8)) return std::nullopt;
  layout.block_addresses.resize(addresses);
  for (BlockAddress& address : layout.block_addresses) {
    if (!in.u32(address.unit) || !in.u32(address.index)) return std::nullopt;
  }
  if (!in.words(layout.function_entries) || !in.words(layout.jump_tables) || !in.done()) return std::nullopt;
  if (!consistent(layout)) return std::nullopt;
  return layout;
}

std::optional<CompiledLayout> load_cached_layout(const std::string& key) {
  const auto entry = runtime::DiskCache().load(kCacheKind, key);
  const std::string header = key + "\n";
  if (!entry || entry->size() < header.size() || std::memcmp(entry->data(), header.data(), header.size()) != 0) {
    return std::nullopt;
  }
  return deserialize_layout(
      std::string_view(reinterpret_cast<const char*>(entry->data()) + header.size(), entry->size() - header.size()));
}

void store_cached_layout(const std::string& key, const CompiledLayout& layout) {
  const std::string entry = key + "\n" + serialize_layout(layout);
  (void)runtime::DiskCache().store(
      kCacheKind, key, std::span<const std::byte>(reinterpret_cast<const std::byte*>(entry.data()), entry.size()));
}

}  // namespace wavestack::wasm::compiler
