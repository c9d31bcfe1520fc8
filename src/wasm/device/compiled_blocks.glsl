// What compiled blocks call besides the device library and the shared frame code
// (frames.glsl, bulk.glsl): the results of compiled mode's block functions, its jump-table
// data and memory.grow. Generated blocks come after this file, the run loop
// (compiled_run.glsl) after them.

// How generated blocks reach linear memory (block_codegen.cpp): each generated function keeps
// the memory's size in a local (the cpu device's C++ its base too: compiled_glsl.cpp defines
// its own). COMPILED_MEMORY_LOCALS opens such a function, COMPILED_MEMORY_REFRESH follows
// whatever may have changed the size (memory.grow, a call that returned into the run). In
// shaders the accesses are instance_memory.glsl's; the size read once per function instead of
// at every access took a tenth off lavapipe's build of a unit of a few dozen accesses (each
// buffer access is a loop over the SIMD lanes there).
#ifndef COMPILED_MEMORY_LOCALS
// addr + offset .. + n inside a memory of `bytes` (no 32-bit wrap-around); the effective
// address in ea.
bool memory_range_in(uint addr, uint offset, uint n, uint bytes, OUT(uint) ea) {
  uint carry1 = 0u;
  uint carry2 = 0u;
  ea = uaddCarry(addr, offset, carry1);
  uint end = uaddCarry(ea, n, carry2);
  return carry1 == 0u && carry2 == 0u && end <= bytes;
}
#define COMPILED_MEMORY_LOCALS uint run_memory_bytes = memory_size_bytes()
#define COMPILED_MEMORY_REFRESH run_memory_bytes = memory_size_bytes()
#define COMPILED_RANGE_OK(address, offset, n, ea) memory_range_in(address, offset, n, run_memory_bytes, ea)
#define COMPILED_LOAD(ea, n) memory_read(ea, n)
#define COMPILED_STORE(ea, n, v) memory_write(ea, n, v)
#endif

// A block function's result when it ran nothing: its work would overrun the dispatch's loop
// budget, so the dispatch ends before it (the next dispatch runs it first).
const uint COMPILED_YIELD = 0xFFFFFFFFu;
// The unit's step function's result when the next block belongs to another unit.
const uint COMPILED_LEAVE = 0xFFFFFFFEu;
// A block's result when its prefix must run and lives elsewhere (the cpu device builds a
// unit's prefixes as a library of their own, compiled_prefix_run.glsl): nothing ran.
const uint COMPILED_NEEDS_PREFIX = 0xFFFFFFFDu;
// Inside a generated run: the block at r.pc is a call or bulk block of a run with many locals,
// which runs at the run's shared site after the locals are spilled (unit_codegen.cpp).
const uint COMPILED_RESUMABLE = 0xFFFFFFFCu;
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

// Records of the dispatch's quantum not yet used (0 once a first block overran it).
uint compiled_room(CompiledCount c) { return c.iterations < c.quantum ? c.quantum - c.iterations : 0u; }

// A generated run counts its blocks with one down-counter, `credit`: the records it may run
// before the quantum or fuel stops it. A full block runs when its records fit the credit (one
// compare and one subtraction); the count (records, iterations, fuel) catches up with the
// credit used since `start` whenever control leaves the run's blocks or a block does not fit.
// (Every full block has at least one record, so its records are its iterations too.)
uint compiled_credit(CompiledCount c) { return min(compiled_room(c), compiled_left(c)); }

void compiled_sync(INOUT(CompiledCount) c, uint credit, INOUT(uint) start) {
  uint used = start - credit;
  c.records += used;
  c.iterations += used;
  if (c.limited) c.fuel = u64_sub(c.fuel, uvec2(used, 0u));
  start = credit;
}

// The loop budget of a dispatch: Vulkan shaders charge each block's loop work and yield
// before a block that would overrun it (the driver's watchdog bounds a dispatch's time). The
// cpu device has no watchdog: its unit sources define these as nothing (compiled_glsl.cpp).
#ifndef COMPILED_OVER_BUDGET
#define COMPILED_OVER_BUDGET(w) (r.work + (w) > r.budget)
#define COMPILED_CHARGE(w) r.work += (w)
#endif
// A full block's transfer to another full block of its run: a direct jump in C++ (the block's
// checks are at its label); in GLSL, which has no goto, back to the run's switch.
#ifndef COMPILED_GOTO
#define COMPILED_GOTO(label) break
#define COMPILED_LABEL(label)
#endif
// The type of a run's variable for an f64 local: a uvec2 in GLSL; C++ defines its own, which
// the compiler keeps in a floating-point register between operations (host_f64_variables.hpp).
#ifndef F64_VARIABLE
#define F64_VARIABLE uvec2
#endif
// The temporaries of f64 add, sub, mul, div and sqrt: on the host's IEEE hardware the
// canonical-NaN rule is applied where such a value meets anything but these operations and
// the comparisons (host_f64_variables.hpp); elsewhere they are the library's operations.
#ifndef F64_RAW
#define F64_RAW uvec2
#define f64_add_raw f64_add
#define f64_sub_raw f64_sub
#define f64_mul_raw f64_mul
#define f64_div_raw f64_div
#define f64_sqrt_raw f64_sqrt
#endif
// A full block's exits that every block of a run shares: a trap (code, and the records after
// the trapping one, which go back to the credit), and the block that does not fit the credit
// or the budget (compiled_short decides, below). In GLSL at each block; in C++ each is one jump
// to its run's one site (unit_codegen.cpp), which keeps the call and its arguments out of every
// block's code.
#ifndef COMPILED_TRAP
#define COMPILED_TRAP(code, records_back) { frame_trap(r, code); credit += (records_back); break; }
#define COMPILED_SHORT(records, work) { n = compiled_short(r, c, credit, start, records, work); if (n != 0u) break; }
#endif
// Whether the generated runs' direct continuations after a return and into a recursive call
// are compiled in (only where COMPILED_GOTO jumps; in GLSL they would only add code).
#ifndef COMPILED_DIRECT_JUMPS
#define COMPILED_DIRECT_JUMPS 0
#endif
// The host's call of one of the unit's functions, where the unit makes it (unit_codegen.cpp's
// compiled_unit_entry): a name of its own, so that a Vulkan shader's assembler can tell a unit
// whose blocks make calls by the text (compiled_glsl.cpp).
#define COMPILED_HOST_CALL_DEFINED(r, f, params, locals, max_stack, entry_pc) \
  frame_call_defined(r, f, RETURN_TO_HOST, params, locals, max_stack, entry_pc)

// A full block of `n` records and `w` loop work does not fit the run's credit or the budget:
// the dispatch ends before it (COMPILED_YIELD), its prefix runs (COMPILED_NEEDS_PREFIX: fuel
// runs out inside it), or it runs anyway (0) as the dispatch's first block, so every dispatch
// progresses. The count is caught up first.
uint compiled_short(INOUT(Regs) r, INOUT(CompiledCount) c, INOUT(uint) credit, INOUT(uint) start, uint n, uint w) {
  compiled_sync(c, credit, start);
  if (c.iterations != 0u && (compiled_room(c) < n || COMPILED_OVER_BUDGET(w))) return COMPILED_YIELD;
  if (compiled_left(c) < n) return COMPILED_NEEDS_PREFIX;
  credit = max(credit, n);
  start = credit;
  return 0u;
}

// The quantum left to a call or bulk block (a function of its own that checks it): all of
// it for the dispatch's first block, which always runs.
uint compiled_block_room(CompiledCount c) { return c.iterations == 0u ? 0xFFFFFFFFu : compiled_room(c); }

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
