// The Vulkan side of both execution modes, part 2: the entry point of a run (instantiation has
// a small shader of its own, vulkan_instantiate_main.glsl). RUN_LOOP, defined by the shader's
// assembler (interpreter_glsl.cpp, compiled_glsl.cpp), is the mode's run loop. One invocation
// per instance: (start the call,) run one quantum, write the outcome to io. Every loop here is
// bounded by the host (the run loops' quantum and budget): lavapipe ends all loops of an
// invocation after 65535 iterations in total.

// Whether the shader starts calls (pc.begin): compiled mode's units do not, the shader of the
// host's call does (compiled_glsl.cpp); leaving it out is a fifth of a small unit's build.
#ifndef RUN_BEGINS_CALLS
#define RUN_BEGINS_CALLS 1
#endif
// Whether a later shader of the step writes the outcome words (compiled mode: each unit's own
// copy of that code was a third of a small unit's build on lavapipe).
#ifndef RUN_OUTCOME_BY_STEP
#define RUN_OUTCOME_BY_STEP 0
#endif

void main() {
  if (!bind_instance()) return;
  if (pc.skip_word != 0xFFFFFFFFu && io_words[pc.skip_word] == 0u) return;
  uint io = instance_io();
#if RUN_BEGINS_CALLS
  if (pc.begin != 0u) {
    uint args = pc.args_word + gl_GlobalInvocationID.x * 2u * pc.params;
    for (uint k = 0u; k < pc.params; k++) slot_set(k, uvec2(io_words[args + 2u * k], io_words[args + 2u * k + 1u]));
    st_set(S_FUEL_LIMITED, pc.fuel_limited);
    st_set(S_FUEL, pc.fuel_lo);
    st_set(S_FUEL + 1u, pc.fuel_hi);
    clear_memory_fault();
    begin_call(pc.function);
  }
#endif
#if RUN_OUTCOME_BY_STEP
#if !COMPILED_HOST_ENTRY
  // The host's call made by the step's entry shader: the share of the dispatch it used.
  if (io_words[io] == STATUS_ENTERED) {
    entered_iterations = io_words[io + 1u];
    entered_work = io_words[io + 2u];
  }
#endif
#endif
  uint status = RUN_LOOP(pc.quantum, pc.budget);
#if RUN_OUTCOME_BY_STEP
  // Compiled mode's step ends in a shader that writes every outcome word from the state and
  // sums the group up (compiled_outcome_vulkan_main.glsl): a run leaves only its status (and
  // the entry shader what the callee's unit goes on from, in the words that shader rewrites).
  if (status != STATUS_COMPILED_ELSEWHERE) {
    status = outcome_status(status);
    io_words[io] = status;
#if COMPILED_HOST_ENTRY
    if (status == STATUS_RUNNING && st_get(S_PC) != prog(H_ENTRY_PC)) {
      io_words[io] = STATUS_ENTERED;
      io_words[io + 1u] = entered_iterations;
      io_words[io + 2u] = entered_work;
    }
#endif
  }
#else
  if (status != STATUS_COMPILED_ELSEWHERE) write_outcome(io, status);  // else its outcome stands
  // The host reads this count, not every outcome, between the dispatches of a sequence.
  if (pc.running_word != 0xFFFFFFFFu &&
      (status == STATUS_RUNNING || status == STATUS_WASI || status == STATUS_COMPILED_PREFIX)) {
    atomicAdd(io_words[pc.running_word], 1u);
  }
  if (pc.summary_word != 0xFFFFFFFFu) summarise_outcome(io);
#endif
}
