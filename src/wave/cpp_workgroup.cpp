// Workgroup mode of the C++ emitter, for kernels with shared arrays, barriers or wave
// operations: a workgroup's lanes run as loops over its lanes between them. Registers live in
// per-lane arrays in the chunk's scratch memory, so a value survives the barriers it crosses.
// A statement holding a barrier or a wave operation (an If or a Loop around one) runs at the
// workgroup level with the emulator's masks as lane states: lanes of a divergent If wait while
// the other branch runs (then first, as on the emulator), lanes that left or continued a loop
// wait for its end or its continuing block. Lane states: 0 running, 1 returned, 4 not
// launched (past the limit), and per workgroup-level construct c: 16 + 4c waiting for the else
// branch, 17 + 4c waiting after the then branch, 18 + 4c left loop c, 19 + 4c continued it.
#include <string>
#include <vector>

#include "wave/cpp_emitter_internal.hpp"
#include "wave/emulator_internal.hpp"

namespace wavestack::wave::cpp_detail {
namespace {

std::string state_code(int construct, int kind) {
  return std::to_string(16 + 4 * construct + kind);
}

// Sets the state of every lane in state `from` to `to`. `wave_left` counts the times a lane
// left state 0 in this workgroup: while it is 0 every launched lane runs, and the scans of
// lane states (here, at barriers, at loop ends) are skipped.
std::string move_lanes(const std::string& from, const std::string& to, const std::string& pad) {
  return pad + "if (wave_left != 0) {\n" + pad + "  for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
         "    if (wave_state[wave_t] == " + from + ") wave_state[wave_t] = " + to + ";\n" + pad + "  }\n" + pad + "}\n";
}

}  // namespace

bool CppEmitter::has_barrier(const Stmt& s) {
  if (s.op == Opcode::Barrier || op_info(s.op).op_class == OpClass::Wave) return true;
  for (const auto& inner : s.body) {
    if (has_barrier(inner)) return true;
  }
  for (const auto& inner : s.other) {
    if (has_barrier(inner)) return true;
  }
  return false;
}

std::string CppEmitter::barrier_check(uint32_t line, const std::string& pad) {
  return pad + "{\n" + pad + "  const u32 wave_code = wave_barrier_check(wave_state, wave_n, wave_width, wave_out, " +
         std::to_string(line) + ", wave_gx, wave_gy, wave_gz);\n" + pad +
         "  if (wave_code != WAVE_OK) return wave_code;\n" + pad + "}\n";
}

// Barrier-free statements for every running lane in order. `loop`: the innermost
// workgroup-level loop's construct (-1 when none), which break and continue leave.
void CppEmitter::lane_phase(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  phase_ = ++phases_;
  out += pad + "for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
         "  if (wave_state[wave_t] != 0) continue;\n" + pad +
         "  const u32 wave_l0 = wave_lx[wave_t], wave_l1 = wave_ly[wave_t], wave_l2 = wave_lz[wave_t];\n" + pad +
         "  const u32 wave_id0 = wave_base0 + wave_l0;\n" + pad + "  (void)wave_l1; (void)wave_l2; (void)wave_id0;\n";
  // A negative loop number: break and continue of a workgroup-level loop (control()).
  block(stmts, out, depth + 1, loop >= 0 ? -1 - loop : 0);
  out += pad + "wave_lane_end" + std::to_string(phase_) + ":;\n" + pad + "}\n";
}

// A wave operation for each wave over its running lanes, in lane order, as the emulator's.
void CppEmitter::wave_phase(const Stmt& s, std::string& out, const std::string& pad) {
  const std::string d = "r" + std::to_string(s.dst);
  const std::string a = "r" + std::to_string(s.args[0]);
  const std::string type = cpp_type(type_of(s.dst));
  out += pad + "for (u32 wave_w = 0; wave_w < wave_n; wave_w += wave_width) {\n" + pad +
         "  const u32 wave_end = wave_w + wave_width < wave_n ? wave_w + wave_width : wave_n;\n" + pad +
         "  u64 wave_active = 0;\n" + pad + "  for (u32 wave_t = wave_w; wave_t < wave_end; ++wave_t) {\n" + pad +
         "    if (wave_state[wave_t] == 0) wave_active |= 1ULL << (wave_t - wave_w);\n" + pad + "  }\n" + pad +
         "  if (wave_active == 0) continue;\n";
  const std::string each = pad + "  for (u32 wave_t = wave_w; wave_t < wave_end; ++wave_t) {\n" + pad +
                           "    if (wave_state[wave_t] != 0) continue;\n";
  switch (s.op) {
    case Opcode::WaveSum:
    case Opcode::WaveMin:
    case Opcode::WaveMax: {
      const std::string combine = s.op == Opcode::WaveSum   ? "wave_add"
                                  : s.op == Opcode::WaveMin ? "wave_min"
                                                            : "wave_max";
      out += pad + "  bool wave_first = true;\n" + pad + "  " + type + " wave_total = " + type + "();\n" + each + pad +
             "    wave_total = wave_first ? " + a + "[wave_t] : " + combine + "<" + type + ">(wave_total, " + a +
             "[wave_t]);\n" + pad + "    wave_first = false;\n" + pad + "  }\n" + each + pad + "    " + d +
             "[wave_t] = wave_total;\n" + pad + "  }\n";
      break;
    }
    case Opcode::WavePrefixSum:
      out += pad + "  " + type + " wave_running = " + type + "();\n" + each + pad + "    const " + type +
             " wave_value = " + a + "[wave_t];\n" + pad + "    " + d + "[wave_t] = wave_running;\n" + pad +
             "    wave_running = wave_add<" + type + ">(wave_running, wave_value);\n" + pad + "  }\n";
      break;
    case Opcode::WaveAny:
    case Opcode::WaveAll:
    case Opcode::WaveBallot: {
      out += pad + "  u64 wave_ballot = 0;\n" + each + pad + "    if (" + a +
             "[wave_t]) wave_ballot |= 1ULL << (wave_t - wave_w);\n" + pad + "  }\n";
      const std::string value = s.op == Opcode::WaveBallot ? "wave_ballot"
                                : s.op == Opcode::WaveAny  ? "wave_ballot != 0"
                                                           : "wave_ballot == wave_active";
      out += each + pad + "    " + d + "[wave_t] = " + value + ";\n" + pad + "  }\n";
      break;
    }
    default: {  // WaveBroadcast, WaveShuffle: another running lane's value
      const std::string from = "r" + std::to_string(s.args[1]);
      out += pad + "  " + type + " wave_values[64];\n" + pad +
             "  for (u32 wave_t = wave_w; wave_t < wave_end; ++wave_t) wave_values[wave_t - wave_w] = " + a +
             "[wave_t];\n" + each + pad + "    const i64 wave_from = (i64)" + from + "[wave_t];\n" + pad +
             "    if (wave_from < 0 || wave_from >= (i64)wave_width || ((wave_active >> wave_from) & 1) == 0) "
             "[[unlikely]]\n" +
             pad + "      " + fault("WAVE_INACTIVE_LANE", s.line, "0", "1", "(u64)wave_from", "0", "0") + pad + "    " +
             d + "[wave_t] = wave_values[wave_from];\n" + pad + "  }\n";
      break;
    }
  }
  out += pad + "}\n";
}

void CppEmitter::workgroup_block(const std::vector<Stmt>& stmts, std::string& out, int depth, int loop) {
  const std::string pad(static_cast<size_t>(depth) * 2, ' ');
  std::vector<Stmt> run;
  auto flush = [&] {
    if (run.empty()) return;
    lane_phase(run, out, depth, loop);
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
    } else if (op_info(s.op).op_class == OpClass::Wave) {
      wave_phase(s, out, pad);
    } else if (s.op == Opcode::If) {
      // Uniform: the one branch. Divergent: the then branch with the other lanes waiting, then
      // the else branch with the then lanes waiting (the condition is read before either runs).
      const int c = ++constructs_;
      const std::string cond = "r" + std::to_string(s.args[0]);
      out += pad + "{\n" + pad + "  bool wave_any_true = false, wave_any_false = false;\n" + pad +
             "  for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
             "    if (wave_state[wave_t] != 0) continue;\n" + pad + "    if (" + cond +
             "[wave_t]) wave_any_true = true; else wave_any_false = true;\n" + pad + "  }\n" + pad +
             "  if (wave_any_true && wave_any_false) {\n" + pad + "    ++wave_left;\n" + pad +
             "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n" + pad +
             "      if (wave_state[wave_t] == 0 && !" + cond + "[wave_t]) wave_state[wave_t] = " + state_code(c, 0) +
             ";\n" + pad + "    }\n" + pad + "  }\n" + pad + "  if (wave_any_true) {\n";
      workgroup_block(s.body, out, depth + 2, loop);
      out += pad + "  }\n" + pad + "  if (wave_any_true && wave_any_false) {\n" +
             move_lanes("0", state_code(c, 1), pad + "    ") + move_lanes(state_code(c, 0), "0", pad + "    ") + pad +
             "  }\n" + pad + "  if (wave_any_false) {\n";
      workgroup_block(s.other, out, depth + 2, loop);
      out += pad + "  }\n" + move_lanes(state_code(c, 1), "0", pad + "  ") + pad + "}\n";
    } else if (s.op == Opcode::Loop) {
      // Runs while some lane runs; lanes that continued rejoin for the continuing block, lanes
      // that left it rejoin after it.
      const int c = ++constructs_;
      out += pad + "for (;;) {\n";
      workgroup_block(s.body, out, depth + 1, c);
      out += move_lanes(state_code(c, 3), "0", pad + "  ");
      workgroup_block(s.other, out, depth + 1, c);
      out += pad + "  if (wave_left != 0) {\n" + pad + "    bool wave_running = false;\n" + pad +
             "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) wave_running = wave_running || wave_state[wave_t] == "
             "0;\n" +
             pad + "    if (!wave_running) break;\n" + pad + "  }\n" + pad +
             "  if (wave_stopped(wave_stop)) [[unlikely]] return WAVE_STOPPED;\n" + pad + "}\n" +
             move_lanes(state_code(c, 2), "0", pad);
    } else {
      unsupported("a barrier or wave operation inside this construct", s.line);
    }
  }
  flush();
}

// The kernel in workgroup mode: scratch holds the registers (8 bytes per lane each), the lane
// states (2 bytes per lane), the lanes' local coordinates (3 x 4 bytes, 8-aligned) and the
// shared arrays (workgroup_scratch_bytes sizes it).
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
  text += "  u16* wave_state = (u16*)(wave_bytes + (u64)" + registers + " * 8 * wave_n);\n";
  // Each lane's local coordinates, once per chunk (divisions per lane and phase cost more
  // than the kernels themselves).
  text +=
      "  u32* wave_lx = (u32*)((unsigned char*)wave_state + (2 * (u64)wave_n + 7) / 8 * 8);\n"
      "  u32* wave_ly = wave_lx + wave_n;\n  u32* wave_lz = wave_ly + wave_n;\n"
      "  for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n"
      "    wave_lx[wave_t] = wave_t % wave_wg0;\n"
      "    wave_ly[wave_t] = (wave_t / wave_wg0) % wave_wg1;\n"
      "    wave_lz[wave_t] = wave_t / (wave_wg0 * wave_wg1);\n"
      "  }\n"
      "  unsigned char* wave_shared = (unsigned char*)(wave_lz + wave_n + (wave_n & 1));\n";
  uint64_t offset = 0;
  for (size_t i = 0; i < m_.shared.size(); ++i) {
    const auto& shared = m_.shared[i];
    const std::string element = shared.element == ScalarType::F16 ? "u16" : cpp_type(shared.element);
    text += "  " + element + "* sh" + std::to_string(i) + " = (" + element + "*)(wave_shared + " +
            std::to_string(offset) + ");\n";
    offset += (static_cast<uint64_t>(shared.count) * type_size(shared.element) + 7) / 8 * 8;
  }
  // Registers some path may read before writing them start at zero, as on the emulator (before
  // the scalar parameters' registers are set).
  std::string zero_registers;
  for (const uint32_t reg : lower(m_).maybe_unset) {
    zero_registers += "    __builtin_memset(r" + std::to_string(reg) + ", 0, 8 * (u64)wave_n);\n";
  }
  text +=
      "  for (u64 wave_g = group_begin; wave_g < group_end; ++wave_g) {\n"
      "    if (wave_stopped(wave_stop) || wave_stopped(L->failed)) return WAVE_STOPPED;\n"
      "    const u32 wave_gx = (u32)(wave_g % wave_grid0);\n"
      "    const u32 wave_gy = (u32)((wave_g / wave_grid0) % wave_grid1);\n"
      "    const u32 wave_gz = (u32)(wave_g / ((u64)wave_grid0 * wave_grid1));\n"
      "    const u32 wave_base0 = wave_gx * wave_wg0, wave_base1 = wave_gy * wave_wg1, wave_base2 = wave_gz * "
      "wave_wg2;\n" +
      zero_registers + "    u32 wave_left = 0, wave_launched = 0;\n    __builtin_memset(wave_shared, 0, " +
      std::to_string(offset) +
      ");\n"
      "    for (u32 wave_t = 0; wave_t < wave_n; ++wave_t) {\n"
      "      wave_state[wave_t] = wave_base0 + wave_lx[wave_t] < wave_limit0 && wave_base1 + wave_ly[wave_t] < "
      "wave_limit1 && wave_base2 + wave_lz[wave_t] < wave_limit2 ? 0 : 4;\n"
      "      wave_launched += wave_state[wave_t] == 0;\n";
  for (size_t i = 0; i < m_.scalars.size(); ++i) {
    text += "      r" + std::to_string(m_.scalars[i].reg) + "[wave_t] = s" + std::to_string(i) + ";\n";
  }
  text += "    }\n    if (wave_launched == 0) continue;  // as on the emulator: no wave exists\n";
  workgroup_block(m_.body, text, 2, -1);
  text += "  }\n  return WAVE_OK;\n}\n";
  lanes_ = false;
  return text;
}

}  // namespace wavestack::wave::cpp_detail
