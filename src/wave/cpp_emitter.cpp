// The kernel's frame (workgroups of the range, threads of a workgroup in order, the launch
// limit), statements and structured control flow as C++ for the native cpu device.
#include <string>
#include <utility>
#include <vector>

#include "wave/cpp_emitter_internal.hpp"
#include "wave/errors.hpp"
#include "wave/thread_x_accesses.hpp"

namespace wavestack::wave {
namespace cpp_detail {

void CppEmitter::unsupported(const std::string& what, uint32_t line) const {
  const std::string where = line != 0 ? "', line " + std::to_string(line) : "'";
  throw UnsupportedOnCpu("the native cpu device does not run " + what + " yet (kernel '" + m_.name + where +
                         "); run this kernel on device='emulator' (or a GPU), which supports it");
}

// Launch geometry and arguments once per call.
std::string CppEmitter::frame_begin() const {
  std::string p =
      "extern \"C\" u32 wave_cpu_kernel(const WaveLaunch* L, u64 group_begin, u64 group_end, WaveFault* wave_out, "
      "void* wave_scratch) {\n"
      "  (void)wave_scratch;\n"
      "  const u32 wave_grid0 = L->grid[0], wave_grid1 = L->grid[1], wave_grid2 = L->grid[2];\n"
      "  const u32 wave_wg0 = L->workgroup[0], wave_wg1 = L->workgroup[1], wave_wg2 = L->workgroup[2];\n"
      "  const u32 wave_limit0 = L->limit[0], wave_limit1 = L->limit[1], wave_limit2 = L->limit[2];\n"
      "  const u32 wave_width = L->wave_width;\n"
      "  const u32 wave_group_threads = wave_wg0 * wave_wg1 * wave_wg2;\n"
      "  const int* wave_stop = L->stop;\n"
      "  (void)wave_grid2; (void)wave_width;\n";
  for (size_t i = 0; i < m_.buffers.size(); ++i) {
    const auto& b = m_.buffers[i];
    const std::string element = b.element == ScalarType::F16 ? "u16" : cpp_type(b.element);
    const std::string k = std::to_string(i);
    p += "  " + element + "* b" + k + " = (" + element + "*)L->buffers[" + k + "].data;\n";
    p += "  const i64 n" + k + " = L->buffers[" + k + "].length;\n";
    p += "  (void)b" + k + "; (void)n" + k + ";\n";
  }
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    const std::string type = cpp_type(m_.scalars[i].type);
    p += "  const " + type + " s" + std::to_string(i) + " = wave_bits_to<" + type + ">(L->scalars[" +
         std::to_string(i) + "]);\n";
  }
  return p;
}

// One thread as a lambda the loops below inline: its registers start at zero (the emulator
// zeroes a workgroup's registers), scalar parameters' registers at the argument. It returns
// WAVE_OK or a fault's code.
std::string CppEmitter::thread_function(const std::string& name, bool proven) {
  proven_ = proven;
  std::string p =
      "  auto " + name +
      " = [&](u32 wave_gx, u32 wave_gy, u32 wave_gz, u32 wave_base0, u32 wave_base1, u32 wave_base2, "
      "u32 wave_l0, u32 wave_l1, u32 wave_l2, u32 wave_t, u32 wave_id0) __attribute__((always_inline)) -> u32 {\n"
      "    (void)wave_gx; (void)wave_gy; (void)wave_gz; (void)wave_base0; (void)wave_base1; (void)wave_base2;\n"
      "    (void)wave_l0; (void)wave_l1; (void)wave_l2; (void)wave_t; (void)wave_id0;\n";
  for (size_t reg = 0; reg < m_.registers.size(); ++reg) {
    p += "    " + cpp_type(m_.registers[reg]) + " r" + std::to_string(reg) + " = " +
         cpp_literal(m_.registers[reg], Value{.u64 = 0}) + ";\n";
  }
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    p += "    r" + std::to_string(m_.scalars[i].reg) + " = s" + std::to_string(i) + ";\n";
  }
  block(m_.body, p, 2, 0);
  p += "    return WAVE_OK;\n  };\n";
  proven_ = false;
  return p;
}

// Registers that only ever hold thread_id(0) (thread_x_accesses.hpp): within a 1-D workgroup
// their values are the workgroup's contiguous range of ids (or the zero they start at), so one
// comparison per workgroup proves every load and store they index in bounds.
void CppEmitter::find_thread_x_registers() {
  ThreadXAccesses found = find_thread_x_accesses(m_);
  thread_x_registers_ = std::move(found.registers);
  proven_buffers_ = std::move(found.buffers);
}

// Per workgroup: a 1-D workgroup runs its threads inside the launch limit as one counted loop
// (with the proven thread when its range is inside every buffer it indexes); any other shape
// walks its local coordinates, x fastest, skipping threads at or past the limit.
std::string CppEmitter::run() {
  if (uses_workgroup_mode(m_)) return run_workgroup();
  find_thread_x_registers();
  const bool has_proven = target_.bounds_checks && !proven_buffers_.empty();
  const bool vectors = lane_vectors_eligible();
  std::string text =
      (vectors ? lane_vector_prelude() : std::string()) + frame_begin() + thread_function("wave_thread", false);
  if (has_proven) text += thread_function("wave_thread_proven", true);
  if (vectors) {
    text += vector_thread_function("wave_vector", false);
    if (has_proven) text += vector_thread_function("wave_vector_proven", true);
  }
  std::string inside = "true";
  for (const uint32_t k : proven_buffers_) inside += " && (i64)wave_base0 + wave_count <= n" + std::to_string(k);
  // A 1-D launch (1-D workgroups, 1-D grid): the chunk's threads inside the limit as one range
  // of ids, in blocks so that a stop request is seen between them; with lane vectors, eight
  // threads at a time (cpp_lane_vectors.cpp), a group whose checks failed one by one.
  std::string fused_inside = "true";
  for (const uint32_t k : proven_buffers_) fused_inside += " && (i64)wave_block_end <= n" + std::to_string(k);
  auto fused_call = [](const std::string& function, const std::string& id, const std::string& pad) {
    return pad + "const u32 wave_code = " + function + "(" + id + " / wave_wg0, 0, 0, " + id +
           " / wave_wg0 * wave_wg0, 0, 0, " + id + " % wave_wg0, 0, 0, " + id + " % wave_wg0, " + id + ");\n" + pad +
           "if (wave_code != WAVE_OK) [[unlikely]] return wave_code;\n";
  };
  auto fused_range = [&](const std::string& thread, const std::string& vector) {
    std::string loop = "        u32 wave_x = (u32)wave_block;\n";
    if (vectors) {
      loop +=
          "        for (; wave_block_end - wave_x >= 8; wave_x += 8) {\n"
          "          const u32 wave_group = " +
          vector +
          "(wave_x);\n"
          "          if (wave_group == WAVE_VECTOR_RETRY) [[unlikely]] {\n"
          "            for (u32 wave_y = wave_x; wave_y < wave_x + 8; ++wave_y) {\n" +
          fused_call(thread, "wave_y", "              ") +
          "            }\n"
          "          } else if (wave_group != WAVE_OK) [[unlikely]] {\n"
          "            return wave_group;\n"
          "          }\n"
          "        }\n";
    }
    return loop + "        for (; wave_x < wave_block_end; ++wave_x) {\n" + fused_call(thread, "wave_x", "          ") +
           "        }\n";
  };
  text +=
      "  if (wave_wg1 == 1 && wave_wg2 == 1 && wave_grid1 == 1 && wave_grid2 == 1 && wave_limit1 > 0 && "
      "wave_limit2 > 0) {\n"
      "    const u64 wave_hi_all = group_end * wave_wg0;\n"
      "    const u32 wave_hi = (u32)(wave_hi_all < wave_limit0 ? wave_hi_all : wave_limit0);\n"
      "    for (u64 wave_block = group_begin * wave_wg0; wave_block < wave_hi; wave_block += 65536) {\n"
      "      if (wave_stopped(wave_stop) || wave_stopped(L->failed)) return WAVE_STOPPED;\n"
      "      const u32 wave_block_end = (u32)(wave_hi - wave_block > 65536 ? wave_block + 65536 : wave_hi);\n";
  if (has_proven) {
    text += "      if (" + fused_inside + ") {\n" + fused_range("wave_thread_proven", "wave_vector_proven") +
            "        continue;\n"
            "      }\n";
  }
  text += "      {\n" + fused_range("wave_thread", "wave_vector") +
          "      }\n"
          "    }\n"
          "    return WAVE_OK;\n"
          "  }\n";
  text +=
      "  for (u64 wave_g = group_begin; wave_g < group_end; ++wave_g) {\n"
      "    if (wave_stopped(wave_stop) || wave_stopped(L->failed)) return WAVE_STOPPED;\n"
      "    const u32 wave_gx = (u32)(wave_g % wave_grid0);\n"
      "    const u32 wave_gy = (u32)((wave_g / wave_grid0) % wave_grid1);\n"
      "    const u32 wave_gz = (u32)(wave_g / ((u64)wave_grid0 * wave_grid1));\n"
      "    const u32 wave_base0 = wave_gx * wave_wg0, wave_base1 = wave_gy * wave_wg1, wave_base2 = wave_gz * "
      "wave_wg2;\n"
      "    if (wave_wg1 == 1 && wave_wg2 == 1) {\n"
      "      if (wave_base1 >= wave_limit1 || wave_base2 >= wave_limit2 || wave_base0 >= wave_limit0) continue;\n"
      "      const u32 wave_count = wave_limit0 - wave_base0 < wave_wg0 ? wave_limit0 - wave_base0 : wave_wg0;\n";
  if (has_proven) {
    text += "      if (" + inside +
            ") {\n"
            "        for (u32 wave_x = 0; wave_x < wave_count; ++wave_x) {\n"
            "          const u32 wave_code = wave_thread_proven(wave_gx, wave_gy, wave_gz, wave_base0, wave_base1, "
            "wave_base2, wave_x, 0, 0, wave_x, wave_base0 + wave_x);\n"
            "          if (wave_code != WAVE_OK) [[unlikely]] return wave_code;\n"
            "        }\n"
            "        continue;\n"
            "      }\n";
  }
  text +=
      "      for (u32 wave_x = 0; wave_x < wave_count; ++wave_x) {\n"
      "        const u32 wave_code = wave_thread(wave_gx, wave_gy, wave_gz, wave_base0, wave_base1, wave_base2, "
      "wave_x, 0, 0, wave_x, wave_base0 + wave_x);\n"
      "        if (wave_code != WAVE_OK) [[unlikely]] return wave_code;\n"
      "      }\n"
      "      continue;\n"
      "    }\n"
      "    u32 wave_l0 = 0, wave_l1 = 0, wave_l2 = 0;\n"
      "    for (u32 wave_t = 0; wave_t < wave_group_threads; ++wave_t) {\n"
      "      if (wave_base0 + wave_l0 < wave_limit0 && wave_base1 + wave_l1 < wave_limit1 &&\n"
      "          wave_base2 + wave_l2 < wave_limit2) {\n"
      "        const u32 wave_code = wave_thread(wave_gx, wave_gy, wave_gz, wave_base0, wave_base1, wave_base2, "
      "wave_l0, wave_l1, wave_l2, wave_t, wave_base0 + wave_l0);\n"
      "        if (wave_code != WAVE_OK) [[unlikely]] return wave_code;\n"
      "      }\n"
      "      if (++wave_l0 == wave_wg0) {\n"
      "        wave_l0 = 0;\n"
      "        if (++wave_l1 == wave_wg1) { wave_l1 = 0; ++wave_l2; }\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "  return WAVE_OK;\n"
      "}\n";
  return text;
}

void CppEmitter::block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop) {
  for (const auto& s : stmts) statement(s, out, depth, loop);
}

void CppEmitter::statement(const Stmt& s, std::string& out, int depth, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (op_info(s.op).op_class) {
    case OpClass::Const:
      out += pad + r(s.dst) + " = " + cpp_literal(type_of(s.dst), s.imm) + ";\n";
      return;
    case OpClass::Unary:
      out += pad + r(s.dst) + " = " + unary(s) + ";\n";
      return;
    case OpClass::Binary: {
      std::string checks;
      const std::string value = binary(s, checks, pad);
      out += checks + pad + r(s.dst) + " = " + value + ";\n";
      return;
    }
    case OpClass::Compare:
      out += pad + r(s.dst) + " = " + compare(s) + ";\n";
      return;
    case OpClass::Ternary:
      if (s.op == Opcode::Select) {
        out += pad + r(s.dst) + " = " + r(s.args[0]) + " ? " + r(s.args[1]) + " : " + r(s.args[2]) + ";\n";
      } else if (s.op == Opcode::CheckIndex) {
        check_index(s, out, pad);
      } else {
        out += pad + r(s.dst) + " = wave_fma(" + r(s.args[0]) + ", " + r(s.args[1]) + ", " + r(s.args[2]) + ");\n";
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
      unsupported("wave operations (" + std::string(op_info(s.op).name) + ")", s.line);
    case OpClass::Control:
      control(s, out, depth, loop);
      return;
  }
}

// Loops: the body, the continuing block (where `continue` goes), then the back-edge, which
// answers Ctrl-C and timeouts as the emulator's does. `break` leaves past the loop.
void CppEmitter::control(const Stmt& s, std::string& out, int depth, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  switch (s.op) {
    case Opcode::Barrier:  // workgroup mode splits the kernel at barriers before it gets here
      unsupported("a barrier here", s.line);
    case Opcode::If:
      out += pad + "if (" + r(s.args[0]) + ") {\n";
      block(s.body, out, depth + 1, loop);
      if (!s.other.empty()) {
        out += pad + "} else {\n";
        block(s.other, out, depth + 1, loop);
      }
      out += pad + "}\n";
      return;
    case Opcode::Loop: {
      const std::string id = std::to_string(++loops_);
      const int self = loops_;
      out += pad + "for (;;) {\n";
      block(s.body, out, depth + 1, self);
      out += pad + "wave_continue" + id + ":;\n";
      block(s.other, out, depth + 1, self);
      out += pad + "  if (wave_stopped(wave_stop)) [[unlikely]] return WAVE_STOPPED;\n";
      out += pad + "}\n" + pad + "wave_break" + id + ":;\n";
      return;
    }
    case Opcode::Break:
    case Opcode::Continue:
      if (loop < 0) {  // the innermost loop runs at the workgroup level: its lane states (cpp_workgroup.cpp)
        const int construct = -1 - loop;
        out += pad + "wave_state[wave_t] = " + std::to_string(16 + 4 * construct + (s.op == Opcode::Break ? 2 : 3)) +
               ";\n" + pad + "++wave_left;\n" + pad + "goto wave_lane_end" + std::to_string(phase_) + ";\n";
      } else {
        out += pad + "goto wave_" + (s.op == Opcode::Break ? "break" : "continue") + std::to_string(loop) + ";\n";
      }
      return;
    case Opcode::Return:
      if (lanes_) {
        out += pad + "wave_state[wave_t] = 1;\n" + pad + "++wave_left;\n" + pad + "goto wave_lane_end" +
               std::to_string(phase_) + ";\n";
      } else {
        out += pad + "return WAVE_OK;\n";
      }
      return;
    default:
      return;
  }
}

}  // namespace cpp_detail

bool uses_workgroup_mode(const Module& module) {
  bool barriers = false;
  for (const auto& s : module.body) barriers = barriers || cpp_detail::CppEmitter::has_barrier(s);
  return barriers || !module.shared.empty();
}

uint64_t workgroup_scratch_bytes(const Module& module, uint32_t group_threads) {
  if (!uses_workgroup_mode(module)) return 0;
  // Registers, lane states, the lanes' local coordinates (cpp_workgroup.cpp's layout).
  uint64_t bytes = module.registers.size() * uint64_t{8} * group_threads + (uint64_t{2} * group_threads + 7) / 8 * 8 +
                   (uint64_t{12} * group_threads + 7) / 8 * 8;
  for (const auto& shared : module.shared) {
    bytes += (static_cast<uint64_t>(shared.count) * type_size(shared.element) + 7) / 8 * 8;
  }
  return bytes;
}

std::string emit_cpp(const Module& module, const CppTarget& target) {
  return cpp_detail::CppEmitter(module, target).run();
}

}  // namespace wavestack::wave
