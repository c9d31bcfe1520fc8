// What every instance of a spawn starts from, built once on the host: the program image
// (code, function table, segments and the state layout, read-only and shared by all
// instances), and the template of one instance's state and memory (globals, tables with the
// active element segments applied, memory with the active data segments applied, dropped
// flags). Instantiating is copying the template into an instance's slice, then running the
// start function on the device. docs/ARCHITECTURE.md ("Instances and the interpreter").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "runtime/zeroed_words.hpp"
#include "wasm/instances/compiled_code.hpp"
#include "wasm/load/host_modules.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm {

// What a spawn reserves per instance. The defaults are the original wasmgpu package's: enough
// memory and table room for ordinary programs (malloc grows memory), a small value stack.
struct ReserveOptions {
  // Linear memory pages; nullopt: min(declared maximum or 65535, max(initial, 16)).
  std::optional<std::uint32_t> memory_pages;
  // Entries per table; nullopt: min(maximum, max(minimum, 256)) for each table.
  std::optional<std::uint32_t> table_elements;
  std::uint32_t stack_slots = 256;  // value stack, 64-bit slots (locals, operands, two per frame)
  std::uint32_t call_depth = 64;    // nested frames; one more traps with "call stack exhausted"
};

inline constexpr std::uint32_t kDefaultMemoryPages = 16;
inline constexpr std::uint32_t kDefaultTableElements = 256;

// Words [first, first + count) of a template.
struct WordRun {
  std::size_t first = 0;
  std::size_t count = 0;
};

struct InstanceImage {
  std::vector<std::uint32_t> program;  // header (interpreter_layout.glsl) + sections
  runtime::ZeroedWords state;          // one instance's initial state (state_words), mostly untouched zero pages
  std::vector<std::uint32_t> memory;   // one instance's initial memory pages (a prefix of memory_words)
  // The 4 KiB blocks of `memory` that hold a non-zero byte, merged into runs: all that a zeroed
  // memory needs written to become the initial one.
  std::vector<WordRun> memory_nonzero_runs;
  // Likewise for `state` (4 KiB blocks counted from the state's first word): what the cpu
  // device copies into an instance's zero pages.
  std::vector<WordRun> state_nonzero_runs;
  std::uint32_t state_words = 0;  // per-instance strides
  std::uint32_t memory_words = 0;
  std::uint32_t memory_capacity_pages = 0;
  std::uint32_t globals_offset = 0;  // state word of global 0
  std::uint32_t wasi_offset = 0;     // state word of the WASI region (0: none)
  std::uint32_t wasi_words = 0;
  // Instantiation trapped while applying an active segment (0: it did not).
  std::uint32_t instantiation_trap = 0;
};

// Throws std::invalid_argument naming memory_pages / table_elements when a reservation is
// outside the module's declared limits, ResourceLimit naming stack_size / call_depth when the
// stack cannot hold one frame of the module's largest function, or a state too large to address.
// `wasi_region` is the initial WASI region of instance 0 (wasi_config.hpp), placed after the
// value stack; a module that imports WASI needs one. With `compiled`, the image is compiled
// mode's: jump tables instead of instruction records, block ids instead of pcs.
[[nodiscard]] InstanceImage build_instance_image(const Module& module, const LinkedImports& imports,
                                                 const ReserveOptions& options,
                                                 const runtime::ZeroedWords& wasi_region = runtime::ZeroedWords(),
                                                 const CompiledCode* compiled = nullptr);

// The runs of 4 KiB blocks of `words` that hold a non-zero word (adjacent blocks merged).
[[nodiscard]] std::vector<WordRun> nonzero_block_runs(std::span<const std::uint32_t> words);
// The same, looking only at the blocks that `candidates` (ascending, not overlapping) touch:
// the words outside them are known to be zero.
[[nodiscard]] std::vector<WordRun> nonzero_block_runs(std::span<const std::uint32_t> words,
                                                      std::span<const WordRun> candidates);

}  // namespace wavestack::wasm
