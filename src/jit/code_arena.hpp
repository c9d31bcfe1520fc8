// Memory for linked code that never changes protection: the same shared pages mapped twice,
// writable at one address and executable at another. Code is written through the first view
// and runs from the second, so loading an object needs no mprotect (each of which flushed the
// TLB of every core running one of the process's threads) and objects pack into the same pages
// instead of a few fresh pages each. Addresses handed out are ascending within one reservation,
// so code loaded into it reaches any other code in it with 32-bit PC-relative references.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace wavestack::jit {

// One part of an arena: where to write it and where it will run.
struct CodeSpan {
  std::byte* writable = nullptr;
  std::uint64_t executable = 0;  // the address of writable[0] in the executable view
};

class CodeArena {
 public:
  // An arena of `bytes` of address space (untouched pages cost nothing), its executable view
  // at `placement` if that is free (0: where the system likes), or null with the reason in
  // `why_not` when the system refuses the mappings (a second mapping of shared pages, executable
  // ones).
  [[nodiscard]] static std::unique_ptr<CodeArena> create(std::size_t bytes, std::string* why_not,
                                                         std::uint64_t placement = 0);

  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;
  ~CodeArena() = default;  // unmaps nothing: code stays for the process's life

  // `bytes` aligned to `alignment` (a power of two up to a page), or nothing when the arena is
  // full. Thread-safe.
  [[nodiscard]] std::optional<CodeSpan> allocate(std::size_t bytes, std::size_t alignment);

  // Whether `address` lies in this arena's executable view.
  [[nodiscard]] bool contains(std::uint64_t address) const;

 private:
  CodeArena(std::byte* writable, std::uint64_t executable, std::size_t bytes)
      : writable_(writable), executable_(executable), bytes_(bytes) {}

  std::byte* writable_;
  std::uint64_t executable_;
  std::size_t bytes_;
  static constexpr std::size_t kPopulateStep = std::size_t{2} << 20;
  void populate_through(std::size_t end);  // makes both views' pages present up to `end` and beyond

  std::mutex mutex_;
  std::size_t used_ = 0;
  std::size_t populated_ = 0;  // both views' pages are present below this
};

}  // namespace wavestack::jit
