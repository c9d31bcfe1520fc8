// Loads, stores and atomics on buffers and shared arrays, with their bounds checks, and the bit
// views that compare-and-swap loops on floats need. (The proofs that remove checks:
// glsl_bounds_proofs.cpp.)
#include <algorithm>
#include <string>
#include <vector>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {

std::string Emitter::to_bits(ScalarType e, const std::string& x) {
  return (e == ScalarType::F64 ? "doubleBitsToUint64(" : "floatBitsToUint(") + x + ")";
}

std::string Emitter::from_bits(ScalarType e, const std::string& x) {
  return (e == ScalarType::F64 ? "uint64BitsToDouble(" : "uintBitsToFloat(") + x + ")";
}

bool Emitter::shared_bits(MemRef ref) const {
  if (ref.kind != MemRef::Kind::Shared) return false;
  const ScalarType e = m_.shared[ref.index].element;
  return is_float(e) && e != ScalarType::F16 && uint_view_.contains(0x10000U + ref.index);
}

std::string Emitter::mem_length(MemRef ref) const {
  if (ref.kind == MemRef::Kind::Shared) return std::to_string(m_.shared[ref.index].count) + "u";
  return "pc.len" + std::to_string(ref.index);
}

uint32_t Emitter::mem_code(MemRef ref) const {
  return ref.kind == MemRef::Kind::Buffer ? ref.index : static_cast<uint32_t>(m_.buffers.size()) + ref.index;
}

std::string Emitter::in_bounds(MemRef ref, Reg idx) const {
  const ScalarType t = type_of(idx);
  const std::string length = mem_length(ref);
  if (is_64bit(t)) return "(uint64_t(" + r(idx) + ") < uint64_t(" + length + "))";
  return "(uint(" + r(idx) + ") < " + length + ")";
}

std::string Emitter::fault_call(FaultCode code, const Stmt& s, uint32_t mem, Reg value) const {
  const ScalarType t = type_of(value);
  std::string hi = "0u";
  if (t == ScalarType::I32) hi = "(" + r(value) + " < 0 ? 0xffffffffu : 0u)";
  if (is_64bit(t)) hi = "uint(uint64_t(" + r(value) + ") >> 32)";
  return "wave_fault(" + std::to_string(static_cast<uint32_t>(code)) + "u, " + std::to_string(s.line) + "u, " +
         std::to_string(mem) + "u, uint(" + r(value) + "), " + hi + ", " + (is_signed(t) ? "1u" : "0u") + ");";
}

std::string Emitter::element(MemRef ref, Reg idx, bool bits_view) const {
  return element_at(ref, "uint(" + r(idx) + ")", bits_view);
}

std::string Emitter::element_at(MemRef ref, const std::string& index, bool bits_view) const {
  const std::string i = "[" + index + "]";
  if (ref.kind == MemRef::Kind::Shared) return "s" + std::to_string(ref.index) + i;
  return "b" + std::to_string(ref.index) + (bits_view ? "u" : "") + ".d" + i;
}

std::string Emitter::load_value(MemRef ref, Reg idx) {
  return load_value_at(ref, "uint(" + r(idx) + ")");
}

std::string Emitter::load_value_at(MemRef ref, const std::string& index) {
  const ScalarType e = m_.mem_element(ref);
  std::string cell = element_at(ref, index, false);  // not const: returned by move
  if (e == ScalarType::F16) {
    add_helper("half", "");
    return "wave_f16_to_f32(uint(" + cell + "))";
  }
  if (shared_bits(ref)) return from_bits(e, cell);
  return cell;
}

std::string Emitter::store_value(MemRef ref, const std::string& value) {
  const ScalarType e = m_.mem_element(ref);
  if (e == ScalarType::F16) {
    add_helper("half", "");
    const std::string bits = "wave_f32_to_f16(" + value + ")";
    return ref.kind == MemRef::Kind::Buffer ? "uint16_t(" + bits + ")" : bits;
  }
  if (shared_bits(ref)) return to_bits(e, value);
  return value;
}

void Emitter::memory(const Stmt& s, std::string& out, const std::string& pad) {
  const Reg idx = s.args[0];
  const std::string proof = target_.bounds_checks ? proven_in_range(s.mem, idx) : "";
  std::string guard = in_bounds(s.mem, idx);
  if (proof == "true") {
    out += pad + "// line " + std::to_string(s.line) + ": index proven in range\n";
  } else if (!proof.empty()) {
    guard = "(" + proof + " || " + guard + ")";
  }
  const std::string fault = fault_call(FaultCode::OutOfBounds, s, mem_code(s.mem), idx);
  const bool inside = x_inside_ && s.mem.kind == MemRef::Kind::Buffer && thread_x_registers_.contains(idx);
  if (!target_.bounds_checks || inside || proof == "true") {
    if (s.op == Opcode::Load) {
      out += pad + r(s.dst) + " = " + load_value(s.mem, idx) + ";\n";
    } else {
      out += pad + element(s.mem, idx, false) + " = " + store_value(s.mem, r(s.args[1])) + ";\n";
    }
    return;
  }
  // The fault branch apart from the access, and the load as a select: compilers keep the
  // access vectorised (llvmpipe runs vector add about 5x faster than with if/else).
  if (s.op == Opcode::Load && s.mem.kind == MemRef::Kind::Shared) {
    // A shared array has a fixed size of at least one element, so the load itself can read a
    // clamped index unconditionally and the select keeps the emulator's 0: the select then has
    // no memory operand, where `guard ? s[i] : 0` became a second branch per load (lavapipe ran
    // the bench's SGEMM 6-7% faster, its j loop being 16 such loads per 64 FMAs). The guard
    // lives in a local because the destination may be the index register.
    const std::string last = std::to_string(m_.shared[s.mem.index].count - 1) + "u";
    const std::string type = glsl_type(type_of(s.dst));
    out += pad + "if (!" + guard + ") { " + fault + " }\n";
    // Where the bound holds for the workgroup size, the driver folds the clamp away too.
    const std::string clamped = "min(uint(" + r(idx) + "), " + last + ")";
    const std::string index = proof.empty() ? clamped : "(" + proof + " ? uint(" + r(idx) + ") : " + clamped + ")";
    out += pad + "{ bool wave_in = " + guard + "; " + type + " wave_v = " + load_value_at(s.mem, index) + "; " +
           r(s.dst) + " = wave_in ? wave_v : " + glsl::zero(type_of(s.dst)) + "; }\n";
    return;
  }
  if (s.op == Opcode::Load) {
    out += pad + "if (!" + guard + ") { " + fault + " }\n";
    out += pad + r(s.dst) + " = " + guard + " ? " + load_value(s.mem, idx) + " : " + glsl::zero(type_of(s.dst)) + ";\n";
  } else {
    out += pad + "if " + guard + " { " + element(s.mem, idx, false) + " = " + store_value(s.mem, r(s.args[1])) +
           "; } else { " + fault + " }\n";
  }
}

std::string Emitter::atomic_op(const Stmt& s) {
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

std::string Emitter::float_atomic(const Stmt& s) {
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
                       ";\n  for (;;) {\n    " + helper_loop_step() + "\n    " + t +
                       " old_value = " + from_bits(e, "old_bits") + ";\n    precise " + t + " wanted = " + wanted +
                       ";\n    if (" + settled + ") break;\n    " + bits + " seen = atomicCompSwap(" + cell_at(s.mem) +
                       ", old_bits, " + to_bits(e, "wanted") +
                       ");\n    if (seen == old_bits) break;\n    old_bits = seen;\n  }\n  return " +
                       from_bits(e, "old_bits") + ";\n}\n");
  return name + "(uint(" + r(s.args[0]) + "), " + v + ")";
}

std::string Emitter::cell_at(MemRef ref) const {
  if (ref.kind == MemRef::Kind::Shared) return "s" + std::to_string(ref.index) + "[i]";
  return "b" + std::to_string(ref.index) + "u.d[i]";
}

void Emitter::atomic(const Stmt& s, std::string& out, const std::string& pad) {
  const Reg idx = s.args[0];
  if (!target_.bounds_checks) {
    out += pad + r(s.dst) + " = " + atomic_op(s) + ";\n";
    return;
  }
  out += pad + "if " + in_bounds(s.mem, idx) + " { " + r(s.dst) + " = " + atomic_op(s) + "; } else { " + r(s.dst) +
         " = " + glsl::zero(type_of(s.dst)) + "; " + fault_call(FaultCode::OutOfBounds, s, mem_code(s.mem), idx) +
         " }\n";
}

}  // namespace wavestack::wave::glsl_detail
