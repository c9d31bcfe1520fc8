#include "wasm/device/numerics_glsl.hpp"

#include <array>
#include <utility>

#include "wasm/device/glsl/convert_glsl.hpp"
#include "wasm/device/glsl/f32_glsl.hpp"
#include "wasm/device/glsl/f64_glsl.hpp"
#include "wasm/device/glsl/i64_glsl.hpp"
#include "wasm/device/glsl/prelude_glsl.hpp"
#include "wasm/device/glsl/traps_glsl.hpp"
#include "wasm/device/glsl/u64_glsl.hpp"

namespace wavestack::wasm::device {
namespace {

// In dependency order: each file uses only names defined by the files before it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kFiles = {{
    {"prelude.glsl", glsl::prelude},
    {"traps.glsl", glsl::traps},
    {"u64.glsl", glsl::u64},
    {"i64.glsl", glsl::i64},
    {"f32.glsl", glsl::f32},
    {"f64.glsl", glsl::f64},
    {"convert.glsl", glsl::convert},
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

std::string_view numerics_glsl_file(std::string_view name) {
  for (const auto& [file, text] : kFiles) {
    if (file == name) return text;
  }
  return {};
}

}  // namespace wavestack::wasm::device
