// Every regular file of a WASI region with its path, read back on the host: what an instance's
// file system holds after a run (`python -m wasmgpu run --output-dir`, differential tests).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

namespace wavestack::wasm {

// {path relative to the root: content} of every regular file reachable from the root; each
// hard link is listed under its own path.
[[nodiscard]] std::map<std::string, std::string> wasi_list_files(std::span<const std::uint32_t> region);

}  // namespace wavestack::wasm
