// The Vulkan side of the interpreter, part 2: the entry point. One invocation per instance;
// `pc.mode` selects what a dispatch does.
void main() {
  uint instance = gl_GlobalInvocationID.x;
  if (instance >= pc.count) return;
  state_base = instance * pc.state_stride;
  memory_base = instance * pc.memory_stride;
  uint io = instance * pc.io_stride;
  if (pc.mode == MODE_INSTANTIATE) {
    uint used = st_get(S_PAGES) * 16384u;
    for (uint w = pc.template_memory_words; w < used; w++) mem_set(w, 0u);
    for (uint w = 0u; w < pc.state_stride; w++) st_set(w, template_words[w]);
    for (uint w = 0u; w < pc.template_memory_words; w++) mem_set(w, template_words[pc.state_stride + w]);
  } else if (pc.mode == MODE_BEGIN) {
    for (uint k = 0u; k < pc.values; k++) slot_set(k, uvec2(io_words[io + 2u * k], io_words[io + 2u * k + 1u]));
    st_set(S_FUEL_LIMITED, pc.fuel_limited);
    st_set(S_FUEL, pc.fuel_lo);
    st_set(S_FUEL + 1u, pc.fuel_hi);
    interp_begin_call(pc.function);
  } else if (pc.mode == MODE_RUN) {
    if (interp_run(pc.quantum) == STATUS_RUNNING) atomicAdd(running_count, 1u);
  } else {
    io_words[io] = st_get(S_STATUS);
    io_words[io + 1u] = st_get(S_TRAP);
    io_words[io + 2u] = st_get(S_TRAP_INDEX);
    io_words[io + 3u] = st_get(S_EXECUTED);
    io_words[io + 4u] = st_get(S_EXECUTED + 1u);
    io_words[io + 5u] = st_get(S_PAGES);
    if (st_get(S_STATUS) == STATUS_RETURNED) {
      for (uint k = 0u; k < pc.values; k++) {
        uvec2 v = slot_get(k);
        io_words[io + 6u + 2u * k] = v.x;
        io_words[io + 7u + 2u * k] = v.y;
      }
    }
  }
}
