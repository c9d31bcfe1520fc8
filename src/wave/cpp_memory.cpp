// Loads, stores and atomics of the C++ emitter with the emulator's bounds checks (one unsigned
// comparison catches negative indices too), and check_index, the per-dimension check of
// multi-dimensional arrays. A failing check returns the fault; nothing is read or written.
#include <string>

#include "wave/cpp_emitter_internal.hpp"

namespace wavestack::wave::cpp_detail {
namespace {

std::string atomic_helper(Opcode op) {
  switch (op) {
    case Opcode::AtomicAdd:
      return "wave_atomic_add";
    case Opcode::AtomicSub:
      return "wave_atomic_sub";
    case Opcode::AtomicMin:
      return "wave_atomic_min";
    case Opcode::AtomicMax:
      return "wave_atomic_max";
    case Opcode::AtomicAnd:
      return "wave_atomic_and";
    case Opcode::AtomicOr:
      return "wave_atomic_or";
    case Opcode::AtomicXor:
      return "wave_atomic_xor";
    case Opcode::AtomicExchange:
      return "wave_atomic_exchange";
    default:
      return "wave_atomic_cas";
  }
}

}  // namespace

std::string CppEmitter::fault(const std::string& code, uint32_t line, const std::string& mem,
                              const std::string& is_signed, const std::string& value, const std::string& size,
                              const std::string& dim) const {
  if (vector_) return "return WAVE_VECTOR_RETRY;\n";
  return "return wave_fault(wave_out, " + code + ", " + std::to_string(line) + ", wave_gx, wave_gy, wave_gz, wave_t, " +
         mem + ", " + is_signed + ", " + value + ", " + size + ", " + dim + ");\n";
}

namespace {

// A buffer's or shared array's pointer, length and fault number (shared arrays after buffers).
struct Memory {
  std::string pointer, length, number;
};

Memory memory_of(const Module& m, MemRef ref) {
  const std::string k = std::to_string(ref.index);
  if (ref.kind == MemRef::Kind::Buffer) return {"b" + k, "n" + k, k};
  return {"sh" + k, "(i64)" + std::to_string(m.shared[ref.index].count), std::to_string(m.buffers.size() + ref.index)};
}

}  // namespace

void CppEmitter::memory(const Stmt& s, std::string& out, const std::string& pad) const {
  const Memory where = memory_of(m_, s.mem);
  const std::string index = r(s.args[0]);
  const std::string position = "(i64)" + index;
  const bool proven = proven_ && s.mem.kind == MemRef::Kind::Buffer && thread_x_registers_.count(s.args[0]) != 0;
  if (target_.bounds_checks && !proven) {
    out += pad + "if ((u64)(i64)" + index + " >= (u64)" + where.length + ") [[unlikely]] " +
           fault("WAVE_OUT_OF_BOUNDS", s.line, where.number, is_signed(type_of(s.args[0])) ? "1" : "0",
                 "(u64)(i64)" + index, "0", "0");
  }
  const bool half = m_.mem_element(s.mem) == ScalarType::F16;
  const std::string cell = where.pointer + "[" + position + "]";
  if (s.op == Opcode::Load) {
    out += pad + r(s.dst) + " = " + (half ? "L->half_to_float(" + cell + ")" : cell) + ";\n";
  } else {
    const std::string value = r(s.args[1]);
    out += pad + cell + " = " + (half ? "L->float_to_half(" + value + ")" : value) + ";\n";
  }
}

void CppEmitter::atomic(const Stmt& s, std::string& out, const std::string& pad) const {
  const Memory where = memory_of(m_, s.mem);
  const std::string index = r(s.args[0]);
  // The emulator checks atomics' indices whatever the kernel's bounds_checks says.
  out += pad + "if ((u64)(i64)" + index + " >= (u64)" + where.length + ") [[unlikely]] " +
         fault("WAVE_OUT_OF_BOUNDS", s.line, where.number, is_signed(type_of(s.args[0])) ? "1" : "0",
               "(u64)(i64)" + index, "0", "0");
  const std::string type = cpp_type(m_.mem_element(s.mem));
  std::string call = atomic_helper(s.op) + "<" + type + ">(&" + where.pointer + "[(i64)" + index + "], " + r(s.args[1]);
  if (s.op == Opcode::AtomicCas) call += ", " + r(s.args[2]);
  out += pad + (s.dst == kNoReg ? "" : r(s.dst) + " = ") + call + ");\n";
}

void CppEmitter::check_index(const Stmt& s, std::string& out, const std::string& pad) const {
  const std::string index = r(s.args[0]);
  const std::string size = r(s.args[1]);
  const bool sign = is_signed(type_of(s.args[0]));
  const std::string negative = sign ? index + " < 0 || " : "";
  out += pad + "if (" + negative + index + " >= " + size + ") [[unlikely]] " +
         fault("WAVE_INDEX_RANGE", s.line, "0", sign ? "1" : "0", "(u64)(i64)" + index, "(u64)(i64)" + size,
               "(u64)(i64)" + r(s.args[2]));
  out += pad + r(s.dst) + " = " + index + ";\n";
}

}  // namespace wavestack::wave::cpp_detail
