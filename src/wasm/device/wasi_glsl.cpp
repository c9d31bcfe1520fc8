#include "wasm/device/wasi_glsl.hpp"

#include <array>
#include <utility>

#include "wasm/device/glsl/wasi_blocks_glsl.hpp"
#include "wasm/device/glsl/wasi_calls_common_glsl.hpp"
#include "wasm/device/glsl/wasi_calls_fd_glsl.hpp"
#include "wasm/device/glsl/wasi_calls_misc_glsl.hpp"
#include "wasm/device/glsl/wasi_calls_path_glsl.hpp"
#include "wasm/device/glsl/wasi_chacha20_glsl.hpp"
#include "wasm/device/glsl/wasi_fd_glsl.hpp"
#include "wasm/device/glsl/wasi_fs_glsl.hpp"
#include "wasm/device/glsl/wasi_guest_glsl.hpp"
#include "wasm/device/glsl/wasi_io_glsl.hpp"
#include "wasm/device/glsl/wasi_layout_glsl.hpp"
#include "wasm/device/glsl/wasi_path_glsl.hpp"
#include "wasm/device/glsl/wasi_region_glsl.hpp"

namespace wavestack::wasm::device {
namespace {

// The order of wasi_library.hpp.
constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kFiles{{
    {"wasi_layout.glsl", glsl::wasi_layout},
    {"wasi_region.glsl", glsl::wasi_region},
    {"wasi_chacha20.glsl", glsl::wasi_chacha20},
    {"wasi_blocks.glsl", glsl::wasi_blocks},
    {"wasi_fs.glsl", glsl::wasi_fs},
    {"wasi_path.glsl", glsl::wasi_path},
    {"wasi_fd.glsl", glsl::wasi_fd},
    {"wasi_guest.glsl", glsl::wasi_guest},
    {"wasi_calls_common.glsl", glsl::wasi_calls_common},
    {"wasi_io.glsl", glsl::wasi_io},
    {"wasi_calls_fd.glsl", glsl::wasi_calls_fd},
    {"wasi_calls_path.glsl", glsl::wasi_calls_path},
    {"wasi_calls_misc.glsl", glsl::wasi_calls_misc},
}};

}  // namespace

std::string wasi_glsl() {
  std::string source;
  for (const auto& [name, text] : kFiles) {
    source += text;
    source += '\n';
  }
  return source;
}

std::vector<std::string_view> wasi_glsl_files() {
  std::vector<std::string_view> names;
  names.reserve(kFiles.size());
  for (const auto& file : kFiles) names.push_back(file.first);
  return names;
}

std::string_view wasi_glsl_file(std::string_view name) {
  for (const auto& [file, text] : kFiles) {
    if (file == name) return text;
  }
  return {};
}

}  // namespace wavestack::wasm::device
