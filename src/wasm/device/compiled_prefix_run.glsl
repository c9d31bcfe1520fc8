// The run of one block's prefix (after compiled_run returned STATUS_COMPILED_PREFIX; each
// device builds a unit's prefixes apart from the unit, as they run at most once per call):
// the block at S_PC has fewer records than fuel left, so its prefix
// (the generated compiled_prefix_step before this file) runs up to the exact record where
// fuel runs out, or to an earlier trap.
uint compiled_run_prefix() {
  Regs r = regs_load(0xFFFFFFFFu);
  r.ob = frame_operand_base(r);
  uvec2 fuel = uvec2(st_get(S_FUEL), st_get(S_FUEL + 1u));
  uint left = fuel.y == 0u ? fuel.x : 0xFFFFFFFFu;
  uint n = compiled_prefix_step(r, left, 0u);
  regs_store(r, n, u64_sub(fuel, uvec2(n, 0u)));
  return r.status;
}
