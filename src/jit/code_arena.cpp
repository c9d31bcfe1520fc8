#include "jit/code_arena.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace wavestack::jit {

std::unique_ptr<CodeArena> CodeArena::create(std::size_t bytes, std::string* why_not, std::uint64_t placement) {
  const auto fail = [why_not](const char* what) -> std::unique_ptr<CodeArena> {
    if (why_not != nullptr) *why_not = std::string(what) + ": " + std::strerror(errno);
    return nullptr;
  };
  // Shared anonymous memory, so that a second mapping of the same pages can be made (mremap of
  // an old size of 0). perf takes such mappings ("/dev/zero") for anonymous ones and names their
  // code from its map (WAVESTACK_PERF_MAP); a memfd's it would not.
  void* writable = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (writable == MAP_FAILED) return fail("mmap");
  void* executable = MAP_FAILED;
  if (placement != 0) {
    void* reserved = mmap(reinterpret_cast<void*>(placement), bytes, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    // Replaces only that reservation of ours.
    if (reserved != MAP_FAILED) executable = mremap(writable, 0, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, reserved);
  }
  if (executable == MAP_FAILED) executable = mremap(writable, 0, bytes, MREMAP_MAYMOVE);
  if (executable == MAP_FAILED || mprotect(executable, bytes, PROT_READ | PROT_EXEC) != 0) {
    std::unique_ptr<CodeArena> failed = fail("a second mapping of the code's pages");
    if (executable != MAP_FAILED) munmap(executable, bytes);
    munmap(writable, bytes);
    return failed;
  }
  return std::unique_ptr<CodeArena>(
      new CodeArena(static_cast<std::byte*>(writable), reinterpret_cast<std::uint64_t>(executable), bytes));
}

std::optional<CodeSpan> CodeArena::allocate(std::size_t bytes, std::size_t alignment) {
  const std::lock_guard lock(mutex_);
  const std::size_t start = (used_ + alignment - 1) & ~(alignment - 1);
  if (start > bytes_ || bytes > bytes_ - start) return std::nullopt;
  used_ = start + bytes;
  if (used_ > populated_) populate_through(used_);
  return CodeSpan{writable_ + start, executable_ + start};
}

// Thousands of units are tens of thousands of pages, each faulted in twice (written, then run)
// at a microsecond or two a fault; populating a stretch of both views in one call each costs
// less. Where the kernel lacks MADV_POPULATE_* (before Linux 5.14) pages fault in as before.
void CodeArena::populate_through(std::size_t end) {
  const std::size_t target = std::min(bytes_, (end + kPopulateStep - 1) / kPopulateStep * kPopulateStep);
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
  const std::size_t length = target - populated_;
  (void)madvise(writable_ + populated_, length, MADV_POPULATE_WRITE);
  (void)madvise(reinterpret_cast<void*>(executable_ + populated_), length, MADV_POPULATE_READ);
#endif
  populated_ = target;
}

bool CodeArena::contains(std::uint64_t address) const {
  return address >= executable_ && address - executable_ < bytes_;
}

}  // namespace wavestack::jit
