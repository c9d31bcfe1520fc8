// The registers of a running call and its control transfers, shared by both execution
// modes (the interpreter and compiled code keep identical frames): the operand stack, calls
// (with the callee's locals cleared in chunks), returns, branches and call_indirect's checks.
// See interpreter.glsl for the frame layout, fuel and the bounds of a dispatch.

struct Regs {
  uint pc;
  uint fp;
  uint sp;
  uint func;
  uint ob;  // operand base of the current frame
  uint status;
  uint trap;
  uint cont;       // 1 when the record at pc continues a partial one
  uint cont_func;  // partial call: the callee
  uint cont_done;  // partial call: locals cleared so far
  uint depth;      // frames of the current call
  uint work;       // loop work done in this dispatch
  uint budget;
};

// Four control words from an aligned quad (interpreter_layout.glsl), unless the includer reads
// them as one access (Vulkan shaders: interpreter_vulkan_bindings.glsl).
#if !defined(WASM_HOST_QUADS)
uvec4 st_get4(uint i) { return uvec4(st_get(i), st_get(i + 1u), st_get(i + 2u), st_get(i + 3u)); }
void st_set4(uint i, uvec4 v) {
  st_set(i, v.x);
  st_set(i + 1u, v.y);
  st_set(i + 2u, v.z);
  st_set(i + 3u, v.w);
}
#endif

// The registers of the current call from the state, for a dispatch with `budget` loop work.
Regs regs_load(uint budget) {
  Regs r;
  r.status = st_get(S_STATUS);
  uvec4 frame = st_get4(S_PC);  // pc, fp, sp, func
  r.pc = frame.x;
  r.fp = frame.y;
  r.sp = frame.z;
  r.func = frame.w;
  r.trap = WASM_TRAP_NONE;
  uvec4 cont = st_get4(S_CONT);  // the continuation, depth
  r.cont = cont.x;
  r.cont_func = cont.y;
  r.cont_done = cont.z;
  r.depth = cont.w;
  r.work = 0u;
  r.budget = budget;
  r.ob = 0u;  // set by the caller once the function table is reachable (frame_header_slot)
  return r;
}

// Writes the registers back, adding the `records` executed to the call's count and the WASI
// clock, and the fuel left.
void regs_store(Regs r, uint records, uvec2 fuel) {
  uvec4 counts = st_get4(S_EXECUTED);  // executed, ticks
  uvec2 count = u64_add(uvec2(counts.x, counts.y), uvec2(records, 0u));
  uvec2 ticks = u64_add(uvec2(counts.z, counts.w), uvec2(records, 0u));
  st_set4(S_EXECUTED, uvec4(count.x, count.y, ticks.x, ticks.y));
  st_set4(S_STATUS, uvec4(r.status, r.trap, fuel.x, fuel.y));
  st_set4(S_PC, uvec4(r.pc, r.fp, r.sp, r.func));
  st_set4(S_CONT, uvec4(r.cont, r.cont_func, r.cont_done, r.depth));
}

uint function_word(uint f, uint field) { return prog(prog(H_FUNCS) + F_WORDS * f + field); }

uint frame_header_slot(uint f, uint fp) { return fp + function_word(f, F_PARAMS) + function_word(f, F_LOCALS); }

// The operand base of the current frame; the ENTRY record's frame is the host's (no header).
uint frame_operand_base(Regs r) { return r.pc == prog(H_ENTRY_PC) ? 0u : frame_header_slot(r.func, r.fp) + 2u; }

void frame_trap(INOUT(Regs) r, uint code) {
  r.status = STATUS_TRAPPED;
  r.trap = code;
  r.cont = 0u;
}

// How much of a chunked operation this record may do now (at least 1, so it progresses).
uint allowance(Regs r) { return r.work < r.budget ? r.budget - r.work : 1u; }

// Runs the record at pc - 1 again as a continuation.
void frame_continue(INOUT(Regs) r) {
  r.cont = 1u;
  r.pc -= 1u;
}

uvec2 pop(INOUT(Regs) r) {
  r.sp -= 1u;
  return slot_get(r.sp);
}

void push(INOUT(Regs) r, uvec2 v) {
  slot_set(r.sp, v);
  r.sp += 1u;
}

void push32(INOUT(Regs) r, uint v) { push(r, uvec2(v, 0u)); }

// The i32 operand k slots below the top (0 = top), without popping.
uint peek32(Regs r, uint k) { return slot_get(r.sp - 1u - k).x; }

void poke32(Regs r, uint k, uint v) { slot_set(r.sp - 1u - k, uvec2(v, 0u)); }

// Whether a frame whose header is at `header` and whose operands take `max_stack` slots beyond
// it passes the value stack's end (header + 2 + max_stack > stack_slots, without wrap-around for
// huge frames), or one more frame passes call_depth.
WASM_LEAF bool frame_overflows(Regs r, uint header, uint max_stack) {
  uint stack_slots = prog(H_STACK_SLOTS);
  return header >= stack_slots || stack_slots - header < 2u + max_stack || r.depth >= prog(H_CALL_DEPTH);
}

// Makes the frame at `fp` (header at `header`, its locals set) f's current one: the header holds
// (ret_pc, caller's fp) and (caller's function, caller's operand base); control goes to entry_pc.
WASM_LEAF void frame_enter(INOUT(Regs) r, uint f, uint fp, uint header, uint ret_pc, uint entry_pc) {
  slot_set(header, uvec2(ret_pc, r.fp));
  slot_set(header + 1u, uvec2(r.func, r.ob));
  r.fp = fp;
  r.func = f;
  r.depth += 1u;
  r.ob = header + 2u;
  r.sp = header + 2u;
  r.pc = entry_pc;
}

// Calls the defined function f, whose table entry has `params`, `locals`, `max_stack` and the
// code position `entry_pc` (compiled code passes them as constants; entry_pc is then its entry
// block's id), with its arguments on top of the stack; the callee returns to ret_pc. The
// callee's locals are cleared in chunks: until they all are, the call record runs again. The frame header holds (ret_pc, caller's fp) and (caller's
// function, caller's operand base): a return restores the operand base without the function
// table.
void frame_call_defined(INOUT(Regs) r, uint f, uint ret_pc, uint params, uint locals, uint max_stack, uint entry_pc) {
  uint fp = r.sp - params;
  uint header = fp + params + locals;
  if (frame_overflows(r, header, max_stack)) {
    frame_trap(r, WASM_TRAP_CALL_STACK_EXHAUSTED);
    return;
  }
#ifdef __cplusplus
  if (r.cont == 0u && locals <= allowance(r)) {
    // The common case, as the chunks below would do it in one (a call site that has just
    // tested r.cont, with `locals` a constant, compiles to a few stores). Shaders leave it to
    // the chunks: one loop less for the driver to compile, in every unit.
    for (uint k = 0u; k < locals; k++) slot_set(fp + params + k, uvec2(0u, 0u));
    r.work += locals;
  } else
#endif
  {
    uint done = r.cont != 0u ? r.cont_done : 0u;
    uint chunk = min(locals - done, allowance(r));
    for (uint s = fp + params + done; s < fp + params + done + chunk; s++) slot_set(s, uvec2(0u, 0u));
    r.work += chunk;
    done += chunk;
    if (done < locals) {
      r.cont_func = f;
      r.cont_done = done;
      frame_continue(r);
      return;
    }
    r.cont = 0u;
  }
  // Locals of a reference type start as null, which is not the cleared zero (NULL_REF).
  uint refs = function_word(f, F_REF_LOCALS);
  if (refs != 0u) {
    uint count = prog(refs);
    for (uint k = 0u; k < count; k++) slot_set(fp + prog(refs + 1u + k), uvec2(NULL_REF, 0u));
    r.work += count;
  }
  frame_enter(r, f, fp, header, ret_pc, entry_pc);
}

// A compiled call site's common case (it has tested r.cont == 0): the same frame as
// frame_call_defined's, inlined where its arguments are constants, so that a call costs a few
// stores instead of an out-of-line call that tests for continuations and reference locals.
// `reference_locals`: whether the callee has locals of a reference type (a constant of the
// site); then, or when its locals exceed the allowance, the general function decides.
#ifdef __cplusplus
WASM_LEAF void frame_call_defined_now(INOUT(Regs) r, uint f, uint ret_pc, uint params, uint locals, uint max_stack,
                                      uint entry_pc, bool reference_locals) {
  if (reference_locals || locals > allowance(r)) {
    frame_call_defined(r, f, ret_pc, params, locals, max_stack, entry_pc);
    return;
  }
  uint fp = r.sp - params;
  uint header = fp + params + locals;
  if (frame_overflows(r, header, max_stack)) {
    frame_trap(r, WASM_TRAP_CALL_STACK_EXHAUSTED);
    return;
  }
  for (uint k = 0u; k < locals; k++) slot_set(fp + params + k, uvec2(0u, 0u));
  r.work += locals;
  frame_enter(r, f, fp, header, ret_pc, entry_pc);
}
#else
// (Shaders: one function less for the driver to compile in every unit.)
#define frame_call_defined_now(r, f, ret_pc, params, locals, max_stack, entry_pc, refs) frame_call_defined(r, f, ret_pc, params, locals, max_stack, entry_pc)
#endif

// Calls f (any function) with its arguments on top of the stack; the callee returns to ret_pc.
void frame_call(INOUT(Regs) r, uint f, uint ret_pc) {
  uint params = function_word(f, F_PARAMS);
  if (function_word(f, F_KIND) == FUNCTION_HOST_NOP) {
    r.sp -= params;
    r.cont = 0u;
    if (ret_pc == RETURN_TO_HOST) {
      r.status = STATUS_RETURNED;
    } else {
      r.pc = ret_pc;
    }
    return;
  }
  if (function_word(f, F_KIND) == FUNCTION_WASI) {  // the WASI service makes the call
    st_set(S_WASI_FUNC, f);
    st_set(S_WASI_RET, ret_pc);
    st_set(S_WASI_PROGRESS, 0u);
    r.status = STATUS_WASI;
    r.cont = 0u;
    return;
  }
  frame_call_defined(r, f, ret_pc, params, function_word(f, F_LOCALS), function_word(f, F_MAX_STACK),
                     function_word(f, F_CODE));
}

void frame_return(INOUT(Regs) r, uint count) {
  uint header = r.ob - 2u;
  uvec2 link = slot_get(header);
  uvec2 caller = slot_get(header + 1u);
  // (Compiled code writes the results at the frame's start itself where it can.)
  if (r.sp - count != r.fp) {
    for (uint k = 0u; k < count; k++) slot_set(r.fp + k, slot_get(r.sp - count + k));
  }
  r.work += count;
  r.sp = r.fp + count;
  if (link.x == RETURN_TO_HOST) {
    r.status = STATUS_RETURNED;
    return;
  }
  r.pc = link.x;
  r.fp = link.y;
  r.func = caller.x;
  r.depth -= 1u;
  r.ob = caller.y;
}

// Keeps the top `arity` values at the label's height, then jumps.
WASM_LEAF void frame_branch(INOUT(Regs) r, uint target, uint arity, uint height) {
  uint to = r.ob + height;
  uint from = r.sp - arity;
  if (from != to) {
    for (uint k = 0u; k < arity; k++) slot_set(to + k, slot_get(from + k));
  }
  r.work += arity;
  r.sp = to + arity;
  r.pc = target;
}

// The callee of call_indirect through `table`, expecting canonical type id `type_id`, with
// the index popped; NULL_REF after a trap. A continuation (clearing the callee's locals) has
// already resolved and popped the index.
uint frame_indirect_callee(INOUT(Regs) r, uint table, uint type_id) {
  if (r.cont != 0u) return r.cont_func;
  uint i = pop(r).x;
  st_set(S_TRAP_INDEX, i);  // the spec's message names the index
  if (i >= table_size(table)) {
    frame_trap(r, WASM_TRAP_UNDEFINED_ELEMENT);
    return NULL_REF;
  }
  uint f = table_get_entry(table, i);
  if (f == NULL_REF) {
    frame_trap(r, WASM_TRAP_UNINITIALIZED_ELEMENT);
    return NULL_REF;
  }
  if (function_word(f, F_TYPE_ID) != type_id) {
    frame_trap(r, WASM_TRAP_INDIRECT_CALL_TYPE_MISMATCH);
    return NULL_REF;
  }
  return f;
}

// call_indirect through `table`, expecting canonical type id `type_id`.
void frame_call_indirect(INOUT(Regs) r, uint table, uint type_id) {
  uint f = frame_indirect_callee(r, table, type_id);
  if (f != NULL_REF) frame_call(r, f, r.pc);
}

// Starts a call of f: the host has written its arguments to slots 0 .. params. The first
// thing either mode runs is the ENTRY record (H_ENTRY_PC), which makes the call (so clearing
// locals is chunked too).
void begin_call(uint f) {
  st_set(S_EXECUTED, 0u);
  st_set(S_EXECUTED + 1u, 0u);
  st_set(S_PC, prog(H_ENTRY_PC));
  st_set(S_FP, 0u);
  st_set(S_SP, function_word(f, F_PARAMS));
  st_set(S_FUNC, f);
  st_set(S_STATUS, STATUS_RUNNING);
  st_set(S_TRAP, WASM_TRAP_NONE);
  st_set(S_CONT, 0u);
  st_set(S_CONT_FUNC, f);
  st_set(S_CONT_DONE, 0u);
  st_set(S_DEPTH, 0u);
}
