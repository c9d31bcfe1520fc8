// The device WASI library as GLSL text for the Vulkan device: the same files wasi_library.hpp
// includes as C++, embedded at build time, in dependency order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace wavestack::wasm::device {

// The library, to paste into a shader after numerics_glsl() (it uses u64.glsl) and after the
// definitions of the accessors it calls: wasi_get / wasi_set (the instance's WASI region) and
// memory_size_bytes / memory_byte / memory_set_byte (guest memory; instance_memory.glsl
// defines them).
[[nodiscard]] std::string wasi_glsl();

// The file names in the order wasi_glsl() concatenates them.
[[nodiscard]] std::vector<std::string_view> wasi_glsl_files();

// One embedded file by its name ("wasi_fs.glsl"); empty when there is no such file.
[[nodiscard]] std::string_view wasi_glsl_file(std::string_view name);

}  // namespace wavestack::wasm::device
