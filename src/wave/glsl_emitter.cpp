// The statement-by-statement translation of WAVE IR into GLSL (see glsl_emitter.hpp).
#include "wave/glsl_emitter.hpp"

#include <map>
#include <set>
#include <string>

#include "runtime/error.hpp"
#include "wave/glsl_helpers.hpp"
#include "wave/verifier.hpp"

namespace wavestack::wave {
namespace {

using glsl::glsl_type;

bool is_64bit(ScalarType t) {
  return t == ScalarType::I64 || t == ScalarType::U64;
}

class Emitter {
 public:
  Emitter(const Module& m, const GlslTarget& target) : m_(m), target_(target) {}

  GlslShader run() {
    verify(m_);
    scan_types();
    scan_memory_use(m_.body);
    layout_push_constants();
    std::string body;
    for (const auto& s : m_.body) statement(s, body, 1, 0);
    GlslShader shader;
    shader.source =
        header() + declarations() + helpers() + "void main() {\n" + prologue() + body + "  wave_report();\n}\n";
    shader.buffer_count = static_cast<uint32_t>(m_.buffers.size());
    shader.push_constant_bytes = push_bytes_;
    shader.length_offsets = length_offsets_;
    shader.scalar_offsets = scalar_offsets_;
    shader.buffer_written = written_;
    shader.uses_subgroups = uses_subgroup_basic_;
    return shader;
  }

 private:
  // ---- feature checks ------------------------------------------------------------------

  [[noreturn]] void missing(const std::string& what, const std::string& feature) const {
    throw runtime::DeviceError("kernel '" + m_.name + "' " + what + ", but " + target_.device_name +
                               " does not support " + feature);
  }
  void need(bool available, const std::string& what, const std::string& feature) const {
    if (!available) missing(what, feature);
  }

  void scan_types() {
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

  // Which buffers are written, and which memories need a uint view for float atomics.
  void scan_memory_use(const std::vector<Stmt>& stmts) {
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
  bool native_float_add(const Stmt& s) const {
    return s.op == Opcode::AtomicAdd && s.mem.kind == MemRef::Kind::Buffer && target_.float32_atomic_add;
  }
  static uint32_t key(MemRef ref) { return (ref.kind == MemRef::Kind::Buffer ? 0U : 0x10000U) + ref.index; }

  void layout_push_constants() {
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
    push_bytes_ = (offset + 3) / 4 * 4;
  }

  // ---- shader text -----------------------------------------------------------------------

  std::string header() const {
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
    h += "// kernel '" + m_.name + "', generated from WAVE IR\n";
    h += "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n";
    return h;
  }

  std::string buffer_element(ScalarType e) const { return e == ScalarType::F16 ? "uint16_t" : glsl_type(e); }

  std::string declarations() const {
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
      d += "} pc;\n";
    }
    // A fault is noted in the invocation's private variables (cheap: no atomics in the
    // branches of every access, which costs llvmpipe 5x on vector add) and published to the
    // status buffer by wave_report() when the invocation ends.
    d +=
        "uint wave_code, wave_line, wave_mem, wave_lo, wave_hi, wave_signed;\n"
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
        "  }\n}\n";
    return d;
  }

  // The unsigned integer type holding a float's bits (CAS loops work on bits).
  static std::string bits_type(ScalarType e) { return e == ScalarType::F64 ? "uint64_t" : "uint"; }
  static std::string to_bits(ScalarType e, const std::string& x) {
    return (e == ScalarType::F64 ? "doubleBitsToUint64(" : "floatBitsToUint(") + x + ")";
  }
  static std::string from_bits(ScalarType e, const std::string& x) {
    return (e == ScalarType::F64 ? "uint64BitsToDouble(" : "uintBitsToFloat(") + x + ")";
  }

  // Shared f16 holds the half's bits in a uint; float arrays with CAS-loop atomics hold bits too.
  std::string shared_storage(uint32_t index) const {
    const ScalarType e = m_.shared[index].element;
    if (e == ScalarType::F16) return "uint";
    if (is_float(e) && uint_view_.contains(0x10000U + index)) return bits_type(e);
    return glsl_type(e);
  }
  bool shared_bits(MemRef ref) const {
    if (ref.kind != MemRef::Kind::Shared) return false;
    const ScalarType e = m_.shared[ref.index].element;
    return is_float(e) && e != ScalarType::F16 && uint_view_.contains(0x10000U + ref.index);
  }

  std::string helpers() const {
    std::string h;
    if (helper_names_.contains("half")) h += glsl::half_helpers();
    if (helper_names_.contains("f64_math")) h += glsl::double_math_helpers();
    for (const auto& [name, text] : helpers_) h += text;
    return h;
  }

  std::string prologue() const {
    std::string p = "  wave_code = 0u;\n";
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
    return p;
  }

  // ---- helpers used by statements ---------------------------------------------------------

  void add_helper(const std::string& name, const std::string& text) {
    if (helper_names_.insert(name).second) helpers_.emplace_back(name, text);
  }

  static std::string r(Reg reg) { return "r" + std::to_string(reg); }
  ScalarType type_of(Reg reg) const { return m_.registers[reg]; }

  void need_subgroup(const Stmt& s, bool ballot, bool shuffle, bool arithmetic) {
    const std::string what = "uses " + std::string(op_info(s.op).name) + " (line " + std::to_string(s.line) + ")";
    need(target_.subgroup_basic, what, "subgroup operations (VK_SUBGROUP_FEATURE_BASIC_BIT)");
    uses_subgroup_basic_ = true;
    if (ballot) {
      need(target_.subgroup_ballot, what, "subgroup ballot (VK_SUBGROUP_FEATURE_BALLOT_BIT)");
      uses_ballot_ = true;
    }
    if (shuffle) {
      need(target_.subgroup_shuffle, what, "subgroup shuffle (VK_SUBGROUP_FEATURE_SHUFFLE_BIT)");
      uses_shuffle_ = true;
    }
    if (arithmetic) {
      need(target_.subgroup_arithmetic, what, "subgroup arithmetic (VK_SUBGROUP_FEATURE_ARITHMETIC_BIT)");
      uses_arithmetic_ = true;
    }
  }

  std::string convert(ScalarType to, ScalarType from, const std::string& x) {
    if (to == from) return x;
    if (to == ScalarType::Bool) return "(" + x + " != " + glsl::zero(from) + ")";
    if (from == ScalarType::Bool) return "(" + x + " ? " + glsl_type(to) + "(1) : " + glsl::zero(to) + ")";
    if (is_float(from) && is_integer(to)) {
      const std::string name = "wave_cvt_" + glsl::suffix(to) + "_" + glsl::suffix(from);
      add_helper(name, glsl::float_to_int_helper(to, from));
      return name + "(" + x + ")";
    }
    // Integer widening follows the source's signedness, as static_cast does.
    if (from == ScalarType::I32 && to == ScalarType::U64) return "uint64_t(int64_t(" + x + "))";
    return glsl_type(to) + "(" + x + ")";
  }

  // A float function GLSL has for f32 only: f64 goes to the helpers of glsl_f64_math.cpp.
  std::string float_call(const std::string& fn, ScalarType t, const std::string& x) {
    if (t == ScalarType::F64) {
      add_helper("f64_math", "");
      return "wave_" + fn + "_f64(" + x + ")";
    }
    return fn + "(" + x + ")";
  }

  std::string unary(const Stmt& s) {
    const ScalarType t = type_of(s.dst);
    std::string a = r(s.args[0]);  // not const: returned by move
    switch (s.op) {
      case Opcode::Mov:
        return a;
      case Opcode::Cvt:
        return convert(t, type_of(s.args[0]), a);
      case Opcode::Neg:
        return is_float(t) ? "(-" + a + ")" : "(" + glsl::zero(t) + " - " + a + ")";
      case Opcode::Not:
        return "(!" + a + ")";
      case Opcode::BitNot:
        return "(~" + a + ")";
      case Opcode::Abs:
        if (is_float(t)) return "abs(" + a + ")";
        if (is_signed(t)) return "(" + a + " < " + glsl::zero(t) + " ? " + glsl::zero(t) + " - " + a + " : " + a + ")";
        return a;
      case Opcode::Sqrt:
        // f32 through f64 where the device has it: one correct rounding of f64's correctly
        // rounded sqrt is the correctly rounded f32 result (53 >= 2 * 24 + 2 bits).
        if (t == ScalarType::F32 && target_.float64) return "float(sqrt(double(" + a + ")))";
        return "sqrt(" + a + ")";
      case Opcode::Floor:
        return "floor(" + a + ")";
      case Opcode::Ceil:
        return "ceil(" + a + ")";
      case Opcode::Sin:
        return float_call("sin", t, a);
      case Opcode::Cos:
        return float_call("cos", t, a);
      case Opcode::Tan:
        return float_call("tan", t, a);
      case Opcode::Exp:
        return float_call("exp", t, a);
      case Opcode::Exp2:
        return float_call("exp2", t, a);
      case Opcode::Log:
        return float_call("log", t, a);
      case Opcode::Log2:
        return float_call("log2", t, a);
      default:
        return a;
    }
  }

  // GLSL's f32 division may be off by 2.5 ulp; through f64 (where the device has it) it is
  // correctly rounded like the emulator's, so integer results derived from quotients agree.
  std::string float_quotient(ScalarType t, const std::string& a, const std::string& b) const {
    if (t == ScalarType::F32 && target_.float64) return "float(double(" + a + ") / double(" + b + "))";
    return "(" + a + " / " + b + ")";
  }

  std::string binary(const Stmt& s) {
    const ScalarType t = type_of(s.dst);
    std::string a = r(s.args[0]);  // not const: returned by move
    const std::string b = r(s.args[1]);
    const std::string line = std::to_string(s.line) + "u";
    auto infix = [&](const char* op) { return "(" + a + " " + op + " " + b + ")"; };
    auto int_division = [&](const char* kind) {
      const std::string name = "wave_div_" + glsl::suffix(t);
      add_helper(name, glsl::int_division_helper(t));
      return name + "(" + a + ", " + b + ", " + line + ", " + kind + ")";
    };
    switch (s.op) {
      case Opcode::Add:
        return infix("+");
      case Opcode::Sub:
        return infix("-");
      case Opcode::Mul:
        return infix("*");
      case Opcode::Div:
        return is_float(t) ? float_quotient(t, a, b) : int_division("0u");
      case Opcode::FloorDiv:
        return is_float(t) ? "floor(" + float_quotient(t, a, b) + ")" : int_division("1u");
      case Opcode::Mod:
        if (is_float(t)) {
          const std::string name = "wave_fmod_" + glsl::suffix(t);
          add_helper(name, glsl::float_mod_helper(t));
          return name + "(" + a + ", " + b + ")";
        }
        return int_division("2u");
      case Opcode::Pow: {
        const bool f = is_float(t);
        const std::string name = (f ? "wave_pow_" : "wave_ipow_") + glsl::suffix(t);
        if (t == ScalarType::F64) add_helper("f64_math", "");
        add_helper(name, f ? glsl::float_pow_helper(t) : glsl::int_power_helper(t));
        return name + "(" + a + ", " + b + (f ? ")" : ", " + line + ")");
      }
      case Opcode::Min:  // the emulator's b < a ? b : a, NaN behaviour included
        return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
      case Opcode::Max:
        return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
      case Opcode::BitAnd:
        return t == ScalarType::Bool ? infix("&&") : infix("&");
      case Opcode::BitOr:
        return t == ScalarType::Bool ? infix("||") : infix("|");
      case Opcode::BitXor:
        return t == ScalarType::Bool ? infix("!=") : infix("^");
      case Opcode::Shl:
      case Opcode::Shr: {
        const std::string width = is_64bit(t) ? "63" : "31";
        return "(" + a + (s.op == Opcode::Shl ? " << " : " >> ") + "(" + b + " & " + glsl_type(t) + "(" + width + ")))";
      }
      case Opcode::LogicAnd:
        return infix("&&");
      case Opcode::LogicOr:
        return infix("||");
      default:
        return a;
    }
  }

  std::string compare(const Stmt& s) {
    static const std::map<Opcode, const char*> kOps = {{Opcode::Eq, "=="}, {Opcode::Ne, "!="}, {Opcode::Lt, "<"},
                                                       {Opcode::Le, "<="}, {Opcode::Gt, ">"},  {Opcode::Ge, ">="}};
    return "(" + r(s.args[0]) + " " + kOps.at(s.op) + " " + r(s.args[1]) + ")";
  }

  std::string geometry(const Stmt& s) {
    static const char* kAxes[3] = {"x", "y", "z"};
    const std::string axis = kAxes[s.dim];
    switch (s.op) {
      case Opcode::ThreadId:
        return "int(gl_GlobalInvocationID." + axis + ")";
      case Opcode::LocalId:
        return "int(gl_LocalInvocationID." + axis + ")";
      case Opcode::WorkgroupId:
        return "int(gl_WorkGroupID." + axis + ")";
      case Opcode::WorkgroupSize:
        return "int(gl_WorkGroupSize." + axis + ")";
      case Opcode::NumWorkgroups:
        return "int(gl_NumWorkGroups." + axis + ")";
      case Opcode::LaneId:
        need_subgroup(s, false, false, false);
        return "int(gl_SubgroupInvocationID)";
      case Opcode::WaveWidth:
        need_subgroup(s, false, false, false);
        return "int(gl_SubgroupSize)";
      case Opcode::Length:
        if (s.mem.kind == MemRef::Kind::Shared) return "int(" + std::to_string(m_.shared[s.mem.index].count) + ")";
        return "int(min(pc.len" + std::to_string(s.mem.index) + ", 0x7fffffffu))";
      default:
        return "0";
    }
  }

  // ---- memory ------------------------------------------------------------------------------

  std::string mem_length(MemRef ref) const {
    if (ref.kind == MemRef::Kind::Shared) return std::to_string(m_.shared[ref.index].count) + "u";
    return "pc.len" + std::to_string(ref.index);
  }
  uint32_t mem_code(MemRef ref) const {
    return ref.kind == MemRef::Kind::Buffer ? ref.index : static_cast<uint32_t>(m_.buffers.size()) + ref.index;
  }
  // The condition that index register `idx` is inside `ref`.
  std::string in_bounds(MemRef ref, Reg idx) const {
    const ScalarType t = type_of(idx);
    const std::string length = mem_length(ref);
    if (is_64bit(t)) return "(uint64_t(" + r(idx) + ") < uint64_t(" + length + "))";
    return "(uint(" + r(idx) + ") < " + length + ")";
  }
  std::string fault_call(FaultCode code, const Stmt& s, uint32_t mem, Reg value) const {
    const ScalarType t = type_of(value);
    std::string hi = "0u";
    if (t == ScalarType::I32) hi = "(" + r(value) + " < 0 ? 0xffffffffu : 0u)";
    if (is_64bit(t)) hi = "uint(uint64_t(" + r(value) + ") >> 32)";
    return "wave_fault(" + std::to_string(static_cast<uint32_t>(code)) + "u, " + std::to_string(s.line) + "u, " +
           std::to_string(mem) + "u, uint(" + r(value) + "), " + hi + ", " + (is_signed(t) ? "1u" : "0u") + ");";
  }
  std::string element(MemRef ref, Reg idx, bool bits_view) const {
    const std::string i = "[uint(" + r(idx) + ")]";
    if (ref.kind == MemRef::Kind::Shared) return "s" + std::to_string(ref.index) + i;
    return "b" + std::to_string(ref.index) + (bits_view ? "u" : "") + ".d" + i;
  }

  std::string load_value(MemRef ref, Reg idx) {
    const ScalarType e = m_.mem_element(ref);
    std::string cell = element(ref, idx, false);  // not const: returned by move
    if (e == ScalarType::F16) {
      add_helper("half", "");
      return "wave_f16_to_f32(uint(" + cell + "))";
    }
    if (shared_bits(ref)) return from_bits(e, cell);
    return cell;
  }
  std::string store_value(MemRef ref, const std::string& value) {
    const ScalarType e = m_.mem_element(ref);
    if (e == ScalarType::F16) {
      add_helper("half", "");
      const std::string bits = "wave_f32_to_f16(" + value + ")";
      return ref.kind == MemRef::Kind::Buffer ? "uint16_t(" + bits + ")" : bits;
    }
    if (shared_bits(ref)) return to_bits(e, value);
    return value;
  }

  void memory(const Stmt& s, std::string& out, const std::string& pad) {
    const Reg idx = s.args[0];
    const std::string guard = in_bounds(s.mem, idx);
    const std::string fault = fault_call(FaultCode::OutOfBounds, s, mem_code(s.mem), idx);
    if (!target_.bounds_checks) {
      if (s.op == Opcode::Load) {
        out += pad + r(s.dst) + " = " + load_value(s.mem, idx) + ";\n";
      } else {
        out += pad + element(s.mem, idx, false) + " = " + store_value(s.mem, r(s.args[1])) + ";\n";
      }
      return;
    }
    // The fault branch apart from the access, and the load as a select: compilers keep the
    // access vectorised (llvmpipe runs vector add about 5x faster than with if/else).
    if (s.op == Opcode::Load) {
      out += pad + "if (!" + guard + ") { " + fault + " }\n";
      out +=
          pad + r(s.dst) + " = " + guard + " ? " + load_value(s.mem, idx) + " : " + glsl::zero(type_of(s.dst)) + ";\n";
    } else {
      out += pad + "if " + guard + " { " + element(s.mem, idx, false) + " = " + store_value(s.mem, r(s.args[1])) +
             "; } else { " + fault + " }\n";
    }
  }

  std::string atomic_op(const Stmt& s) {
    const ScalarType e = m_.mem_element(s.mem);
    const std::string cell = element(s.mem, s.args[0], false);
    const std::string v = r(s.args[1]);
    if (is_float(e)) return float_atomic(s);
    switch (s.op) {
      case Opcode::AtomicAdd:
        return "atomicAdd(" + cell + ", " + v + ")";
      case Opcode::AtomicSub:
        return "atomicAdd(" + cell + ", " + glsl::zero(e) + " - " + v + ")";
      case Opcode::AtomicMin:
        return "atomicMin(" + cell + ", " + v + ")";
      case Opcode::AtomicMax:
        return "atomicMax(" + cell + ", " + v + ")";
      case Opcode::AtomicAnd:
        return "atomicAnd(" + cell + ", " + v + ")";
      case Opcode::AtomicOr:
        return "atomicOr(" + cell + ", " + v + ")";
      case Opcode::AtomicXor:
        return "atomicXor(" + cell + ", " + v + ")";
      case Opcode::AtomicExchange:
        return "atomicExchange(" + cell + ", " + v + ")";
      default:
        return "atomicCompSwap(" + cell + ", " + v + ", " + r(s.args[2]) + ")";
    }
  }

  // Float atomics: f32 add natively where GL_EXT_shader_atomic_float is present, otherwise
  // (and for sub, min, max, exchange, and for f64) a compare-and-swap loop over the bits.
  std::string float_atomic(const Stmt& s) {
    const ScalarType e = m_.mem_element(s.mem);
    const std::string v = r(s.args[1]);
    if (native_float_add(s)) {
      uses_atomic_float_ = true;
      return "atomicAdd(" + element(s.mem, s.args[0], false) + ", " + v + ")";
    }
    const std::string cell = element(s.mem, s.args[0], s.mem.kind == MemRef::Kind::Buffer);
    if (s.op == Opcode::AtomicExchange) return from_bits(e, "atomicExchange(" + cell + ", " + to_bits(e, v) + ")");
    // The emulator's loop: min and max stop without writing when the value would not change.
    std::string wanted;
    std::string settled = "false";
    switch (s.op) {
      case Opcode::AtomicAdd:
        wanted = "old_value + value_in";
        break;
      case Opcode::AtomicSub:
        wanted = "old_value - value_in";
        break;
      case Opcode::AtomicMin:
        wanted = "(value_in < old_value ? value_in : old_value)";
        settled = "wanted == old_value";
        break;
      default:
        wanted = "(old_value < value_in ? value_in : old_value)";
        settled = "wanted == old_value";
        break;
    }
    const std::string t = glsl_type(e);
    const std::string bits = bits_type(e);
    const std::string name = "wave_atomic_" + std::string(op_info(s.op).name) + "_" + std::to_string(key(s.mem));
    // A helper per (operation, memory) because GLSL cannot pass a buffer element by reference.
    add_helper(name, t + " " + name + "(uint i, " + t + " value_in) {\n  " + bits + " old_bits = " + cell_at(s.mem) +
                         ";\n  for (;;) {\n    " + t + " old_value = " + from_bits(e, "old_bits") + ";\n    precise " +
                         t + " wanted = " + wanted + ";\n    if (" + settled + ") break;\n    " + bits +
                         " seen = atomicCompSwap(" + cell_at(s.mem) + ", old_bits, " + to_bits(e, "wanted") +
                         ");\n    if (seen == old_bits) break;\n    old_bits = seen;\n  }\n  return " +
                         from_bits(e, "old_bits") + ";\n}\n");
    return name + "(uint(" + r(s.args[0]) + "), " + v + ")";
  }
  std::string cell_at(MemRef ref) const {
    if (ref.kind == MemRef::Kind::Shared) return "s" + std::to_string(ref.index) + "[i]";
    return "b" + std::to_string(ref.index) + "u.d[i]";
  }
  void atomic(const Stmt& s, std::string& out, const std::string& pad) {
    const Reg idx = s.args[0];
    if (!target_.bounds_checks) {
      out += pad + r(s.dst) + " = " + atomic_op(s) + ";\n";
      return;
    }
    out += pad + "if " + in_bounds(s.mem, idx) + " { " + r(s.dst) + " = " + atomic_op(s) + "; } else { " + r(s.dst) +
           " = " + glsl::zero(type_of(s.dst)) + "; " + fault_call(FaultCode::OutOfBounds, s, mem_code(s.mem), idx) +
           " }\n";
  }

  // ---- wave operations --------------------------------------------------------------------

  // A subgroupShuffle of any register type (64-bit integers move as two words).
  static std::string shuffle(ScalarType t, const std::string& x, const std::string& lane) {
    if (is_64bit(t)) {
      return glsl_type(t) + "(packUint2x32(subgroupShuffle(unpackUint2x32(uint64_t(" + x + ")), " + lane + ")))";
    }
    return "subgroupShuffle(" + x + ", " + lane + ")";
  }

  void wave(const Stmt& s, std::string& out, const std::string& pad) {
    const ScalarType t = type_of(s.dst);
    const std::string d = r(s.dst);
    const std::string a = r(s.args[0]);
    switch (s.op) {
      case Opcode::WaveAny:
        need_subgroup(s, true, false, false);
        out += pad + d + " = subgroupBallot(" + a + ") != uvec4(0u);\n";
        return;
      case Opcode::WaveAll:
        need_subgroup(s, true, false, false);
        out += pad + d + " = subgroupBallot(" + a + ") == subgroupBallot(true);\n";
        return;
      case Opcode::WaveBallot:
        need_subgroup(s, true, false, false);
        out += pad + "{ uvec4 wave_b = subgroupBallot(" + a + "); " + d +
               " = uint64_t(wave_b.x) | (uint64_t(wave_b.y) << 32); }\n";
        return;
      case Opcode::WaveBroadcast:
      case Opcode::WaveShuffle: {
        need_subgroup(s, true, true, false);
        const Reg lane = s.args[1];
        const std::string valid = (is_64bit(type_of(lane)) ? "uint64_t(" + r(lane) + ") < uint64_t(gl_SubgroupSize)"
                                                           : "uint(" + r(lane) + ") < gl_SubgroupSize") +
                                  std::string(" && subgroupBallotBitExtract(subgroupBallot(true), uint(") + r(lane) +
                                  "))";
        out += pad + "{ " + glsl_type(t) + " wave_v = " + shuffle(t, a, "uint(" + r(lane) + ")") + "; if (" + valid +
               ") { " + d + " = wave_v; } else { " + d + " = " + glsl::zero(t) + "; " +
               fault_call(FaultCode::InactiveLane, s, 0, lane) + " } }\n";
        return;
      }
      default:
        break;
    }
    // Reductions. 32-bit integers: the subgroup built-ins (wrapping sums are order-free).
    // Floats and 64-bit integers: lane order over the active lanes, as the emulator adds.
    if (!is_float(t) && !is_64bit(t)) {
      need_subgroup(s, false, false, true);
      static const std::map<Opcode, const char*> kBuiltin = {{Opcode::WaveSum, "subgroupAdd"},
                                                             {Opcode::WaveMin, "subgroupMin"},
                                                             {Opcode::WaveMax, "subgroupMax"},
                                                             {Opcode::WavePrefixSum, "subgroupExclusiveAdd"}};
      out += pad + d + " = " + kBuiltin.at(s.op) + "(" + a + ");\n";
      return;
    }
    need_subgroup(s, true, true, false);
    const std::string tn = glsl_type(t);
    std::string combine;
    switch (s.op) {
      case Opcode::WaveSum:
        combine = "wave_acc + wave_v";
        break;
      case Opcode::WaveMin:
        combine = "(wave_v < wave_acc ? wave_v : wave_acc)";
        break;
      case Opcode::WaveMax:
        combine = "(wave_acc < wave_v ? wave_v : wave_acc)";
        break;
      default:
        combine = "wave_acc + wave_v";
        break;
    }
    const bool prefix = s.op == Opcode::WavePrefixSum;
    const std::string take = prefix
                                 ? "subgroupBallotBitExtract(wave_active, wave_l) && wave_l < gl_SubgroupInvocationID"
                                 : "subgroupBallotBitExtract(wave_active, wave_l)";
    out += pad + "{\n" + pad + "  uvec4 wave_active = subgroupBallot(true);\n" + pad + "  precise " + tn +
           " wave_acc = " + glsl::zero(t) + ";\n" + pad + "  bool wave_first = true;\n" + pad +
           "  for (uint wave_l = 0u; wave_l < gl_SubgroupSize; ++wave_l) {\n" + pad + "    " + tn +
           " wave_v = " + shuffle(t, a, "wave_l") + ";\n" + pad + "    if (" + take +
           ") { wave_acc = " + (prefix ? std::string("wave_acc + wave_v") : "wave_first ? wave_v : " + combine) +
           "; wave_first = false; }\n" + pad + "  }\n" + pad + "  " + d + " = wave_acc;\n" + pad + "}\n";
  }

  // ---- statements ---------------------------------------------------------------------------

  // `loop_flag` names the break flag of the innermost loop when its body is wrapped (see Loop).
  void statement(const Stmt& s, std::string& out, int depth, int loop_id) {
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

  static bool has_continue(const std::vector<Stmt>& stmts) {
    for (const auto& s : stmts) {
      if (s.op == Opcode::Continue) return true;
      if (s.op == Opcode::If && (has_continue(s.body) || has_continue(s.other))) return true;
    }
    return false;
  }

  void block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop_id) {
    for (const auto& s : stmts) statement(s, out, depth, loop_id);
  }

  void control(const Stmt& s, std::string& out, int depth, int loop_id) {
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
        out += pad + "for (;;) {\n";
        if (wrap) {
          const std::string flag = "wave_break" + std::to_string(id);
          out += pad + "  bool " + flag + " = false;\n" + pad + "  do {\n";
          block(s.body, out, depth + 2, id);
          out += pad + "  } while (false);\n" + pad + "  if (" + flag + ") break;\n";
        } else {
          block(s.body, out, depth + 1, 0);
        }
        block(s.other, out, depth + 1, 0);
        out += pad + "}\n";
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

  const Module& m_;
  const GlslTarget& target_;
  bool uses_int64_ = false;
  bool uses_float64_ = false;
  bool uses_f16_buffers_ = false;
  bool uses_subgroup_basic_ = false;
  bool uses_ballot_ = false;
  bool uses_shuffle_ = false;
  bool uses_arithmetic_ = false;
  bool uses_atomic_float_ = false;
  bool uses_atomic_int64_ = false;
  int loops_ = 0;
  std::set<uint32_t> uint_view_;
  std::vector<bool> written_;
  std::vector<bool> read_;
  std::vector<uint32_t> length_offsets_;
  std::vector<uint32_t> scalar_offsets_;
  uint32_t push_bytes_ = 0;
  std::set<std::string> helper_names_;
  std::vector<std::pair<std::string, std::string>> helpers_;
};

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
    case FaultCode::DivisionByZero:
      what = "integer division by zero";
      break;
    case FaultCode::NegativeExponent:
      what = "negative integer exponent " + join_value(status);
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
