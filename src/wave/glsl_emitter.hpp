// WAVE IR to a GLSL 4.50 compute shader for Vulkan devices.
//
// The shader reproduces the emulator's semantics: wrapping integer arithmetic, Python floor
// division and modulo, saturating float->int conversions, masked shift counts, NaN-faithful
// min/max, f16 storage rounded to nearest even in integer code, float wave reductions in lane
// order, and `precise` float registers so a*b+c is never fused. Faults the emulator raises
// (out-of-bounds access, integer division by zero, a negative integer exponent, a wave read
// of an inactive lane) skip the faulting operation (a load or a division gives 0, a store or
// an atomic is dropped) and record the first one in a small status buffer, which the host
// turns into a KernelError after the dispatch.
//
// Bindings: the kernel's buffers at 0..n-1 (set 0), the status buffer at n. Push constants:
// one uint length per buffer, then the scalars, then the five launch words (launch_offset). Workgroup size:
// specialisation constants 0, 1 and 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wave/ir.hpp"

namespace wavestack::wave {

// What the target device supports (runtime::DeviceFeatures, without Vulkan types).
struct GlslTarget {
  std::string device_name = "the device";
  bool int64 = true;
  bool float64 = true;
  bool storage_buffer_16bit = true;
  bool subgroup_basic = true;
  bool subgroup_arithmetic = true;
  bool subgroup_ballot = true;
  bool subgroup_shuffle = true;
  bool float32_atomic_add = true;  // on storage buffers (GL_EXT_shader_atomic_float)
  bool int64_atomics = true;       // on buffers and shared memory (GL_EXT_shader_atomic_int64)
  // SPIR-V float controls for f32 the shader may request (runtime::DeviceFeatures): keep
  // subnormals; keep NaN, infinities and signed zeros. Where a device lacks one, its f32 results
  // may differ from the emulator's in that respect (not refused: most kernels never notice).
  bool float32_denorm_preserve = true;
  bool float32_inf_nan_preserve = true;
  // Not a device feature: false drops the index checks of loads, stores and atomics (an
  // out-of-bounds access is then undefined behaviour, as in CUDA).
  bool bounds_checks = true;
  // Loop back-edges per invocation after which the device itself ends every loop (lavapipe:
  // 65535 in total); reaching it is reported as a fault instead of giving wrong results. 0: none.
  uint32_t device_loop_limit = 0;
};

// Words of the status buffer (uint each).
enum StatusWord : uint32_t {
  kStatusFlag,     // 0: no fault, 1: a fault was recorded
  kStatusCode,     // FaultCode
  kStatusLine,     // kernel source line
  kStatusMem,      // buffer index, or buffers + shared index
  kStatusValueLo,  // the offending index / exponent / lane, low word
  kStatusValueHi,  // high word
  kStatusSigned,   // 1 when the value is signed
  kStatusGroupX,
  kStatusGroupY,
  kStatusGroupZ,
  kStatusLocal,  // gl_LocalInvocationIndex
  kStatusDim,    // IndexOutOfRange: the dimension
  kStatusSize,   // IndexOutOfRange: the size of that dimension
  kStatusWords = 16,
};

enum class FaultCode : uint32_t {
  OutOfBounds = 1,
  DivisionByZero = 2,
  NegativeExponent = 3,
  InactiveLane = 4,
  IndexOutOfRange = 5,  // check_index: an index outside one dimension of an array
  LoopBudget = 6,       // an invocation ran more loop iterations than the launch's budget
  DeviceLoopLimit = 7,  // the device's own loop limit was reached (GlslTarget::device_loop_limit)
};

struct GlslShader {
  std::string source;
  uint32_t buffer_count = 0;  // kernel buffers; the status buffer is binding buffer_count
  uint32_t push_constant_bytes = 0;
  std::vector<uint32_t> length_offsets;  // per buffer: byte offset of its uint length
  std::vector<uint32_t> scalar_offsets;  // per scalar: byte offset of its value
  std::vector<bool> buffer_written;      // per buffer: stored to or updated atomically
  // Byte offset of the launch words: uint limit x, y, z (invocations at or past them return at
  // once) and the loop budget (back-edges per invocation). See glsl_launch_control.cpp.
  uint32_t launch_offset = 0;
  // Buffers that loads and stores index with thread_id(0) alone. When there are any, the
  // shader reads bool specialisation constant 3, wave_x_inside: a launch whose thread ids along
  // x (below min(limit x, grid x * workgroup x)) are inside each of them sets it, and main then
  // runs a copy of its body without those checks (glsl_memory.cpp).
  std::vector<uint32_t> x_inside_buffers;
  bool uses_subgroups = false;
};

// Throws runtime::DeviceError naming the missing feature when the target cannot run `module`.
[[nodiscard]] GlslShader emit_glsl(const Module& module, const GlslTarget& target);

// The message of a recorded fault (`status` holds kStatusWords words), in the emulator's words.
[[nodiscard]] std::string describe_fault(const Module& module, const std::vector<uint32_t>& status,
                                         const std::vector<int64_t>& buffer_lengths);

}  // namespace wavestack::wave
