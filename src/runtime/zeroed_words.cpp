#include "runtime/zeroed_words.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace wavestack::runtime {
namespace {

// From this size the words are an anonymous mapping of their own: calloc may serve a freed
// heap chunk and clear it by writing (glibc raises its mmap threshold up to 32 MiB as large
// blocks are freed), which touches every page.
constexpr std::size_t kMappedBytes = std::size_t{1} << 20;

}  // namespace

ZeroedWords::ZeroedWords(std::size_t count) : count_(count), zero_from_(count) {
  if (count == 0) return;
  const std::size_t bytes = count * sizeof(std::uint32_t);
  if (bytes >= kMappedBytes) {
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    words_ = static_cast<std::uint32_t*>(mapped);
    mapped_ = true;
  } else {
    words_ = static_cast<std::uint32_t*>(std::calloc(count, sizeof(std::uint32_t)));
    if (words_ == nullptr) throw std::bad_alloc();
  }
}

ZeroedWords::ZeroedWords(ZeroedWords&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      count_(std::exchange(other.count_, 0)),
      zero_from_(std::exchange(other.zero_from_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

ZeroedWords& ZeroedWords::operator=(ZeroedWords&& other) noexcept {
  if (this != &other) {
    release();
    words_ = std::exchange(other.words_, nullptr);
    count_ = std::exchange(other.count_, 0);
    zero_from_ = std::exchange(other.zero_from_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

ZeroedWords::~ZeroedWords() {
  release();
}

void ZeroedWords::release() noexcept {
  if (words_ == nullptr) return;
  if (mapped_) {
    munmap(words_, count_ * sizeof(std::uint32_t));
  } else {
    std::free(words_);
  }
  words_ = nullptr;
  count_ = 0;
  zero_from_ = 0;
}

void populate_for_writing(void* begin, std::size_t bytes) noexcept {
#if defined(MADV_POPULATE_WRITE)
  constexpr std::size_t kPage = 4096;
  constexpr std::size_t kWorthACall = std::size_t{64} << 10;
  if (bytes < kWorthACall) return;
  const auto first = reinterpret_cast<std::uintptr_t>(begin) / kPage * kPage;
  const auto end = (reinterpret_cast<std::uintptr_t>(begin) + bytes + kPage - 1) / kPage * kPage;
  (void)madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);  // faults as before if refused
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace wavestack::runtime
