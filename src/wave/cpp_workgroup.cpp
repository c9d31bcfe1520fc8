// Workgroup mode of the C++ emitter, for kernels with shared arrays or barriers: a workgroup's
// threads run as loops over its lanes between barriers. Registers live in per-lane arrays in
// the chunk's scratch memory, so a value survives the barriers it crosses. A statement holding
// a barrier (an If or a Loop around one) runs at the workgroup level: its condition or its
// loop exit must be the same for every running lane, as the emulator requires of control flow
// around a barrier. Lane states: 0 running, 1 returned, 2 left the innermost workgroup-level
// loop, 3 continued it, 4 not launched (past the limit), 5 in the other branch of an If.
#include <string>
#include <vector>

#include "wave/cpp_emitter_internal.hpp"

namespace wavestack::wave::cpp_detail {

bool CppEmitter::has_barrier(const Stmt& s) {
  if (s.op == Opcode::Barrier) return true;
  for (const auto& inner : s.body) {
    if (has_barrier(inner)) return true;
  }
  for (const auto& inner : s.other) {
    if (has_barrier(inner)) return true;
  }
  return false;
}

// The line of the first barrier in `stmts` (what a divergence is reported at), or 0.
uint32_t CppEmitter::first_barrier_line(const std::vector<Stmt>& stmts) {
  for (const auto& s : stmts) {
    if (s.op == Opcode::Barrier) return s.line;
    if (const uint32_t line = first_barrier_line(s.body); line != 0) return line;
    if (const uint32_t line = first_barrier_line(s.other); line != 0) return line;
  }
  return 0;
}

std::string CppEmitter::barrier_check(uint32_t line, const std::string& pad) {
  return pad + "{\n" + pad + "  const u32 wave_code = wave_barrier_check(wave_state, wave_n, wave_width, wave_out, " +
         std::to_string(line) + ", wave_gx, wave_gy, wave_gz);\n" + pad +
         "  if (wave_code != WAVE_OK) return wave_code;\n" + pad + "}\n";
}

// Barrier-free statements for every running lane in order.
void CppEmitter::lane_phase(const std::vector<Stmt>& stmts, std::string& out, int depth, bool in_workgroup_loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  phase_ = ++phases_;
  out += pad + "for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
         "  if (wave_state[wave_t] != 0) continue;\n" + pad +
         "  const u32 wave_l0 = wave_t % wave_wg0, wave_l1 = (wave_t / wave_wg0) % wave_wg1, wave_l2 = wave_t / "
         "(wave_wg0 * wave_wg1);\n" +
         pad + "  const u32 wave_id0 = wave_base0 + wave_l0;\n" + pad +
         "  (void)wave_l1; (void)wave_l2; (void)wave_id0;\n";
  block(stmts, out, depth + 1, in_workgroup_loop ? -1 : 0);
  out += pad + "wave_lane_end" + std::to_string(phase_) + ":;\n" + pad + "}\n";
}

// After a phase inside a workgroup-level loop: lanes that left or continued it must all have.
void CppEmitter::resolve_exits(int loop, uint32_t line, std::string& out, const std::string& pad) {
  const std::string id = std::to_string(loop);
  out += pad + "{\n" + pad + "  u32 wave_exits = 0, wave_running = 0, wave_continued = 0;\n" + pad +
         "  for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
         "    wave_exits += wave_state[wave_t] == 2 || wave_state[wave_t] == 3;\n" + pad +
         "    wave_continued += wave_state[wave_t] == 3;\n" + pad + "    wave_running += wave_state[wave_t] == 0;\n" +
         pad + "  }\n" + pad + "  if (wave_exits != 0) {\n" + pad +
         "    if (wave_running != 0 || (wave_continued != 0 && wave_continued != wave_exits)) {\n" +
         barrier_check(line, pad + "      ") + pad + "      return wave_fault(wave_out, WAVE_BARRIER_DIVERGENT, " +
         std::to_string(line) + ", wave_gx, wave_gy, wave_gz, 0, 0, 0, 0, 0, 0);\n" + pad + "    }\n" + pad +
         "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
         "      if (wave_state[wave_t] == 2 || wave_state[wave_t] == 3) wave_state[wave_t] = 0;\n" + pad + "    }\n" +
         pad + "    if (wave_continued != 0) goto wave_wg_continue" + id + ";\n" + pad + "    goto wave_wg_break" + id +
         ";\n" + pad + "  }\n" + pad + "}\n";
}

void CppEmitter::workgroup_block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop,
                                 uint32_t loop_line) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  std::vector<Stmt> run;
  auto flush = [&] {
    if (run.empty()) return;
    lane_phase(run, out, depth, loop != 0);
    if (loop != 0) resolve_exits(loop, loop_line, out, pad);
    run.clear();
  };
  for (const auto& s : stmts) {
    if (!has_barrier(s)) {
      run.push_back(s);
      continue;
    }
    flush();
    if (s.op == Opcode::Barrier) {
      out += barrier_check(s.line, pad);
    } else if (s.op == Opcode::If) {
      // The condition of the first running lane; lanes that disagree are in the other branch,
      // which the barrier check reports as the emulator does.
      const std::string c = "r" + std::to_string(s.args[0]);
      const uint32_t line = first_barrier_line(s.body) != 0 ? first_barrier_line(s.body) : first_barrier_line(s.other);
      out += pad + "{\n" + pad + "  int wave_first = -1;\n" + pad + "  bool wave_mixed = false;\n" + pad +
             "  for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
             "    if (wave_state[wave_t] != 0) continue;\n" + pad +
             "    if (wave_first < 0) wave_first = (int)wave_t;\n" + pad + "    else if (" + c + "[wave_t] != " + c +
             "[wave_first]) wave_mixed = true;\n" + pad + "  }\n" + pad + "  if (wave_mixed) {\n" + pad +
             "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad + "      if (wave_state[wave_t] == 0 && " +
             c + "[wave_t] != " + c + "[wave_first]) wave_state[wave_t] = 5;\n" + pad + "    }\n" +
             barrier_check(line, pad + "    ") + pad + "    return wave_fault(wave_out, WAVE_BARRIER_DIVERGENT, " +
             std::to_string(line) + ", wave_gx, wave_gy, wave_gz, 0, 0, 0, 0, 0, 0);\n" + pad + "  }\n" + pad +
             "  if (wave_first >= 0) {\n" + pad + "    if (" + c + "[wave_first]) {\n";
      workgroup_block(s.body, out, depth + 3, loop, loop_line);
      out += pad + "    } else {\n";
      workgroup_block(s.other, out, depth + 3, loop, loop_line);
      out += pad + "    }\n" + pad + "  }\n" + pad + "}\n";
    } else if (s.op == Opcode::Loop) {
      const int id = ++workgroup_loops_;
      const uint32_t line = first_barrier_line(s.body) != 0 ? first_barrier_line(s.body) : first_barrier_line(s.other);
      out += pad + "for (;;) {\n";
      workgroup_block(s.body, out, depth + 1, id, line);
      out += pad + "wave_wg_continue" + std::to_string(id) + ":;\n";
      workgroup_block(s.other, out, depth + 1, id, line);
      out += pad + "  if (wave_stopped(wave_stop)) [[unlikely]] return WAVE_STOPPED;\n" + pad + "}\n" + pad +
             "wave_wg_break" + std::to_string(id) + ":;\n";
    } else {
      unsupported("a barrier inside this construct", s.line);
    }
  }
  flush();
}

// The kernel in workgroup mode: scratch holds the registers (8 bytes per lane each), the lane
// states and the shared arrays (cpu_program.cpp sizes it the same way).
std::string CppEmitter::run_workgroup() {
  lanes_ = true;
  std::string text = frame_begin();
  const std::string registers = std::to_string(m_.registers.size());
  text += "  const u32 wave_n = wave_group_threads;\n  unsigned char* wave_bytes = (unsigned char*)wave_scratch;\n";
  for (size_t reg = 0; reg < m_.registers.size(); ++reg) {
    const std::string type = cpp_type(m_.registers[reg]);
    text += "  " + type + "* r" + std::to_string(reg) + " = (" + type + "*)(wave_bytes + (u64)" + std::to_string(reg) +
            " * 8 * wave_n);\n";
  }
  text += "  unsigned char* wave_state = wave_bytes + (u64)" + registers + " * 8 * wave_n;\n";
  text += "  unsigned char* wave_shared = wave_state + (wave_n + 7) / 8 * 8;\n";
  uint64_t offset = 0;
  for (size_t i = 0; i < m_.shared.size(); ++i) {
    const auto& shared = m_.shared[i];
    const std::string element = shared.element == ScalarType::F16 ? "u16" : cpp_type(shared.element);
    text += "  " + element + "* sh" + std::to_string(i) + " = (" + element + "*)(wave_shared + " +
            std::to_string(offset) + ");\n";
    offset += (static_cast<uint64_t>(shared.count) * type_size(shared.element) + 7) / 8 * 8;
  }
  text +=
      "  for (u64 wave_g = group_begin; wave_g < group_end; ++wave_g) {\n"
      "    if (wave_stopped(wave_stop) || wave_stopped(L->failed)) return WAVE_STOPPED;\n"
      "    const u32 wave_gx = (u32)(wave_g % wave_grid0);\n"
      "    const u32 wave_gy = (u32)((wave_g / wave_grid0) % wave_grid1);\n"
      "    const u32 wave_gz = (u32)(wave_g / ((u64)wave_grid0 * wave_grid1));\n"
      "    const u32 wave_base0 = wave_gx * wave_wg0, wave_base1 = wave_gy * wave_wg1, wave_base2 = wave_gz * "
      "wave_wg2;\n"
      "    __builtin_memset(wave_bytes, 0, (u64)" +
      registers + " * 8 * wave_n);\n" + "    __builtin_memset(wave_shared, 0, " + std::to_string(offset) +
      ");\n"
      "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n"
      "      const u32 wave_l0 = wave_t % wave_wg0, wave_l1 = (wave_t / wave_wg0) % wave_wg1, wave_l2 = wave_t / "
      "(wave_wg0 * wave_wg1);\n"
      "      wave_state[wave_t] = wave_base0 + wave_l0 < wave_limit0 && wave_base1 + wave_l1 < wave_limit1 && "
      "wave_base2 + wave_l2 < wave_limit2 ? 0 : 4;\n";
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    text += "      r" + std::to_string(m_.scalars[i].reg) + "[wave_t] = s" + std::to_string(i) + ";\n";
  }
  text += "    }\n";
  workgroup_block(m_.body, text, 2, 0, 0);
  text += "  }\n  return WAVE_OK;\n}\n";
  lanes_ = false;
  return text;
}

}  // namespace wavestack::wave::cpp_detail
