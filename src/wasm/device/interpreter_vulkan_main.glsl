// The Vulkan side of both execution modes, part 2: the entry point of a run (instantiation has
// a small shader of its own, vulkan_instantiate_main.glsl). RUN_LOOP, defined by the shader's
// assembler (interpreter_glsl.cpp, compiled_glsl.cpp), is the mode's run loop. One invocation
// per instance: (start the call,) run one quantum, write the outcome to io. Every loop here is
// bounded by the host (the run loops' quantum and budget): lavapipe ends all loops of an
// invocation after 65535 iterations in total.
void main() {
  if (!bind_instance()) return;
  if (pc.skip_word != 0xFFFFFFFFu && io_words[pc.skip_word] == 0u) return;
  uint io = instance_io();
  if (pc.begin != 0u) {
    uint args = pc.args_word + gl_GlobalInvocationID.x * 2u * pc.params;
    for (uint k = 0u; k < pc.params; k++) slot_set(k, uvec2(io_words[args + 2u * k], io_words[args + 2u * k + 1u]));
    st_set(S_FUEL_LIMITED, pc.fuel_limited);
    st_set(S_FUEL, pc.fuel_lo);
    st_set(S_FUEL + 1u, pc.fuel_hi);
    clear_memory_fault();
    begin_call(pc.function);
  }
  uint status = RUN_LOOP(pc.quantum, pc.budget);
  if (status != STATUS_COMPILED_ELSEWHERE) write_outcome(io, status);  // else its outcome stands
  // The host reads this count, not every outcome, between the dispatches of a sequence.
  if (pc.running_word != 0xFFFFFFFFu &&
      (status == STATUS_RUNNING || status == STATUS_WASI || status == STATUS_COMPILED_PREFIX)) {
    atomicAdd(io_words[pc.running_word], 1u);
  }
  if (pc.summary_word != 0xFFFFFFFFu) summarise_outcome(io);
}
