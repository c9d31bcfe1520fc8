// Lane vectors: the native cpu device runs eight consecutive threads of a 1-D launch at once,
// each register a vector of their eight values (clang's vector extension, so AVX2 or SSE
// instructions), and control flow as masks of the lanes it applies to: an If runs each side
// for the lanes that take it, a Loop iterates while any lane is inside it, break, continue and
// return take lanes out. A kernel whose loop trip counts vary from thread to thread (Mandelbrot)
// otherwise runs one thread's dependency chain at a time; eight chains in flight hide the
// latency of each floating-point operation, and arithmetic is one instruction for eight lanes.
//
// Every operation keeps the emulator's bits: vector forms are used only where an instruction
// on eight lanes computes what the scalar helper computes on each (IEEE + - * / of floats,
// wrapping integer arithmetic, comparisons, exact conversions), and anything else is the
// scalar path's own expression applied lane by lane. Faults are exact too: a check that fails
// in any lane makes the group return WAVE_VECTOR_RETRY before the faulting operation, and the
// caller runs the group's eight threads one by one with the scalar code, which faults at the
// same thread and line as the emulator. That rerun must not see the vector attempt's stores,
// so only kernels where it cannot are run in vectors: no buffer both loaded and stored, every
// store indexed by thread_id(0) (each lane writes its own elements, so no two lanes of a group
// store to the same place either), no atomics, wave operations, shared memory or barriers,
// and no f16 or bool buffers (their conversions go through the scalar helpers). What the
// rerun cannot undo: elements that threads after the faulting one in its group of eight stored
// before the fault stay written, as on a GPU, where those threads would have run as well.
#include <set>
#include <string>

#include "wave/cpp_emitter_internal.hpp"

namespace wavestack::wave::cpp_detail {
namespace {

constexpr int kVectorLanes = 8;

std::string vector_type(ScalarType type) {
  return type == ScalarType::Bool ? "wave_vmask" : "wave_v" + cpp_type(type);
}

std::string unsigned_vector_type(ScalarType type) {
  return type == ScalarType::I64 || type == ScalarType::U64 ? "wave_vu64" : "wave_vu32";
}

bool is_float_register(ScalarType type) {
  return type == ScalarType::F32 || type == ScalarType::F64;
}

bool is_plain_integer(ScalarType type) {
  return type == ScalarType::I32 || type == ScalarType::U32 || type == ScalarType::I64 || type == ScalarType::U64;
}

// The lane loop (unrolled: the frontend's -O1 marks loops as not to unroll, and a loop over a
// vector's elements is slow), running `body` for the lanes of `mask` in lane (thread) order,
// or for every lane when `mask` is empty. `body` is indented for the masked form.
std::string lane_loop(const std::string& pad, const std::string& mask, const std::string& body) {
  std::string text = pad + "_Pragma(\"clang loop unroll(full)\") for (int wave_v = 0; wave_v < " +
                     std::to_string(kVectorLanes) + "; ++wave_v) {\n";
  if (mask.empty()) return text + body + pad + "}\n";
  return text + pad + "  if (" + mask + "[wave_v]) {\n" + body + pad + "  }\n" + pad + "}\n";
}

// Whether a statement (or one nested in it) leaves the current lanes' path: break, continue or
// return. After it, the block's mask drops the lanes that left.
bool may_leave(const Stmt& s) {
  if (s.op == Opcode::Break || s.op == Opcode::Continue || s.op == Opcode::Return) return true;
  for (const auto& inner : s.body) {
    if (may_leave(inner)) return true;
  }
  for (const auto& inner : s.other) {
    if (may_leave(inner)) return true;
  }
  return false;
}

struct BufferUse {
  std::set<uint32_t> loaded, stored;
  bool stores_off_thread_x = false;
  bool excluded_op = false;
};

void collect_uses(const std::vector<Stmt>& stmts, const std::set<Reg>& thread_x, BufferUse& use) {
  for (const auto& s : stmts) {
    const OpClass kind = op_info(s.op).op_class;
    if (kind == OpClass::Atomic || kind == OpClass::Wave || s.op == Opcode::Barrier) use.excluded_op = true;
    if (s.op == Opcode::Load) use.loaded.insert(s.mem.index);
    if (s.op == Opcode::Store) {
      use.stored.insert(s.mem.index);
      if (thread_x.count(s.args[0]) == 0) use.stores_off_thread_x = true;
    }
    collect_uses(s.body, thread_x, use);
    collect_uses(s.other, thread_x, use);
  }
}

}  // namespace

bool CppEmitter::lane_vectors_eligible() const {
  for (const auto& buffer : m_.buffers) {
    if (buffer.element == ScalarType::F16 || buffer.element == ScalarType::Bool) return false;
  }
  BufferUse use;
  collect_uses(m_.body, thread_x_registers_, use);
  if (use.excluded_op || use.stores_off_thread_x) return false;
  for (const uint32_t buffer : use.stored) {
    if (use.loaded.count(buffer) != 0) return false;
  }
  return true;
}

// The vector types and the few helpers the lane-vector code uses (kernel source, after the
// preamble): a mask lane is -1 (taken) or 0.
std::string CppEmitter::lane_vector_prelude() {
  const std::string n = std::to_string(kVectorLanes);
  std::string p = "enum : u32 { WAVE_VECTOR_RETRY = 0x7fffffffu };\n";
  for (const char* type : {"i32", "u32", "i64", "u64", "f32", "f64"}) {
    p += "typedef " + std::string(type) + " wave_v" + type + " __attribute__((ext_vector_type(" + n + ")));\n";
  }
  p += "typedef wave_vi32 wave_vmask;\n"
       "static inline bool wave_any(wave_vmask m) { return __builtin_reduce_or(m) != 0; }\n"
       "template <class V> static inline V wave_vblend(wave_vmask m, V a, V b) {\n"
       "  if constexpr (sizeof(a[0]) == 8) return __builtin_convertvector(m, wave_vi64) ? a : b;\n"
       "  else return m ? a : b;\n"
       "}\n"
       "template <class V> static inline wave_vmask wave_vcmp(V c) { return __builtin_convertvector(c, wave_vmask); }\n"
       "static const wave_vu32 wave_iota = {";
  for (int lane = 0; lane < kVectorLanes; ++lane) p += (lane == 0 ? "" : ", ") + std::to_string(lane);
  p += "};\n";
  return p;
}

// Eight threads from `wave_first` on (ids wave_first + lane, one 1-D launch). Returns WAVE_OK,
// WAVE_STOPPED or WAVE_VECTOR_RETRY (a check failed in some lane: run these threads one by one).
std::string CppEmitter::vector_thread_function(const std::string& name, bool proven) {
  proven_ = proven;
  vector_ = true;
  std::string p = "  auto " + name + " = [&](u32 wave_first) __attribute__((always_inline)) -> u32 {\n" +
                  "    const wave_vu32 wave_xv = wave_first + wave_iota;\n"
                  "    wave_vmask wave_exit = 0;\n"
                  "    wave_vmask wave_m0 = -1;\n";
  for (size_t reg = 0; reg < m_.registers.size(); ++reg) {
    p += "    " + vector_type(m_.registers[reg]) + " r" + std::to_string(reg) + " = 0;\n";
  }
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    const Reg reg = m_.scalars[i].reg;
    const std::string value =
        m_.scalars[i].type == ScalarType::Bool ? "s" + std::to_string(i) + " ? -1 : 0" : "s" + std::to_string(i);
    p += "    r" + std::to_string(reg) + " = (" + vector_type(m_.scalars[i].type) + ")(" + value + ");\n";
  }
  vmasks_ = 0;
  vblock(m_.body, p, 2, "wave_m0", 0);
  p += "    (void)wave_exit;\n    return WAVE_OK;\n  };\n";
  proven_ = false;
  vector_ = false;
  return p;
}

void CppEmitter::vblock(const std::vector<Stmt>& stmts, std::string& out, int depth, const std::string& mask,
                        int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  for (const auto& s : stmts) {
    vstatement(s, out, depth, mask, loop);
    if (s.op != Opcode::Break && s.op != Opcode::Continue && s.op != Opcode::Return && may_leave(s)) {
      // (In a loop's continuing block the lanes that continued are the ones running it.)
      std::string left;
      if (loop > 0) left = " | wave_brk" + std::to_string(loop);
      if (loop > 0 && continuing_loops_.count(loop) == 0) left += " | wave_cont" + std::to_string(loop);
      out += pad + mask + " &= ~(wave_exit" + left + ");\n";
    }
  }
}

// A value of a whole vector where eight lanes' instruction computes each lane's scalar result
// bit for bit; empty where the statement is applied lane by lane instead.
std::string CppEmitter::vector_value(const Stmt& s) const {
  const auto reg = [](Reg r) { return "r" + std::to_string(r); };
  const ScalarType t = s.dst == kNoReg ? ScalarType::Bool : type_of(s.dst);
  switch (s.op) {
    case Opcode::Const:
      if (t == ScalarType::Bool) return s.imm.b ? "(wave_vmask)(-1)" : "(wave_vmask)(0)";
      return "(" + vector_type(t) + ")(" + cpp_literal(t, s.imm) + ")";
    case Opcode::Mov:
      return reg(s.args[0]);
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Mul: {
      const char* op = s.op == Opcode::Add ? " + " : s.op == Opcode::Sub ? " - " : " * ";
      if (is_float_register(t)) return reg(s.args[0]) + op + reg(s.args[1]);
      if (!is_plain_integer(t)) return "";
      const std::string u = unsigned_vector_type(t);
      return "(" + vector_type(t) + ")((" + u + ")" + reg(s.args[0]) + op + "(" + u + ")" + reg(s.args[1]) + ")";
    }
    case Opcode::Div:
      return is_float_register(t) ? reg(s.args[0]) + " / " + reg(s.args[1]) : "";
    case Opcode::Neg:
      return is_float_register(t) ? "-" + reg(s.args[0]) : "";
    case Opcode::BitAnd:
    case Opcode::BitOr:
    case Opcode::BitXor: {
      if (!is_plain_integer(t)) return "";
      const char* op = s.op == Opcode::BitAnd ? " & " : s.op == Opcode::BitOr ? " | " : " ^ ";
      return reg(s.args[0]) + op + reg(s.args[1]);
    }
    case Opcode::LogicAnd:
      return reg(s.args[0]) + " & " + reg(s.args[1]);
    case Opcode::LogicOr:
      return reg(s.args[0]) + " | " + reg(s.args[1]);
    case Opcode::Not:
      return "~" + reg(s.args[0]);
    case Opcode::Eq:
    case Opcode::Ne:
    case Opcode::Lt:
    case Opcode::Le:
    case Opcode::Gt:
    case Opcode::Ge: {
      const ScalarType operand = type_of(s.args[0]);
      const bool boolean = operand == ScalarType::Bool;
      if (boolean && s.op != Opcode::Eq && s.op != Opcode::Ne) return "";
      if (!boolean && !is_float_register(operand) && !is_plain_integer(operand)) return "";
      static const char* const kOps[] = {" == ", " != ", " < ", " <= ", " > ", " >= "};
      const char* op = kOps[static_cast<int>(s.op) - static_cast<int>(Opcode::Eq)];
      return "wave_vcmp(" + reg(s.args[0]) + op + reg(s.args[1]) + ")";
    }
    case Opcode::Select:
      return "wave_vblend(" + reg(s.args[0]) + ", " + reg(s.args[1]) + ", " + reg(s.args[2]) + ")";
    case Opcode::Cvt: {
      const ScalarType from = type_of(s.args[0]);
      // Integer to integer or float, f32 to f64 and back: C's conversions, one rounding each,
      // as the scalar wave_cvt. Float to integer saturates and bools are 0/1 there: per lane.
      if (from == ScalarType::Bool || t == ScalarType::Bool || from == ScalarType::F16 || t == ScalarType::F16)
        return "";
      if (is_float_register(from) && !is_float_register(t)) return "";
      return "__builtin_convertvector(" + reg(s.args[0]) + ", " + vector_type(t) + ")";
    }
    default:
      return "";
  }
}

// Launch geometry of the eight lanes (a 1-D launch: y and z are 0 in every lane).
std::string CppEmitter::vector_geometry(const Stmt& s) const {
  switch (s.op) {
    case Opcode::ThreadId:
      return s.dim == 0 ? "__builtin_convertvector(wave_xv, wave_vi32)" : "(wave_vi32)(0)";
    case Opcode::LocalId:
      return s.dim == 0 ? "__builtin_convertvector(wave_xv % wave_wg0, wave_vi32)" : "(wave_vi32)(0)";
    case Opcode::WorkgroupId:
      return s.dim == 0 ? "__builtin_convertvector(wave_xv / wave_wg0, wave_vi32)" : "(wave_vi32)(0)";
    case Opcode::LaneId:
      return "__builtin_convertvector((wave_xv % wave_wg0) & (wave_width - 1), wave_vi32)";
    default:  // uniform: workgroup size, number of workgroups, wave width, a buffer's length
      return "(wave_vi32)(" + geometry(s) + ")";
  }
}

void CppEmitter::vstatement(const Stmt& s, std::string& out, int depth, const std::string& mask, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  const OpClass kind = op_info(s.op).op_class;
  if (kind == OpClass::Control) {
    vcontrol(s, out, depth, mask, loop);
    return;
  }
  const std::string dst = s.dst == kNoReg ? "" : "r" + std::to_string(s.dst);
  if (kind == OpClass::Geometry) {
    out += pad + dst + " = wave_vblend(" + mask + ", " + vector_geometry(s) + ", " + dst + ");\n";
    return;
  }
  if (const std::string value = vector_value(s); !value.empty()) {
    out += pad + dst + " = wave_vblend(" + mask + ", " + value + ", " + dst + ");\n";
    return;
  }
  if (kind == OpClass::Memory) {
    vector_access(s, out, pad, mask);
    return;
  }
  // Lane by lane: the scalar statement on each lane's elements.
  std::string body;
  std::string checks;
  std::string value;
  lane_ = "wave_v";
  const std::string inner_pad = pad + "    ";
  if (s.op == Opcode::CheckIndex) {  // only the mask's lanes
    check_index(s, body, inner_pad);
  } else {
    if (kind == OpClass::Unary) {
      value = unary(s);
    } else if (kind == OpClass::Binary) {
      value = binary(s, checks, inner_pad);
    } else if (kind == OpClass::Compare) {
      value = compare(s);
    } else if (s.op == Opcode::Select) {
      value = r(s.args[0]) + " ? " + r(s.args[1]) + " : " + r(s.args[2]);
    } else {  // Fma
      value = "wave_fma(" + r(s.args[0]) + ", " + r(s.args[1]) + ", " + r(s.args[2]) + ")";
    }
    if (type_of(s.dst) == ScalarType::Bool) value = "-(i32)(" + value + ")";
  }
  lane_.clear();
  if (!body.empty()) {
    out += lane_loop(pad, mask, body);
  } else if (!checks.empty()) {
    // A check that may fail (integer division by zero, a negative exponent): the mask's lanes.
    out += lane_loop(pad, mask, checks + inner_pad + dst + "[wave_v] = " + value + ";\n");
  } else {
    // Pure and defined for any operands: every lane, kept where the mask says.
    out += pad + "{\n" + pad + "  " + vector_type(type_of(s.dst)) + " wave_r;\n" +
           lane_loop(pad + "  ", "", pad + "    wave_r[wave_v] = " + value + ";\n") + pad + "  " + dst +
           " = wave_vblend(" + mask + ", wave_r, " + dst + ");\n" + pad + "}\n";
  }
}

// A load or store as one access for the eight lanes where the indices allow it, else lane by
// lane as the scalar code (only the mask's lanes, in thread order):
// - indexed by a thread_id(0) register: one vector access of the lanes' consecutive elements,
//   when every lane runs it and the register holds each lane's id (it may still hold the zero
//   it starts at in some lanes), in bounds by the launch's proof or by its last lane's check;
// - a load whose index is the same in every lane (a loop counter: N-body's px[j]): one load,
//   its value in every lane, after one check.
void CppEmitter::vector_access(const Stmt& s, std::string& out, const std::string& pad, const std::string& mask) {
  const std::string index = "r" + std::to_string(s.args[0]);
  const std::string k = std::to_string(s.mem.index);
  const std::string all_lanes = "__builtin_reduce_and(" + mask + ") != 0";
  const bool check = target_.bounds_checks;
  const std::string value = "r" + std::to_string(s.op == Opcode::Load ? s.dst : s.args[1]);
  if (thread_x_registers_.count(s.args[0]) != 0) {
    std::string whole = all_lanes + " && __builtin_reduce_and(wave_vcmp(" + index +
                        " == __builtin_convertvector(wave_xv, wave_vi32))) != 0";
    if (!proven_ && check) {
      whole += " && (u64)(i64)" + index + "[" + std::to_string(kVectorLanes - 1) + "] < (u64)n" + k;
    }
    const std::string cell = "&b" + k + "[(i64)" + index + "[0]]";
    out += pad + "if (" + whole + ") {\n" + pad + "  __builtin_memcpy(" +
           (s.op == Opcode::Load ? "&" + value + ", " + cell : cell + ", &" + value) + ", sizeof(" + value + "));\n" +
           pad + "} else {\n";
  } else if (s.op == Opcode::Load) {
    const std::string first = index + "[0]";
    out += pad + "if (" + all_lanes + " && __builtin_reduce_and(wave_vcmp(" + index + " == " + first + ")) != 0) {\n";
    if (check)
      out += pad + "  if ((u64)(i64)" + first + " >= (u64)n" + k + ") [[unlikely]] return WAVE_VECTOR_RETRY;\n";
    out += pad + "  " + value + " = (" + vector_type(type_of(s.dst)) + ")(b" + k + "[(i64)" + first + "]);\n" + pad +
           "} else {\n";
  } else {
    out += pad + "{\n";
  }
  std::string body;
  lane_ = "wave_v";
  memory(s, body, pad + "      ");
  lane_.clear();
  out += lane_loop(pad + "  ", mask, body) + pad + "}\n";
}

// If: each side for the lanes that take it (both sides' masks first: a side may write the
// condition's register). Loop: iterations while any lane is still inside; `wave_brkN` holds the
// lanes that left loop N, `wave_contN` those that continued in this iteration, `wave_exit`
// those that returned. The back-edge answers Ctrl-C and timeouts as the scalar loop's does.
void CppEmitter::vcontrol(const Stmt& s, std::string& out, int depth, const std::string& mask, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (s.op) {
    case Opcode::If: {
      const std::string taken = "wave_m" + std::to_string(++vmasks_);
      const std::string other = "wave_m" + std::to_string(++vmasks_);
      const std::string condition = "r" + std::to_string(s.args[0]);
      out += pad + "{\n" + pad + "  wave_vmask " + taken + " = " + mask + " & " + condition + ";\n";
      if (!s.other.empty()) out += pad + "  wave_vmask " + other + " = " + mask + " & ~" + condition + ";\n";
      out += pad + "  if (wave_any(" + taken + ")) {\n";
      vblock(s.body, out, depth + 2, taken, loop);
      out += pad + "  }\n";
      if (!s.other.empty()) {
        out += pad + "  if (wave_any(" + other + ")) {\n";
        vblock(s.other, out, depth + 2, other, loop);
        out += pad + "  }\n";
      }
      out += pad + "}\n";
      return;
    }
    case Opcode::Loop: {
      const int self = ++loops_;
      const std::string id = std::to_string(self);
      const std::string body = "wave_m" + std::to_string(++vmasks_);
      const std::string continuing = "wave_m" + std::to_string(++vmasks_);
      const std::string inside = mask + " & ~wave_brk" + id + " & ~wave_exit";
      out += pad + "{\n" + pad + "  wave_vmask wave_brk" + id + " = 0;\n" + pad + "  for (;;) {\n" + pad +
             "    wave_vmask wave_cont" + id + " = 0;\n" + pad + "    wave_vmask " + body + " = " + inside + ";\n" +
             pad + "    if (!wave_any(" + body + ")) break;\n";
      vblock(s.body, out, depth + 2, body, self);
      out += pad + "    wave_vmask " + continuing + " = " + inside + ";\n";
      continuing_loops_.insert(self);
      vblock(s.other, out, depth + 2, continuing, self);
      continuing_loops_.erase(self);
      out += pad + "    (void)wave_cont" + id + ";\n" + pad +
             "    if (wave_stopped(wave_stop)) [[unlikely]] return WAVE_STOPPED;\n" + pad + "  }\n" + pad + "}\n";
      return;
    }
    case Opcode::Break:
      out += pad + "wave_brk" + std::to_string(loop) + " |= " + mask + ";\n" + pad + mask + " = 0;\n";
      return;
    case Opcode::Continue:
      out += pad + "wave_cont" + std::to_string(loop) + " |= " + mask + ";\n" + pad + mask + " = 0;\n";
      return;
    case Opcode::Return:
      out += pad + "wave_exit |= " + mask + ";\n" + pad + mask + " = 0;\n";
      return;
    default:  // Barrier: excluded from lane vectors
      unsupported("a barrier here", s.line);
  }
}

}  // namespace wavestack::wave::cpp_detail
