// The launch control of emitted shaders: invocations past the launch limit (the padding of
// the last workgroup of `dim=n`) return at once, and every loop counts its back-edges.
//
// The count serves two purposes. A launch with a timeout gives each invocation a budget of
// back-edges (a push constant), so a shader that never ends stops instead of hanging the
// device: the host cannot interrupt a dispatch. And lavapipe ends every loop of an invocation
// by itself once 65535 iterations (back-edges and loop exits) have run in total, silently; on
// such a device the count follows the driver's, so after each loop the shader can tell that the
// driver ended it and record a fault instead of continuing with wrong values. The driver's
// limiter is invisible to the shader compiler, so this check cannot be folded away. (The
// driver counts per SIMD group, the shader per invocation: loops in divergent branches can
// add up past the limit unnoticed, and the loops of helper functions are not counted.)
#include <string>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {

std::string Emitter::launch_declarations() const {
  const auto at = [&](uint32_t word) { return std::to_string(launch_offset_ + 4 * word); };
  return "  layout(offset = " + at(0) + ") uint wave_limit_x;\n" + "  layout(offset = " + at(1) +
         ") uint wave_limit_y;\n" + "  layout(offset = " + at(2) + ") uint wave_limit_z;\n" +
         "  layout(offset = " + at(3) + ") uint wave_loop_budget;\n";
}

std::string Emitter::launch_guard() {
  // After shared memory is cleared (a barrier every invocation must reach), before any work.
  return "  if (gl_GlobalInvocationID.x >= pc.wave_limit_x || gl_GlobalInvocationID.y >= pc.wave_limit_y ||\n"
         "      gl_GlobalInvocationID.z >= pc.wave_limit_z) return;\n";
}

std::string Emitter::loop_header(const Stmt& s, const std::string& pad) const {
  const std::string line = std::to_string(s.line) + "u";
  return pad + "if (wave_iters >= pc.wave_loop_budget) {\n" + pad + "  wave_fault(" +
         std::to_string(static_cast<uint32_t>(FaultCode::LoopBudget)) + "u, " + line + ", 0u, wave_iters, 0u, 0u);\n" +
         pad + "  wave_report();\n" + pad + "  return;\n" + pad + "}\n";
}

std::string Emitter::loop_exit_check(const Stmt& s, const std::string& pad) const {
  if (target_.device_loop_limit == 0) return "";
  const std::string limit = std::to_string(target_.device_loop_limit) + "u";
  // The driver counts every iteration, the one that leaves the loop too; `wave_iters` counts
  // back-edges and, from here on, this exit. An ended loop took its last back-edge when the
  // driver's count reached the limit, a loop that left by itself did not.
  return pad + "if (wave_iters >= " + limit + ") {  // the device ended the loop by itself\n" + pad + "  wave_fault(" +
         std::to_string(static_cast<uint32_t>(FaultCode::DeviceLoopLimit)) + "u, " + std::to_string(s.line) +
         "u, 0u, wave_iters, 0u, 0u);\n" + pad + "  wave_report();\n" + pad + "  return;\n" + pad + "}\n" + pad +
         "wave_iters++;\n";
}

std::string describe_loop_fault(FaultCode code, const std::string& iterations) {
  if (code == FaultCode::LoopBudget) {
    return "the loops of one thread ran " + iterations +
           " iterations, the loop budget of this launch (timeout * 10^9, or 2^32 - 1 without a timeout); the "
           "thread was stopped";
  }
  return "the loops of one thread reached " + iterations +
         " iterations in total, after which this device ends every loop by itself (a limit of Mesa's "
         "lavapipe), so the results would be wrong; run fewer iterations per thread or use another device";
}

}  // namespace wavestack::wave::glsl_detail
