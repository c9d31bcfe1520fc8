#include "wasm/decode/byte_reader.hpp"

#include "wasm/decode/leb128.hpp"
#include "wasm/decode/utf8.hpp"
#include "wasm/module/errors.hpp"

namespace wavestack::wasm {

ByteReader::ByteReader(const std::uint8_t* data, std::size_t begin, std::size_t end, const char* end_reason)
    : data_(data), position_(begin), end_(end), end_reason_(end_reason) {}

void ByteReader::fail(const std::string& reason) const {
  throw MalformedModule(position_, reason);
}

void ByteReader::fail_at(std::size_t offset, const std::string& reason) const {
  throw MalformedModule(offset, reason);
}

std::uint8_t ByteReader::u8() {
  if (position_ >= end_) fail(end_reason_);
  return data_[position_++];
}

std::uint8_t ByteReader::peek_u8() const {
  if (position_ >= end_) fail(end_reason_);
  return data_[position_];
}

std::uint64_t ByteReader::leb(unsigned bits, bool is_signed) {
  const LebResult result = is_signed ? decode_signed_leb128(data_ + position_, end_ - position_, bits)
                                     : decode_unsigned_leb128(data_ + position_, end_ - position_, bits);
  switch (result.status) {
    case LebStatus::kOk:
      break;
    case LebStatus::kUnexpectedEnd:
      fail_at(position_ + result.length, end_reason_);
    case LebStatus::kTooLong:
      fail_at(position_ + result.length - 1, "integer representation too long");
    case LebStatus::kTooLarge:
      fail_at(position_ + result.length - 1, "integer too large");
  }
  position_ += result.length;
  return result.value;
}

std::uint32_t ByteReader::u32() {
  return static_cast<std::uint32_t>(leb(32, false));
}
std::int32_t ByteReader::s32() {
  return static_cast<std::int32_t>(leb(32, true));
}
std::int64_t ByteReader::s33() {
  return static_cast<std::int64_t>(leb(33, true));
}
std::int64_t ByteReader::s64() {
  return static_cast<std::int64_t>(leb(64, true));
}

std::uint32_t ByteReader::fixed_u32() {
  if (remaining() < 4) fail(end_reason_);
  std::uint32_t value = 0;
  for (unsigned k = 0; k < 4; ++k) value |= std::uint32_t{data_[position_ + k]} << (8U * k);
  position_ += 4;
  return value;
}

std::uint64_t ByteReader::fixed_u64() {
  if (remaining() < 8) fail(end_reason_);
  std::uint64_t value = 0;
  for (unsigned k = 0; k < 8; ++k) value |= std::uint64_t{data_[position_ + k]} << (8U * k);
  position_ += 8;
  return value;
}

std::string ByteReader::name() {
  const std::uint32_t length = u32();
  if (length > remaining()) fail("length out of bounds");
  const std::uint8_t* bytes = data_ + position_;
  if (!is_valid_utf8(bytes, length)) fail("malformed UTF-8 encoding");
  position_ += length;
  return {reinterpret_cast<const char*>(bytes), length};
}

ByteReader ByteReader::take(std::size_t length, const char* end_reason) {
  if (length > remaining()) fail("length out of bounds");
  ByteReader inner(data_, position_, position_ + length, end_reason);
  position_ += length;
  return inner;
}

void ByteReader::skip(std::size_t length) {
  if (length > remaining()) fail("length out of bounds");
  position_ += length;
}

}  // namespace wavestack::wasm
