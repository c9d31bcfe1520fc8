// A linker for the objects the in-process compiler emits, in a few tens of microseconds each:
// x86-64 ELF relocatable objects of code and read-only data whose relocations are PC-relative
// or absolute. It lays an object's sections out in a code arena (code_arena.hpp: no protection
// changes, objects packed into shared pages), resolves its undefined names against the objects
// loaded before it with `exports` (the fast tier's shared runtime) and then the process (the C
// library), and applies its relocations; a call that does not reach its target in 32 bits goes
// through a stub. JITLink did the same in about 0.2 ms an object, most of it in its generality
// (a link graph per object, a session lookup per symbol, a protection change per segment), and
// that was the bulk of a warm start that loads thousands of cached units. An object this loader
// does not handle (a writable or thread-local section, another relocation) is refused with the
// reason, for the caller to link with JITLink instead.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "jit/code_arena.hpp"

namespace wavestack::jit {

class ObjectLoader {
 public:
  // A loader, or null with the reason in `why_not` where this process cannot use one (not
  // x86-64, or no code arena). `placement`: where its first arena should be (code_arena.hpp),
  // for tests that need code far from the C library.
  [[nodiscard]] static std::unique_ptr<ObjectLoader> create(std::string* why_not, std::uint64_t placement = 0);

  ObjectLoader(const ObjectLoader&) = delete;
  ObjectLoader& operator=(const ObjectLoader&) = delete;
  ~ObjectLoader() = default;  // code stays for the process's life

  // Links `object` (named `name` in perf's map) and returns the addresses of `symbols` in
  // order; with `exports`, its global definitions serve the objects loaded after it. Returns
  // nothing, with the reason in `why_not`, when the object is not one this loader handles or
  // lacks a symbol: nothing of it is visible then. Thread-safe.
  [[nodiscard]] std::optional<std::vector<void*>> load(std::string_view object, std::string_view name,
                                                       std::span<const char* const> symbols, bool exports,
                                                       std::string* why_not);

  // The global definitions of the objects loaded with `exports`: name and address.
  [[nodiscard]] std::vector<std::pair<std::string, std::uint64_t>> exported() const;

 private:
  ObjectLoader() = default;

  class Link;  // one object's link (object_loader.cpp)

  // Where a name an object leaves undefined lives: an exported definition, else the process's
  // (dlsym), else nothing (0).
  std::uint64_t resolve(const std::string& name);
  // `bytes` of the current arena; a new arena when it is full or this process was forked from
  // the one that made it (a child writing into its parent's shared pages would change the
  // parent's code).
  std::optional<CodeSpan> allocate(std::size_t bytes, std::size_t alignment);
  // A stub in the current arena that jumps to `target` (for calls that do not reach it).
  std::optional<std::uint64_t> stub_to(std::uint64_t target);
  void publish(const std::vector<std::pair<std::string, std::uint64_t>>& definitions);

  // Guarded by one process-wide lock (object_loader.cpp: it must be held across fork()).
  std::vector<std::unique_ptr<CodeArena>> arenas_;  // the last is current
  std::uint64_t arena_fork_generation_ = 0;
  std::unordered_map<std::string, std::uint64_t> exported_;
  std::unordered_map<std::string, std::uint64_t> process_symbols_;  // dlsym's answers, 0 included
  std::unordered_map<std::uint64_t, std::uint64_t> stubs_;          // in the current arena
};

}  // namespace wavestack::jit
