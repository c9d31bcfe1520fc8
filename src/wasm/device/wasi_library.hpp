// The device WASI library as C++ (the cpu device, the host-side builder and inspector, the
// tests): the same .glsl files the Vulkan shader concatenates (wasi_glsl.hpp), in the same order.
//
// Not a normal header. Include it inside `namespace wavestack::wasm::device { namespace { ... } }`
// after wasm/device/numerics.hpp (the library uses u64_add / u64_lt) and after defining the
// accessors it calls:
//   uint wasi_get(uint w); void wasi_set(uint w, uint v);            always
//   uint memory_size_bytes(); uint memory_byte(uint addr);
//   void memory_set_byte(uint addr, uint v);                         unless WAVESTACK_WASI_FS_ONLY
// With WAVESTACK_WASI_FS_ONLY defined only the region-side part is included (layout, blocks,
// inodes, directories, paths, descriptors): what the host needs to build and read a region.
// Every function gets internal linkage through the enclosing unnamed namespace.

// NOLINTBEGIN
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
// clang-format off
#include "wasm/device/wasi_layout.glsl"
#include "wasm/device/wasi_region.glsl"
#include "wasm/device/wasi_chacha20.glsl"
#include "wasm/device/wasi_blocks.glsl"
#include "wasm/device/wasi_fs.glsl"
#include "wasm/device/wasi_path.glsl"
#include "wasm/device/wasi_fd.glsl"
#ifndef WAVESTACK_WASI_FS_ONLY
#include "wasm/device/wasi_guest.glsl"
#include "wasm/device/wasi_calls_common.glsl"
#include "wasm/device/wasi_io.glsl"
#include "wasm/device/wasi_calls_fd.glsl"
#include "wasm/device/wasi_calls_path.glsl"
#include "wasm/device/wasi_calls_misc.glsl"
#endif
// clang-format on
#pragma GCC diagnostic pop
// NOLINTEND
