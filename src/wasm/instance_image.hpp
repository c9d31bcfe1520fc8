// What every instance of a spawn starts from, built once on the host: the program image
// (code, function table, segments and the state layout, read-only and shared by all
// instances), and the template of one instance's state and memory (globals, tables with the
// active element segments applied, memory with the active data segments applied, dropped
// flags). Instantiating is copying the template into an instance's slice, then running the
// start function on the device. docs/ARCHITECTURE.md ("Instances and the interpreter").
#pragma once

#include <cstdint>
#include <vector>

#include "wasm/host_modules.hpp"
#include "wasm/module.hpp"

namespace wavestack::wasm {

struct ReserveOptions {
  std::uint32_t memory_pages = 0;    // reserved linear memory (0: the declared minimum)
  std::uint32_t table_entries = 0;   // reserved entries per table (0: each table's minimum)
  std::uint32_t stack_slots = 4096;  // value stack, 64-bit slots (frames included)
};

struct InstanceImage {
  std::vector<std::uint32_t> program;  // header (interpreter_layout.glsl) + sections
  std::vector<std::uint32_t> state;    // one instance's initial state (state_words)
  std::vector<std::uint32_t> memory;   // one instance's initial memory pages (a prefix of memory_words)
  std::uint32_t state_words = 0;       // per-instance strides
  std::uint32_t memory_words = 0;
  std::uint32_t memory_capacity_pages = 0;
  std::uint32_t globals_offset = 0;  // state word of global 0
  // Instantiation trapped while applying an active segment (0: it did not).
  std::uint32_t instantiation_trap = 0;
};

// Throws std::invalid_argument naming memory_pages / table_entries / stack_size when a
// reservation is smaller than the module needs or too large to address.
[[nodiscard]] InstanceImage build_instance_image(const Module& module, const LinkedImports& imports,
                                                 const ReserveOptions& options);

}  // namespace wavestack::wasm
