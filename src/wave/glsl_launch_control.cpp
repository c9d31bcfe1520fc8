// The launch control of emitted shaders: invocations past the launch limit (the padding of
// the last workgroup of `dim=n`) return at once, and every loop counts its iterations.
//
// A launch carries a budget of loop back-edges per invocation (a push constant: timeout * 10^9,
// else 2^32 - 1), so a shader that never ends stops instead of hanging the device: the host
// cannot interrupt a dispatch.
//
// lavapipe ends every loop by itself, silently, once a SIMD group (a subgroup there) has run
// 65535 loop iterations in total, over all loops, the iteration that leaves a loop included.
// On such a device (GlslTarget::device_loop_limit) one elected lane per subgroup counts the
// same iterations in shared memory: at every back-edge (the loop's increment expression), and
// once after the loop for the iteration that left it. Before counting that exit the shader
// checks the count: it reaches the limit there only when the driver ended the loop at a
// back-edge (a loop that left by itself has not counted its last iteration yet), so a fault is
// recorded instead of continuing with wrong values. The driver's limiter is invisible to the
// shader compiler, so the check cannot be folded away. Not counted: loops inside helper
// functions (CAS loops of float atomics, f64 math), and the last iteration of a loop that
// every lane of the subgroup left by `return`.
#include <string>

#include "wave/glsl_emitter_internal.hpp"

namespace wavestack::wave::glsl_detail {
namespace {

// Subgroups per workgroup the count has room for: 1024 invocations in subgroups of 4 or more.
constexpr uint32_t kSubgroupSlots = 256;

std::string subgroup_slot() {
  return "wave_group_iters[gl_SubgroupID & " + std::to_string(kSubgroupSlots - 1) + "u]";
}

}  // namespace

std::string Emitter::launch_declarations() const {
  const auto at = [&](uint32_t word) { return std::to_string(launch_offset_ + 4 * word); };
  return "  layout(offset = " + at(0) + ") uint wave_limit_x;\n" + "  layout(offset = " + at(1) +
         ") uint wave_limit_y;\n" + "  layout(offset = " + at(2) + ") uint wave_limit_z;\n" +
         "  layout(offset = " + at(3) + ") uint wave_loop_budget;\n";
}

std::string Emitter::loop_limit_declarations() const {
  if (!counts_group_loops_) return "";
  return "shared uint wave_group_iters[" + std::to_string(kSubgroupSlots) +
         "];  // loop iterations of each subgroup, as the device counts them\n"
         "uint wave_group_step() {  // one iteration of the subgroup (called by its active lanes)\n"
         "  if (subgroupElect()) " +
         subgroup_slot() +
         "++;\n"
         "  subgroupMemoryBarrierShared();\n"
         "  return 1u;\n"
         "}\n";
}

std::string Emitter::launch_guard() const {
  std::string text;
  if (counts_group_loops_) {
    text += "  if (subgroupElect()) " + subgroup_slot() + " = 0u;\n  subgroupMemoryBarrierShared();\n";
  }
  // After shared memory is cleared (a barrier every invocation must reach), before any work.
  // One vector comparison: the three scalar ones joined by || became two short-circuit
  // branches (a 1-D launch passes 2^32 - 1 for y and z, so both are always evaluated).
  return text +
         "  if (any(greaterThanEqual(gl_GlobalInvocationID, uvec3(pc.wave_limit_x, pc.wave_limit_y, "
         "pc.wave_limit_z)))) return;\n";
}

std::string Emitter::loop_step() {
  if (target_.device_loop_limit == 0) return "wave_iters++";
  uses_subgroup_basic_ = true;
  counts_group_loops_ = true;
  return "wave_iters += wave_group_step()";
}

std::string Emitter::helper_loop_step() {
  return loop_step() + ";";
}

std::string Emitter::helper_loop_exit() const {
  return target_.device_loop_limit == 0 ? "" : "wave_group_step();";
}

std::string Emitter::loop_header(const Stmt& s, const std::string& pad) const {
  return pad + "if (wave_iters >= pc.wave_loop_budget) {\n" + pad + "  wave_fault(" +
         std::to_string(static_cast<uint32_t>(FaultCode::LoopBudget)) + "u, " + std::to_string(s.line) +
         "u, 0u, wave_iters, 0u, 0u);\n" + pad + "  wave_report();\n" + pad + "  return;\n" + pad + "}\n";
}

std::string Emitter::loop_exit_check(const Stmt& s, const std::string& pad) const {
  if (target_.device_loop_limit == 0) return "";
  const std::string limit = std::to_string(target_.device_loop_limit) + "u";
  return pad + "if (" + subgroup_slot() + " >= " + limit + ") {  // the device may have ended the loop\n" + pad +
         "  wave_fault(" + std::to_string(static_cast<uint32_t>(FaultCode::DeviceLoopLimit)) + "u, " +
         std::to_string(s.line) + "u, 0u, " + subgroup_slot() + ", 0u, 0u);\n" + pad + "  wave_report();\n" + pad +
         "  return;\n" + pad + "}\n" + pad + "wave_group_step();  // the iteration that left the loop\n";
}

std::string describe_loop_fault(FaultCode code, const std::string& iterations) {
  if (code == FaultCode::LoopBudget) {
    return "the loops of one thread ran " + iterations +
           " iterations, the loop budget of this launch (timeout * 10^9, or 2^32 - 1 without a timeout); the "
           "thread was stopped";
  }
  return "the loops of one group of threads reached " + iterations +
         " iterations in total, after which this device ends every loop by itself (a limit of Mesa's "
         "lavapipe), so the results would be wrong; run fewer iterations per thread or use another device";
}

}  // namespace wavestack::wave::glsl_detail
