// The Vulkan side of both execution modes, part 2: the entry point. RUN_LOOP, defined by the
// shader's assembler (interpreter_glsl.cpp, compiled_glsl.cpp), is the mode's run loop. One invocation per instance;
// `pc.mode` selects what a dispatch does. Every loop here is bounded by the host (ranges of
// at most a few thousand words; the interpreter's quantum and budget): lavapipe ends all
// loops of an invocation after 65535 iterations in total.
void main() {
  uint instance = gl_GlobalInvocationID.x;
  if (instance >= pc.count) return;
  state_base = instance * pc.state_stride;
  memory_base = instance * pc.memory_stride;
  uint io = instance * pc.io_stride;
  if (pc.mode == MODE_INSTANTIATE) {
    // The index space is the template's memory words, then its state words, so the copy of
    // the state (which holds the memory size) comes last.
    uint m = pc.template_memory_words;
    for (uint w = pc.range_begin; w < pc.range_end; w++) {
      if (w < m) {
        mem_set(w, template_words[pc.state_stride + w]);
      } else if (w - m == pc.wasi_instance_word) {
        st_set(w - m, pc.instance_base + instance);  // the ChaCha20 nonce of this instance
      } else {
        st_set(w - m, template_words[w - m]);
      }
    }
    return;
  }
  if (pc.begin != 0u) {
    for (uint k = 0u; k < pc.params; k++) slot_set(k, uvec2(io_words[io + 2u * k], io_words[io + 2u * k + 1u]));
    st_set(S_FUEL_LIMITED, pc.fuel_limited);
    st_set(S_FUEL, pc.fuel_lo);
    st_set(S_FUEL + 1u, pc.fuel_hi);
    begin_call(pc.function);
  }
  write_outcome(io, RUN_LOOP(pc.quantum, pc.budget));
}
