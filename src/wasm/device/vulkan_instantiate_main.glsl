// The entry point of instantiation on Vulkan, a shader of its own (the bindings and this file)
// so that neither execution mode's large shader is needed to create instances: each
// invocation copies the template's words [range_begin, range_end) into its instance. The
// index space is the template's memory words, then its state words, so the copy of the state
// (which holds the memory size) comes last. The host keeps each range to a few thousand words
// (lavapipe ends all loops of an invocation after 65535 iterations in total).
void main() {
  if (!bind_instance()) return;
  uint m = pc.template_memory_words;
  for (uint w = pc.range_begin; w < pc.range_end; w++) {
    if (w < m) {
      mem_set(w, template_words[pc.state_stride + w]);
    } else if (w - m == pc.wasi_instance_word) {
      st_set(w - m, pc.instance_base + gl_GlobalInvocationID.x);  // the ChaCha20 nonce of this instance
    } else {
      st_set(w - m, template_words[w - m]);
    }
  }
}
