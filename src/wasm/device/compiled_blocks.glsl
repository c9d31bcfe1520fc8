// What compiled blocks call besides the device library and the shared frame code
// (frames.glsl, bulk.glsl): the results of compiled mode's block functions, its jump-table
// data and memory.grow. Generated blocks come after this file, the run loop
// (compiled_run.glsl) after them.

// A block function's result when it ran nothing: its work would overrun the dispatch's loop
// budget, so the dispatch ends before it (the next dispatch runs it first).
const uint COMPILED_YIELD = 0xFFFFFFFFu;
// The unit's step function's result when the next block belongs to another unit.
const uint COMPILED_LEAVE = 0xFFFFFFFEu;
// A block's result when its prefix must run and lives elsewhere (the cpu device builds a
// unit's prefixes as a library of their own, compiled_prefix_run.glsl): nothing ran.
const uint COMPILED_NEEDS_PREFIX = 0xFFFFFFFDu;
// Inside a generated run: the block at r.pc is a call or bulk block, which runs after the
// run's locals are spilled (never a block function's result).
const uint COMPILED_RESUMABLE = 0xFFFFFFFCu;
// Inside a generated run: a one-block loop has counted its last pass itself, and the run
// ends (its quantum, budget or call is over).
const uint COMPILED_COUNTED = 0xFFFFFFFBu;

// What a dispatch has counted so far (compiled_run.glsl): records executed (fuel charged),
// iterations of its quantum (a block counts at least one), and the fuel left when limited.
// The dispatch loop and the generated runs of blocks (unit_codegen.cpp) count alike.
struct CompiledCount {
  uint records;
  uint iterations;
  uint quantum;
  bool limited;
  uvec2 fuel;
};

// Records the next block may run before fuel runs out (all, when unlimited or above 2^32).
uint compiled_left(CompiledCount c) { return c.limited && c.fuel.y == 0u ? c.fuel.x : 0xFFFFFFFFu; }

// A block (or the ENTRY record) executed n records.
void compiled_count(INOUT(CompiledCount) c, uint n) {
  c.records += n;
  c.iterations += max(n, 1u);
  if (c.limited) c.fuel = u64_sub(c.fuel, uvec2(n, 0u));
}

// Fuel ran out before the block's record `executed`: the call stops there, as the
// interpreter stops before the record that finds no fuel.
uint compiled_out_of_fuel(INOUT(Regs) r, uint executed) {
  r.status = STATUS_FUEL_EXHAUSTED;
  r.trap = WASM_TRAP_FUEL_EXHAUSTED;
  return executed;
}

// Entry k of the jump tables (the program's code section holds only these in compiled mode):
// (0, target block, arity, height).
uvec4 compiled_jump_entry(uint k) {
  uint w = prog(H_CODE) + 4u * k;
  return uvec4(prog(w), prog(w + 1u), prog(w + 2u), prog(w + 3u));
}

// memory.grow by n pages: the old size, or 0xFFFFFFFF beyond the reservation or maximum.
uint compiled_memory_grow(uint n) {
  uint old = st_get(S_PAGES);
  if (!range_within(old, n, prog(H_MEMORY_LIMIT))) return 0xFFFFFFFFu;
  st_set(S_PAGES, old + n);  // pages beyond the size are kept zero, so nothing to clear
  return old;
}
