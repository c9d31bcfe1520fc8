// Wave operations through the subgroup extensions: votes, ballots, shuffles, reductions.
#include <map>
#include <string>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {

std::string Emitter::shuffle(ScalarType t, const std::string& x, const std::string& lane) {
  if (is_64bit(t)) {
    return glsl_type(t) + "(packUint2x32(subgroupShuffle(unpackUint2x32(uint64_t(" + x + ")), " + lane + ")))";
  }
  return "subgroupShuffle(" + x + ", " + lane + ")";
}

void Emitter::wave(const Stmt& s, std::string& out, const std::string& pad) {
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
  const std::string take = prefix ? "subgroupBallotBitExtract(wave_active, wave_l) && wave_l < gl_SubgroupInvocationID"
                                  : "subgroupBallotBitExtract(wave_active, wave_l)";
  out += pad + "{\n" + pad + "  uvec4 wave_active = subgroupBallot(true);\n" + pad + "  precise " + tn +
         " wave_acc = " + glsl::zero(t) + ";\n" + pad + "  bool wave_first = true;\n" + pad +
         "  for (uint wave_l = 0u; wave_l < gl_SubgroupSize; ++wave_l) {\n" + pad + "    " + helper_loop_step() + "\n" +
         pad + "    " + tn + " wave_v = " + shuffle(t, a, "wave_l") + ";\n" + pad + "    if (" + take +
         ") { wave_acc = " + (prefix ? std::string("wave_acc + wave_v") : "wave_first ? wave_v : " + combine) +
         "; wave_first = false; }\n" + pad + "  }\n" + pad + "  " + helper_loop_exit() + "\n" + pad + "  " + d +
         " = wave_acc;\n" + pad + "}\n";
}

}  // namespace wavestack::wave::glsl_detail
