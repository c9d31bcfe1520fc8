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

// Whether this code makes the host's call (S_PC at H_ENTRY_PC): every unit on the cpu device;
// on Vulkan a shader of its own (compiled_glsl.cpp), so that a unit without calls has no
// frame code for it. Elsewhere the ENTRY id is a block of another unit (COMPILED_LEAVE).
#ifndef COMPILED_HOST_ENTRY
#define COMPILED_HOST_ENTRY 1
#endif

#if COMPILED_HOST_ENTRY
// The host's call: a call of S_CONT_FUNC.
uint compiled_entry(INOUT(Regs) r) {
  r.pc = prog(H_ENTRY_PC) + 1u;  // a partial call runs ENTRY again (frame_continue: pc - 1)
#if COMPILED_UNIT_ENTRY
  if (compiled_unit_entry(r)) return 0u;
#endif
  COMPILED_ENTRY_CALL(r, r.cont_func);
  return 0u;
}
#endif

// On Vulkan the step's entry shader makes the host's call, and the callee's unit, dispatched
// next in the same step, goes on from the share of the dispatch the call used (its quantum and
// loop work, passed through the io words by interpreter_vulkan_main.glsl): together they stop
// where one dispatch of a unit making the call itself stops (the cpu device).
#if defined(RUN_OUTCOME_BY_STEP) && RUN_OUTCOME_BY_STEP
#define COMPILED_ENTRY_HANDOVER 1
uint entered_iterations = 0u;  // invocation-private
uint entered_work = 0u;
#else
#define COMPILED_ENTRY_HANDOVER 0
#endif

uint compiled_run(uint quantum, uint budget) {
  Regs r = regs_load(budget);
  if (r.status != STATUS_RUNNING) return r.status;
  r.ob = frame_operand_base(r);
  CompiledCount c;
  c.records = 0u;
  c.iterations = 0u;
#if COMPILED_ENTRY_HANDOVER
  c.iterations = entered_iterations;
  r.work = entered_work;
#endif
  uint first_iterations = c.iterations;
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
#elif COMPILED_HOST_ENTRY
    if (r.pc == prog(H_ENTRY_PC)) {
      compiled_count(c, compiled_entry(r));
    } else {
      n = compiled_unit_step(r, c);
    }
#else
    n = compiled_unit_step(r, c);
#endif
    COMPILED_AFTER_BLOCK(r);
    if (n == COMPILED_LEAVE && c.iterations == first_iterations) return STATUS_COMPILED_ELSEWHERE;  // nothing changed
    if (n == COMPILED_YIELD || n == COMPILED_LEAVE || n == COMPILED_NEEDS_PREFIX) {
      prefix = n == COMPILED_NEEDS_PREFIX;
      stopped = true;
      break;
    }
  }
  if (!stopped) frame_trap(r, WASM_TRAP_DEVICE_LOOP_LIMIT);
#if COMPILED_ENTRY_HANDOVER && COMPILED_HOST_ENTRY
  entered_iterations = c.iterations;
  entered_work = r.work;
#endif
  regs_store(r, c.records, c.fuel);
  return prefix ? STATUS_COMPILED_PREFIX : r.status;
}
