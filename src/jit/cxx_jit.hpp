// The in-process C++ compiler: clang's frontend and LLVM's code generator and ORC JIT linker,
// in a shared library of its own (clang_jit.cpp) that jit_loader.hpp loads on first use, so
// that importing a package never loads LLVM. A client gives a preamble (compiled once per
// process into a precompiled header held in memory) and translation units that follow it;
// each unit becomes an object file, which the client may cache, and objects are linked into
// the process. It needs no system headers: preamble and units must include none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wavestack::jit {

// kFast: the few cheap passes that turn the frontend's memory traffic into registers, and
// LLVM's fast instruction selector and register allocator (a first tier: milliseconds per
// unit). kOptimized: LLVM's -O3 pipeline and code generator.
enum class OptLevel : std::uint8_t { kFast, kOptimized };

// Where the functions a preamble defines get their code. kInEveryUnit: in each unit that uses
// them (as for any header), so that the optimiser can inline them. kShared: once, in the
// object compile_preamble_object() makes of the preamble, which load_shared() links in before
// any such unit; units only call them (the preamble must give them external linkage: no
// anonymous namespace). Then a unit costs the frontend and code generator only its own code:
// the runtime every unit calls was about a third of a small unit's build.
enum class PreambleCode : std::uint8_t { kInEveryUnit, kShared };

class CxxJit {
 public:
  CxxJit() = default;
  CxxJit(const CxxJit&) = delete;
  CxxJit& operator=(const CxxJit&) = delete;
  virtual ~CxxJit() = default;

  // What an object depends on besides its source and level: the compiler's version, the
  // target and the host processor (part of every cache key of its objects).
  [[nodiscard]] virtual const std::string& identity() const = 0;

  // Compiles `source` as C++20 after `preamble` into an ELF relocatable object. The preamble
  // is precompiled on its first use and found again by its address and size, so it must stay
  // alive and unchanged for the process's life. Thread-safe: units compile in parallel.
  // Throws std::runtime_error with the compiler's messages when the source does not compile.
  // Returns an empty string when cancel_running() was called during the build.
  [[nodiscard]] virtual std::string compile(std::string_view preamble, std::string_view source, OptLevel level,
                                            PreambleCode code = PreambleCode::kInEveryUnit) = 0;

  // The object of `preamble`'s functions for units compiled with PreambleCode::kShared, built
  // at the fast level. Throws std::runtime_error as compile() does.
  [[nodiscard]] virtual std::string compile_preamble_object(std::string_view preamble) = 0;

  // Links `object` (compile_preamble_object's) so that every unit loaded after it resolves
  // its symbols there. Once per preamble and process: a second copy of the same symbols is an
  // error. Throws std::runtime_error when the object cannot be linked.
  virtual void load_shared(std::string_view object) = 0;

  // Makes the builds running now finish soon, with an empty result: their remaining optional
  // passes are skipped (an exiting process waits for them, since LLVM's static objects must
  // outlive them; the frontend and instruction selection still run).
  virtual void cancel_running() = 0;

  // Links `object` into the process (its code stays for the process's life) and returns the
  // addresses of `symbols` in order. Thread-safe. Throws std::runtime_error when the object
  // cannot be linked or lacks a symbol.
  [[nodiscard]] virtual std::vector<void*> load(std::string_view object, std::span<const char* const> symbols) = 0;
};

}  // namespace wavestack::jit

// The library's one entry point: a new compiler, or null with the reason in `error`.
extern "C" wavestack::jit::CxxJit* wavestack_jit_create(char* error, std::size_t error_size);
