// A cursor over a slice of the module's bytes. Every read is bounds-checked and every
// failure is a MalformedModule carrying the absolute byte offset. A section or function
// body gets its own reader limited to its declared size, so running past it reports
// "unexpected end of section or function" (as the spec's tests word it) rather than
// reading into the next section.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace wavestack::wasm {

class ByteReader {
 public:
  // `data` points at the whole module; the reader covers [begin, end).
  ByteReader(const std::uint8_t* data, std::size_t begin, std::size_t end, const char* end_reason);

  [[nodiscard]] std::size_t offset() const noexcept { return position_; }
  [[nodiscard]] std::size_t end() const noexcept { return end_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return end_ - position_; }
  [[nodiscard]] bool at_end() const noexcept { return position_ >= end_; }

  std::uint8_t u8();
  [[nodiscard]] std::uint8_t peek_u8() const;
  std::uint32_t u32();        // unsigned LEB128, 32 bits
  std::int32_t s32();         // signed LEB128, 32 bits
  std::int64_t s33();         // signed LEB128, 33 bits (block types)
  std::int64_t s64();         // signed LEB128, 64 bits
  std::uint32_t fixed_u32();  // little-endian, 4 bytes (f32 bit patterns, the version)
  std::uint64_t fixed_u64();  // little-endian, 8 bytes (f64 bit patterns)
  std::string name();         // u32 length + UTF-8 bytes, validated
  // Claims `length` bytes (checked against the end: "length out of bounds") and returns
  // a reader over them; this reader moves past them.
  ByteReader take(std::size_t length, const char* end_reason);
  void skip(std::size_t length);
  [[nodiscard]] const std::uint8_t* data() const noexcept { return data_; }

  [[noreturn]] void fail(const std::string& reason) const;
  [[noreturn]] void fail_at(std::size_t offset, const std::string& reason) const;

 private:
  std::uint64_t leb(unsigned bits, bool is_signed);

  const std::uint8_t* data_;
  std::size_t position_;
  std::size_t end_;
  const char* end_reason_;
};

}  // namespace wavestack::wasm
