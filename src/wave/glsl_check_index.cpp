// check_index in GLSL: the per-dimension bounds check of multi-dimensional and per-thread
// arrays. A fault records the index, the dimension and its size (status words kStatusDim and
// kStatusSize) so the host reports it in the emulator's words.
#include <string>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {

void Emitter::check_index(const Stmt& s, std::string& out, const std::string& pad) {
  const std::string index = r(s.args[0]);
  const std::string size = r(s.args[1]);
  out += pad + r(s.dst) + " = " + index + ";\n";
  if (!target_.bounds_checks) return;
  add_helper("check_index",
             "void wave_index_fault(uint line, uint dim, uint size, uint lo, uint hi, uint is_signed) {\n"
             "  if (wave_code == 0u) { wave_dim = dim; wave_size = size; }\n"
             "  wave_fault(" +
                 std::to_string(static_cast<uint32_t>(FaultCode::IndexOutOfRange)) +
                 "u, line, 0u, lo, hi, is_signed);\n"
                 "}\n");
  // Sizes are never negative, so one unsigned comparison also rejects negative indices.
  const ScalarType t = type_of(s.args[0]);
  const std::string unsigned_type = is_64bit(t) ? "uint64_t" : "uint";
  const std::string in_range = unsigned_type + "(" + index + ") < " + unsigned_type + "(" + size + ")";
  std::string high = "0u";
  if (t == ScalarType::I32) high = "(" + index + " < 0 ? 0xffffffffu : 0u)";
  if (is_64bit(t)) high = "uint(uint64_t(" + index + ") >> 32)";
  out += pad + "if (!(" + in_range + ")) { wave_index_fault(" + std::to_string(s.line) + "u, uint(" + r(s.args[2]) +
         "), uint(" + size + "), uint(" + index + "), " + high + ", " + (is_signed(t) ? "1u" : "0u") + "); }\n";
}

}  // namespace wavestack::wave::glsl_detail
