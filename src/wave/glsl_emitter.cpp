// The statement-by-statement translation of WAVE IR into GLSL (see glsl_emitter.hpp): feature
// checks, the shader's declarations and prologue, statements and structured control flow.
#include "wave/glsl_emitter.hpp"

#include <map>
#include <set>
#include <string>

#include "runtime/error.hpp"
#include "wave/glsl_emitter_internal.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {
namespace glsl_detail {

GlslShader Emitter::run() {
  verify(m_);
  scan_types();
  scan_memory_use(m_.body);
  layout_push_constants();
  const std::string body = main_body();
  GlslShader shader;
  shader.source = header() + declarations() + helpers() + "void main() {\n" + prologue() + body + "}\n";
  shader.buffer_count = static_cast<uint32_t>(m_.buffers.size());
  shader.push_constant_bytes = push_bytes_;
  shader.length_offsets = length_offsets_;
  shader.scalar_offsets = scalar_offsets_;
  shader.launch_offset = launch_offset_;
  shader.buffer_written = written_;
  shader.x_inside_buffers.assign(x_inside_buffers_.begin(), x_inside_buffers_.end());
  shader.uses_subgroups = uses_subgroup_basic_;
  return shader;
}

void Emitter::missing(const std::string& what, const std::string& feature) const {
  throw runtime::DeviceError("kernel '" + m_.name + "' " + what + ", but " + target_.device_name +
                             " does not support " + feature);
}

void Emitter::need(bool available, const std::string& what, const std::string& feature) const {
  if (!available) missing(what, feature);
}

void Emitter::scan_types() {
  auto note = [&](ScalarType t) {
    if (is_64bit(t)) uses_int64_ = true;
    if (t == ScalarType::F64) uses_float64_ = true;
  };
  for (auto t : m_.registers) note(t);
  for (const auto& b : m_.buffers) {
    note(b.element);
    if (b.element == ScalarType::F16) uses_f16_buffers_ = true;
  }
  for (const auto& s : m_.shared) note(s.element);
  for (const auto& s : m_.scalars) note(s.type);
  need(!uses_float64_ || target_.float64, "uses f64", "float64 (shaderFloat64)");
  need(!uses_int64_ || target_.int64, "uses i64/u64", "int64 (shaderInt64)");
  need(!uses_f16_buffers_ || target_.storage_buffer_16bit, "uses f16 buffers",
       "16-bit storage buffers (storageBuffer16BitAccess)");
}

void Emitter::scan_memory_use(const std::vector<Stmt>& stmts) {
  written_.resize(m_.buffers.size(), false);
  read_.resize(m_.buffers.size(), false);
  for (const auto& s : stmts) {
    const auto cls = op_info(s.op).op_class;
    if ((s.op == Opcode::Load || cls == OpClass::Atomic) && s.mem.kind == MemRef::Kind::Buffer) {
      read_[s.mem.index] = true;
    }
    if ((s.op == Opcode::Store || cls == OpClass::Atomic) && s.mem.kind == MemRef::Kind::Buffer) {
      written_[s.mem.index] = true;
    }
    if (cls == OpClass::Atomic) {
      const ScalarType e = m_.mem_element(s.mem);
      if (e == ScalarType::F64 || is_64bit(e)) {
        need(target_.int64_atomics,
             "uses a " + std::string(wave::type_name(e)) + " atomic (line " + std::to_string(s.line) + ")",
             "64-bit atomics (shaderBufferInt64Atomics and shaderSharedInt64Atomics)");
        need(target_.int64, "uses a 64-bit atomic", "int64 (shaderInt64)");
        uses_atomic_int64_ = true;
        uses_int64_ = true;  // the CAS loops of f64 atomics work on uint64_t bits
      }
      if (e == ScalarType::F64) uint_view_.insert(key(s.mem));
      if (e == ScalarType::F32 && !native_float_add(s)) uint_view_.insert(key(s.mem));
    }
    scan_memory_use(s.body);
    scan_memory_use(s.other);
  }
}

bool Emitter::native_float_add(const Stmt& s) const {
  return s.op == Opcode::AtomicAdd && s.mem.kind == MemRef::Kind::Buffer && target_.float32_atomic_add;
}

void Emitter::layout_push_constants() {
  uint32_t offset = 0;
  for (size_t i = 0; i < m_.buffers.size(); ++i) {
    length_offsets_.push_back(offset);
    offset += 4;
  }
  for (const auto& s : m_.scalars) {
    const uint32_t size = (s.type == ScalarType::F64 || is_64bit(s.type)) ? 8 : 4;
    offset = (offset + size - 1) / size * size;
    scalar_offsets_.push_back(offset);
    offset += size;
  }
  launch_offset_ = (offset + 3) / 4 * 4;
  offset = launch_offset_ + 16;  // limit x, y, z and the loop budget
  push_bytes_ = (offset + 3) / 4 * 4;
}

// The emulator computes in IEEE 754 with subnormals and NaN kept; without the SPIR-V float
// controls a Vulkan driver may flush f32 subnormals to zero and compile `b < a ? b : a` to a
// min instruction that drops a NaN (NVIDIA's does both). Each mode is requested only where the
// device supports it for 32-bit floats (otherwise the pipeline would be invalid). Only f32:
// glslang keeps one spirv_execution_mode per mode, so a second width would replace the first,
// and f64 matched the emulator on NVIDIA without them. The modes are part of the SPIR-V, so the
// pipeline caches key on them.
std::string Emitter::float_controls() const {
  std::string text;
  const auto request = [&](const char* capability, const char* mode) {
    text += std::string("spirv_execution_mode(extensions = [\"SPV_KHR_float_controls\"], capabilities = [") +
            capability + "], " + mode + ", 32);\n";
  };
  if (target_.float32_denorm_preserve) request("4464", "4459");   // DenormPreserve
  if (target_.float32_inf_nan_preserve) request("4466", "4461");  // SignedZeroInfNanPreserve
  return text.empty() ? text : "#extension GL_EXT_spirv_intrinsics : require\n" + text;
}

std::string Emitter::header() const {
  std::string h = "#version 450\n";
  if (uses_int64_) h += "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n";
  if (uses_f16_buffers_) {
    h += "#extension GL_EXT_shader_16bit_storage : require\n";
    h += "#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require\n";
  }
  if (uses_subgroup_basic_) h += "#extension GL_KHR_shader_subgroup_basic : require\n";
  if (uses_ballot_) h += "#extension GL_KHR_shader_subgroup_ballot : require\n";
  if (uses_shuffle_) h += "#extension GL_KHR_shader_subgroup_shuffle : require\n";
  if (uses_arithmetic_) h += "#extension GL_KHR_shader_subgroup_arithmetic : require\n";
  if (uses_atomic_float_) h += "#extension GL_EXT_shader_atomic_float : require\n";
  if (uses_atomic_int64_) h += "#extension GL_EXT_shader_atomic_int64 : require\n";
  h += float_controls();
  h += "// kernel '" + m_.name + "', generated from WAVE IR\n";
  h += "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n";
  return h;
}

std::string Emitter::declarations() const {
  std::string d;
  for (size_t i = 0; i < m_.buffers.size(); ++i) {
    const auto& b = m_.buffers[i];
    const std::string n = std::to_string(i);
    // readonly/writeonly let compilers vectorise (llvmpipe runs vector add 3x faster); no
    // restrict, since one array may be passed as two arguments.
    const std::string access = !written_[i] ? "readonly " : !read_[i] ? "writeonly " : "";
    d += "layout(std430, set = 0, binding = " + n + ") " + access + "buffer Buffer" + n + " { " +
         buffer_element(b.element) + " d[]; } b" + n + ";  // " + b.name + "\n";
    if (uint_view_.contains(static_cast<uint32_t>(i))) {
      d += "layout(std430, set = 0, binding = " + n + ") buffer Buffer" + n + "u { " + bits_type(b.element) +
           " d[]; } b" + n + "u;\n";
    }
  }
  if (!x_inside_buffers_.empty()) {
    d += "layout(constant_id = 3) const bool wave_x_inside = false;  // GlslShader::x_inside_buffers\n";
  }
  d += "layout(std430, set = 0, binding = " + std::to_string(m_.buffers.size()) + ") buffer WaveStatus { uint w[" +
       std::to_string(kStatusWords) + "]; } wave_status;\n";
  for (size_t i = 0; i < m_.shared.size(); ++i) {
    d += "shared " + shared_storage(static_cast<uint32_t>(i)) + " s" + std::to_string(i) + "[" +
         std::to_string(m_.shared[i].count) + "];  // " + m_.shared[i].name + "\n";
  }
  if (push_bytes_ > 0) {
    d += "layout(push_constant) uniform Push {\n";
    for (size_t i = 0; i < m_.buffers.size(); ++i) {
      d += "  layout(offset = " + std::to_string(length_offsets_[i]) + ") uint len" + std::to_string(i) + ";\n";
    }
    for (size_t i = 0; i < m_.scalars.size(); ++i) {
      const auto t = m_.scalars[i].type;
      d += "  layout(offset = " + std::to_string(scalar_offsets_[i]) + ") " +
           (t == ScalarType::Bool ? std::string("uint") : glsl_type(t)) + " s" + std::to_string(i) + ";\n";
    }
    d += launch_declarations();
    d += "} pc;\n";
  }
  // A fault is noted in the invocation's private variables (cheap: no atomics in the
  // branches of every access, which costs llvmpipe 5x on vector add) and published to the
  // status buffer by wave_report() when the invocation ends.
  d += "uint wave_iters;  // loop back-edges of this invocation\n" + loop_limit_declarations();
  d += "uint wave_code, wave_line, wave_mem, wave_lo, wave_hi, wave_signed, wave_dim, wave_size;\n"
       "void wave_fault(uint code, uint line, uint mem, uint lo, uint hi, uint is_signed) {\n"
       "  if (wave_code == 0u) {\n"
       "    wave_code = code; wave_line = line; wave_mem = mem; wave_lo = lo; wave_hi = hi; wave_signed = is_signed;\n"
       "  }\n}\n"
       "void wave_report() {\n"
       "  if (wave_code != 0u && atomicCompSwap(wave_status.w[0], 0u, 1u) == 0u) {\n"
       "    wave_status.w[1] = wave_code; wave_status.w[2] = wave_line; wave_status.w[3] = wave_mem;\n"
       "    wave_status.w[4] = wave_lo; wave_status.w[5] = wave_hi; wave_status.w[6] = wave_signed;\n"
       "    wave_status.w[7] = gl_WorkGroupID.x; wave_status.w[8] = gl_WorkGroupID.y;\n"
       "    wave_status.w[9] = gl_WorkGroupID.z; wave_status.w[10] = gl_LocalInvocationIndex;\n"
       "    wave_status.w[11] = wave_dim; wave_status.w[12] = wave_size;\n"
       "  }\n}\n";
  return d;
}

std::string Emitter::shared_storage(uint32_t index) const {
  const ScalarType e = m_.shared[index].element;
  if (e == ScalarType::F16) return "uint";
  if (is_float(e) && uint_view_.contains(0x10000U + index)) return bits_type(e);
  return glsl_type(e);
}

std::string Emitter::helpers() const {
  std::string h;
  if (helper_names_.contains("half")) h += glsl::half_helpers();
  if (helper_names_.contains("f64_math")) h += glsl::double_math_helpers();
  for (const auto& [name, text] : helpers_) h += text;
  return h;
}

std::string Emitter::prologue() const {
  std::string p = "  wave_code = 0u;\n  wave_iters = 0u;\n";
  for (size_t r = 0; r < m_.registers.size(); ++r) {
    const ScalarType t = m_.registers[r];
    p += std::string("  ") + (is_float(t) ? "precise " : "") + glsl_type(t) + " r" + std::to_string(r) + " = " +
         glsl::zero(t) + ";\n";
  }
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    const auto& s = m_.scalars[i];
    const std::string value = "pc.s" + std::to_string(i);
    p += "  r" + std::to_string(s.reg) + " = " + (s.type == ScalarType::Bool ? value + " != 0u" : value) + ";\n";
  }
  // Shared memory starts at zero in every workgroup, as on the emulator.
  if (!m_.shared.empty()) {
    p += "  {\n    uint wave_threads = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;\n";
    for (size_t i = 0; i < m_.shared.size(); ++i) {
      const std::string storage = shared_storage(static_cast<uint32_t>(i));
      p += "    for (uint i = gl_LocalInvocationIndex; i < " + std::to_string(m_.shared[i].count) +
           "u; i += wave_threads) s" + std::to_string(i) + "[i] = " + storage + "(0);\n";
    }
    p += "    barrier();\n  }\n";
  }
  p += launch_guard();
  return p;
}

void Emitter::add_helper(const std::string& name, const std::string& text) {
  if (helper_names_.insert(name).second) helpers_.emplace_back(name, text);
}

void Emitter::statement(const Stmt& s, std::string& out, int depth, int loop_id) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (op_info(s.op).op_class) {
    case OpClass::Const:
      out += pad + r(s.dst) + " = " + glsl::literal(type_of(s.dst), s.imm) + ";\n";
      return;
    case OpClass::Unary:
      out += pad + r(s.dst) + " = " + unary(s) + ";\n";
      return;
    case OpClass::Binary:
      out += pad + r(s.dst) + " = " + binary(s) + ";\n";
      return;
    case OpClass::Compare:
      out += pad + r(s.dst) + " = " + compare(s) + ";\n";
      return;
    case OpClass::Ternary:
      if (s.op == Opcode::Select) {
        out += pad + r(s.dst) + " = " + r(s.args[0]) + " ? " + r(s.args[1]) + " : " + r(s.args[2]) + ";\n";
      } else if (s.op == Opcode::CheckIndex) {
        check_index(s, out, pad);
      } else if (is_float(type_of(s.dst))) {
        out += pad + r(s.dst) + " = fma(" + r(s.args[0]) + ", " + r(s.args[1]) + ", " + r(s.args[2]) + ");\n";
      } else {
        out += pad + r(s.dst) + " = " + r(s.args[0]) + " * " + r(s.args[1]) + " + " + r(s.args[2]) + ";\n";
      }
      return;
    case OpClass::Geometry:
      out += pad + r(s.dst) + " = " + geometry(s) + ";\n";
      return;
    case OpClass::Memory:
      memory(s, out, pad);
      return;
    case OpClass::Atomic:
      atomic(s, out, pad);
      return;
    case OpClass::Wave:
      wave(s, out, pad);
      return;
    case OpClass::Control:
      control(s, out, depth, loop_id);
      return;
  }
}

bool Emitter::has_continue(const std::vector<Stmt>& stmts) {
  for (const auto& s : stmts) {
    if (s.op == Opcode::Continue) return true;
    if (s.op == Opcode::If && (has_continue(s.body) || has_continue(s.other))) return true;
  }
  return false;
}

void Emitter::block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop_id) {
  for (const auto& s : stmts) statement(s, out, depth, loop_id);
}

void Emitter::control(const Stmt& s, std::string& out, int depth, int loop_id) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (s.op) {
    case Opcode::Barrier:
      out += pad + "groupMemoryBarrier();\n" + pad + "barrier();\n";
      return;
    case Opcode::If:
      out += pad + "if (" + r(s.args[0]) + ") {\n";
      block(s.body, out, depth + 1, loop_id);
      if (!s.other.empty()) {
        out += pad + "} else {\n";
        block(s.other, out, depth + 1, loop_id);
      }
      out += pad + "}\n";
      return;
    case Opcode::Loop: {
      // A continue must still run the continuing block. When the body has one and the
      // continuing block is not empty, the body runs inside do { } while (false): continue
      // leaves it (to the continuing block) and break sets the loop's flag first.
      const bool wrap = !s.other.empty() && has_continue(s.body);
      const int id = wrap ? ++loops_ : 0;
      out += pad + "for (;; " + loop_step() + ") {\n" + loop_header(s, pad + "  ");
      if (wrap) {
        const std::string flag = "wave_break" + std::to_string(id);
        out += pad + "  bool " + flag + " = false;\n" + pad + "  do {\n";
        block(s.body, out, depth + 2, id);
        out += pad + "  } while (false);\n" + pad + "  if (" + flag + ") break;\n";
      } else {
        block(s.body, out, depth + 1, 0);
      }
      block(s.other, out, depth + 1, 0);
      out += pad + "}\n" + loop_exit_check(s, pad);
      return;
    }
    case Opcode::Break:
      if (loop_id != 0) {
        out += pad + "wave_break" + std::to_string(loop_id) + " = true;\n";
      }
      out += pad + "break;\n";
      return;
    case Opcode::Continue:
      out += pad + (loop_id != 0 ? "break;\n" : "continue;\n");
      return;
    case Opcode::Return:
      out += pad + "wave_report();\n" + pad + "return;\n";
      return;
    default:
      return;
  }
}

}  // namespace glsl_detail

namespace {

using glsl_detail::Emitter;

std::string join_value(const std::vector<uint32_t>& status) {
  const uint64_t bits = status[kStatusValueLo] | (static_cast<uint64_t>(status[kStatusValueHi]) << 32);
  return status[kStatusSigned] != 0 ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
}

}  // namespace

GlslShader emit_glsl(const Module& module, const GlslTarget& target) {
  return Emitter(module, target).run();
}

std::string describe_fault(const Module& m, const std::vector<uint32_t>& status,
                           const std::vector<int64_t>& buffer_lengths) {
  std::string what;
  switch (static_cast<FaultCode>(status[kStatusCode])) {
    case FaultCode::OutOfBounds: {
      const uint32_t mem = status[kStatusMem];
      const bool buffer = mem < m.buffers.size();
      const std::string name = buffer ? m.buffers[mem].name : m.shared[mem - m.buffers.size()].name;
      const int64_t length = buffer ? buffer_lengths[mem] : m.shared[mem - m.buffers.size()].count;
      what = "index " + join_value(status) + " is out of bounds of " + (buffer ? "buffer '" : "shared array '") + name +
             "' (length " + std::to_string(length) + ")";
      break;
    }
    case FaultCode::IndexOutOfRange:
      what = "index " + join_value(status) + " out of range for dimension " + std::to_string(status[kStatusDim]) +
             " of size " + std::to_string(status[kStatusSize]);
      break;
    case FaultCode::DivisionByZero:
      what = "integer division by zero";
      break;
    case FaultCode::NegativeExponent:
      what = "negative integer exponent " + join_value(status);
      break;
    case FaultCode::LoopBudget:
    case FaultCode::DeviceLoopLimit:
      what = glsl_detail::describe_loop_fault(static_cast<FaultCode>(status[kStatusCode]), join_value(status));
      break;
    default:
      what = "reads lane " + join_value(status) + ", which is not an active lane of the wave";
      break;
  }
  return "kernel '" + m.name + "', line " + std::to_string(status[kStatusLine]) + ": " + what + " (workgroup (" +
         std::to_string(status[kStatusGroupX]) + ", " + std::to_string(status[kStatusGroupY]) + ", " +
         std::to_string(status[kStatusGroupZ]) + "), local thread " + std::to_string(status[kStatusLocal]) + ")";
}

}  // namespace wavestack::wave
