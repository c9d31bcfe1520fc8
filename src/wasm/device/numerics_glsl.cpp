#include "wasm/device/numerics_glsl.hpp"

#include <array>
#include <utility>

#include "wasm/device/glsl/convert_glsl.hpp"
#include "wasm/device/glsl/f32_glsl.hpp"
#include "wasm/device/glsl/f64_glsl.hpp"
#include "wasm/device/glsl/i32_glsl.hpp"
#include "wasm/device/glsl/i64_glsl.hpp"
#include "wasm/device/glsl/numeric_dispatch_glsl.hpp"
#include "wasm/device/glsl/prelude_glsl.hpp"
#include "wasm/device/glsl/traps_glsl.hpp"
#include "wasm/device/glsl/u64_glsl.hpp"

namespace wavestack::wasm::device {
namespace {

// In dependency order: each file uses only names defined by the files before it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFiles = {{
    {"prelude.glsl", glsl::prelude},
    {"traps.glsl", glsl::traps},
    {"u64.glsl", glsl::u64},
    {"i32.glsl", glsl::i32},
    {"i64.glsl", glsl::i64},
    {"f32.glsl", glsl::f32},
    {"f64.glsl", glsl::f64},
    {"convert.glsl", glsl::convert},
    {"numeric_dispatch.glsl", glsl::numeric_dispatch},
}};

}  // namespace

std::string numerics_glsl() {
  std::string source;
  for (const auto& [name, text] : kFiles) {
    source += "// ---- ";
    source += name;
    source += "\n";
    source += text;
    if (!text.empty() && text.back() != '\n') source += '\n';
  }
  return source;
}

std::string numeric_functions_glsl() {
  std::string source;
  for (const auto& [name, text] : kFiles) {
    if (name == "prelude.glsl" || name == "numeric_dispatch.glsl") continue;
    source += text;
    if (!text.empty() && text.back() != '\n') source += '\n';
  }
  return source;
}

std::string numerics_glsl_compact() {
  const std::string full = numerics_glsl();
  std::string compact;
  compact.reserve(full.size());
  size_t start = 0;
  while (start < full.size()) {
    size_t end = full.find('\n', start);
    if (end == std::string::npos) end = full.size();
    std::string_view line(full.data() + start, end - start);
    line = line.substr(0, line.find("//"));
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos) {
      line.remove_prefix(first);
      line.remove_suffix(line.size() - 1 - line.find_last_not_of(" \t"));
      compact += line;
      compact += '\n';
    }
    start = end + 1;
  }
  return compact;
}

std::string_view numerics_glsl_file(std::string_view name) {
  for (const auto& [file, text] : kFiles) {
    if (file == name) return text;
  }
  return {};
}

}  // namespace wavestack::wasm::device
