// The dispatch loop of compiled mode: runs the current call through the blocks of one unit
// (the generated compiled_unit_step before this file selects the run of blocks that holds
// the block with r.pc's id, never an opcode) for at most `quantum` records and about
// `budget` units of loop work, and stops when the call ends, fuel runs out, or control
// reaches a block of another unit (the host then runs that unit). Records, fuel, ticks and
// the registers are kept exactly as the interpreter keeps them (frames.glsl), so either mode
// can read the other's state.

// What runs after each block: nothing, unless the shader defers the blocks' control transfers
// (compiled_transfers_vulkan.glsl).
#ifndef COMPILED_AFTER_BLOCK
#define COMPILED_AFTER_BLOCK(r)
#endif

// Whether the unit makes the host's call of its own functions itself (unit_codegen.cpp's
// compiled_unit_entry: the cpu device's units).
#ifndef COMPILED_UNIT_ENTRY
#define COMPILED_UNIT_ENTRY 0
#endif

// How the host's call is made: at once, unless the shader defers it with the blocks' calls
// (compiled_transfers_vulkan.glsl), so that its frame code is not a second inlined copy.
#ifndef COMPILED_ENTRY_CALL
#define COMPILED_ENTRY_CALL(r, f) frame_call(r, f, RETURN_TO_HOST)
#endif

// The host's call (S_PC at H_ENTRY_PC): a call of S_CONT_FUNC; every unit can make it.
uint compiled_entry(INOUT(Regs) r) {
  r.pc = prog(H_ENTRY_PC) + 1u;  // a partial call runs ENTRY again (frame_continue: pc - 1)
#if COMPILED_UNIT_ENTRY
  if (compiled_unit_entry(r)) return 0u;
#endif
  COMPILED_ENTRY_CALL(r, r.cont_func);
  return 0u;
}

uint compiled_run(uint quantum, uint budget) {
  Regs r = regs_load(budget);
  if (r.status != STATUS_RUNNING) return r.status;
  r.ob = frame_operand_base(r);
  CompiledCount c;
  c.records = 0u;
  c.iterations = 0u;
  c.quantum = quantum;
  c.limited = st_get(S_FUEL_LIMITED) != 0u;
  c.fuel = uvec2(st_get(S_FUEL), st_get(S_FUEL + 1u));
  bool stopped = false;  // the loop ended for one of its own reasons
  bool prefix = false;   // a block needs its prefix, which the host runs
  while (true) {
    if (r.status != STATUS_RUNNING || c.iterations >= quantum || r.work >= budget) {
      stopped = true;
      break;
    }
    // The step counts what it ran (blocks of one function's run, unit_codegen.cpp).
    uint n = 0u;
#if COMPILED_UNIT_ENTRY
    // The call's first block runs in the turn that made the call, after the checks that the
    // loop's next turn would make (one call site of the step: compilers inline it).
    bool step = true;
    if (r.pc == prog(H_ENTRY_PC)) {
      compiled_count(c, compiled_entry(r));
      step = r.status == STATUS_RUNNING && r.pc != prog(H_ENTRY_PC) && c.iterations < quantum && r.work < budget;
    }
    if (step) n = compiled_unit_step(r, c);
#else
    if (r.pc == prog(H_ENTRY_PC)) {
      compiled_count(c, compiled_entry(r));
    } else {
      n = compiled_unit_step(r, c);
    }
#endif
    COMPILED_AFTER_BLOCK(r);
    if (n == COMPILED_LEAVE && c.iterations == 0u) return STATUS_COMPILED_ELSEWHERE;  // nothing changed
    if (n == COMPILED_YIELD || n == COMPILED_LEAVE || n == COMPILED_NEEDS_PREFIX) {
      prefix = n == COMPILED_NEEDS_PREFIX;
      stopped = true;
      break;
    }
  }
  if (!stopped) frame_trap(r, WASM_TRAP_DEVICE_LOOP_LIMIT);
  regs_store(r, c.records, c.fuel);
  return prefix ? STATUS_COMPILED_PREFIX : r.status;
}
