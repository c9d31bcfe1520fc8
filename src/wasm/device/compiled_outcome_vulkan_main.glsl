// The entry point of compiled mode's outcome shader on Vulkan, the last dispatch of every step:
// the runs before it (the host's call, the units) left each instance's status in its io words
// (RUN_OUTCOME_BY_STEP), or nothing where the instance was another unit's; this writes the
// other outcome words from the state, and sums the group up where the host asked. One copy of
// that code per device instead of one per unit.
void main() {
  if (!bind_instance()) return;
  uint io = instance_io();
  uint status = io_words[io];
  write_outcome(io, status == STATUS_ENTERED ? STATUS_RUNNING : status);
  if (pc.summary_word != 0xFFFFFFFFu) summarise_outcome(io);
}
