// A module's partition into units (units.hpp) kept in the disk cache: partitioning measures
// every block by generating its text (graphviz.wasm: 0.7 s of a warm start that otherwise
// loads its units in about 0.3 s), so a module whose layout is cached is partitioned once.
// Entries are keyed like the units' code (the module's digest, the options, the generator's
// fingerprint) and hold their key; an entry that does not read back into a consistent layout
// is ignored and replaced.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wasm/compiler/compiled_layout.hpp"

namespace wavestack::wasm::compiler {

[[nodiscard]] std::string serialize_layout(const CompiledLayout& layout);
// nullopt for anything that is not a layout serialize_layout wrote (truncated, inconsistent).
[[nodiscard]] std::optional<CompiledLayout> deserialize_layout(std::string_view bytes);

[[nodiscard]] std::optional<CompiledLayout> load_cached_layout(const std::string& key);
void store_cached_layout(const std::string& key, const CompiledLayout& layout);

}  // namespace wavestack::wasm::compiler
