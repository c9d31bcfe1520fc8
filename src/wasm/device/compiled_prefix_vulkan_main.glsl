// The entry point of a unit's prefix shader on Vulkan: an instance whose last run stopped
// before a block of this unit that fuel cannot finish (its outcome says
// STATUS_COMPILED_PREFIX, its pc is that block) runs the block's prefix; every other one is
// left as it is, io words included. PREFIX_FIRST_BLOCK and PREFIX_BLOCKS, the unit's block
// ids, come from the shader's assembler (compiled_glsl.cpp).
void main() {
  if (!bind_instance()) return;
  uint io = instance_io();
  if (io_words[io] != STATUS_COMPILED_PREFIX || st_get(S_PC) - PREFIX_FIRST_BLOCK >= PREFIX_BLOCKS) return;
  write_outcome(io, compiled_run_prefix());
}
