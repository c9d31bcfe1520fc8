// An array of 32-bit words that starts zero without being written. Large arrays come straight
// from the kernel's zero pages, so only the pages that are written are ever committed: a
// spawn's templates are tens of MiB (a WASI region's block store, the value stack) and mostly
// zero, and writing them whole cost a WASI spawn on the cpu device 0.1 s.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wavestack::runtime {

// A contiguous range: std::span views it (begin, end, data, size).
class ZeroedWords {
 public:
  ZeroedWords() = default;
  explicit ZeroedWords(std::size_t count);
  ZeroedWords(const ZeroedWords&) = delete;
  ZeroedWords& operator=(const ZeroedWords&) = delete;
  ZeroedWords(ZeroedWords&& other) noexcept;
  ZeroedWords& operator=(ZeroedWords&& other) noexcept;
  ~ZeroedWords();

  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] bool empty() const noexcept { return count_ == 0; }
  [[nodiscard]] std::uint32_t* data() noexcept { return words_; }
  [[nodiscard]] const std::uint32_t* data() const noexcept { return words_; }
  std::uint32_t& operator[](std::size_t i) noexcept { return words_[i]; }
  const std::uint32_t& operator[](std::size_t i) const noexcept { return words_[i]; }
  [[nodiscard]] std::uint32_t* begin() noexcept { return words_; }
  [[nodiscard]] std::uint32_t* end() noexcept { return words_ + count_; }
  [[nodiscard]] const std::uint32_t* begin() const noexcept { return words_; }
  [[nodiscard]] const std::uint32_t* end() const noexcept { return words_ + count_; }
  // Words at or past zero_from() are zero: a writer that knows how far it wrote says so, and
  // readers look only at the words before it (reading the rest would map every page).
  [[nodiscard]] std::size_t zero_from() const noexcept { return zero_from_; }
  void set_zero_from(std::size_t first) noexcept { zero_from_ = first < count_ ? first : count_; }
  // A copy as an ordinary vector (every page read: for small arrays and tests).
  [[nodiscard]] std::vector<std::uint32_t> to_vector() const { return {begin(), end()}; }

 private:
  void release() noexcept;

  std::uint32_t* words_ = nullptr;
  std::size_t count_ = 0;
  std::size_t zero_from_ = 0;
  bool mapped_ = false;  // from mmap (large), else from calloc
};

// Commits the pages of [begin, begin + bytes) for writing in one system call where the range is
// large (Linux 5.14's MADV_POPULATE_WRITE), instead of one page fault per 4 KiB page as a copy
// into fresh zero pages takes them (in a virtual machine a fault costs microseconds: a spawn
// that copies a WASI region of 11 MB of files spent a quarter of its time faulting). Only for
// ranges that are about to be written whole; elsewhere, and for small ranges, a no-op.
void populate_for_writing(void* begin, std::size_t bytes) noexcept;

}  // namespace wavestack::runtime
