// The device interpreter: runs one instance's current call for at most `quantum` records,
// then saves its registers in the state so the next dispatch resumes exactly there.
//
// Frames live in the value stack (no recursion in device code):
//   [params][declared locals][header: (return pc, caller fp), (caller function, 0)][operands]
// A call turns the arguments on the caller's operand stack into the callee's first locals in
// place; a return copies the results down to the frame's first slot. A call whose frame
// (header + locals + the function's max_stack operands) does not fit traps with "call stack
// exhausted", so no other push needs a check. Branch heights are relative to the operand base
// (the slot after the header). Fuel counts executed records; with fuel F exactly F records run
// and the call stops before the next one.

struct InterpRegs {
  uint pc;
  uint fp;
  uint sp;
  uint func;
  uint ob;  // operand base of the current frame
  uint status;
  uint trap;
};

uint function_word(uint f, uint field) { return prog(prog(H_FUNCS) + F_WORDS * f + field); }

uint frame_header_slot(uint f, uint fp) { return fp + function_word(f, F_PARAMS) + function_word(f, F_LOCALS); }

void interp_trap(INOUT(InterpRegs) r, uint code) {
  r.status = STATUS_TRAPPED;
  r.trap = code;
}

// Calls f with its arguments on top of the stack; the callee returns to ret_pc.
void interp_enter(INOUT(InterpRegs) r, uint f, uint ret_pc) {
  uint params = function_word(f, F_PARAMS);
  if (function_word(f, F_KIND) == FUNCTION_HOST_NOP) {
    r.sp -= params;
    if (ret_pc == RETURN_TO_HOST) {
      r.status = STATUS_RETURNED;
    } else {
      r.pc = ret_pc;
    }
    return;
  }
  uint locals = function_word(f, F_LOCALS);
  uint fp = r.sp - params;
  uint header = fp + params + locals;
  uint stack_slots = prog(H_STACK_SLOTS);
  // header + 2 + max_stack <= stack_slots, without wrap-around for huge frames.
  if (header >= stack_slots || stack_slots - header < 2u + function_word(f, F_MAX_STACK)) {
    interp_trap(r, WASM_TRAP_CALL_STACK_EXHAUSTED);
    return;
  }
  for (uint s = fp + params; s < header; s++) slot_set(s, uvec2(0u, 0u));
  slot_set(header, uvec2(ret_pc, r.fp));
  slot_set(header + 1u, uvec2(r.func, 0u));
  r.fp = fp;
  r.func = f;
  r.ob = header + 2u;
  r.sp = header + 2u;
  r.pc = function_word(f, F_CODE);
}

void interp_return(INOUT(InterpRegs) r, uint count) {
  uint header = frame_header_slot(r.func, r.fp);
  uvec2 link = slot_get(header);
  uvec2 caller = slot_get(header + 1u);
  for (uint k = 0u; k < count; k++) slot_set(r.fp + k, slot_get(r.sp - count + k));
  r.sp = r.fp + count;
  if (link.x == RETURN_TO_HOST) {
    r.status = STATUS_RETURNED;
    return;
  }
  r.pc = link.x;
  r.fp = link.y;
  r.func = caller.x;
  r.ob = frame_header_slot(r.func, r.fp) + 2u;
}

// Keeps the top `arity` values at the label's height, then jumps.
void interp_branch(INOUT(InterpRegs) r, uint target, uint arity, uint height) {
  uint to = r.ob + height;
  uint from = r.sp - arity;
  if (from != to) {
    for (uint k = 0u; k < arity; k++) slot_set(to + k, slot_get(from + k));
  }
  r.sp = to + arity;
  r.pc = target;
}

uvec2 pop(INOUT(InterpRegs) r) {
  r.sp -= 1u;
  return slot_get(r.sp);
}

void push(INOUT(InterpRegs) r, uvec2 v) {
  slot_set(r.sp, v);
  r.sp += 1u;
}

void push32(INOUT(InterpRegs) r, uint v) { push(r, uvec2(v, 0u)); }

uvec4 fetch(uint pc) {
  uint w = prog(H_CODE) + 4u * pc;
  return uvec4(prog(w), prog(w + 1u), prog(w + 2u), prog(w + 3u));
}

// call_indirect through `table` at index i, expecting canonical type id `type_id`.
void interp_call_indirect(INOUT(InterpRegs) r, uint table, uint type_id, uint i) {
  st_set(S_TRAP_INDEX, i);  // the spec's message names the index
  if (i >= table_size(table)) {
    interp_trap(r, WASM_TRAP_UNDEFINED_ELEMENT);
    return;
  }
  uint f = table_get_entry(table, i);
  if (f == NULL_REF) {
    interp_trap(r, WASM_TRAP_UNINITIALIZED_ELEMENT);
    return;
  }
  if (function_word(f, F_TYPE_ID) != type_id) {
    interp_trap(r, WASM_TRAP_INDIRECT_CALL_TYPE_MISMATCH);
    return;
  }
  interp_enter(r, f, r.pc);
}

// Executes one record (the pc already points past it). Numeric instructions are handled
// by the caller.
void interp_step(INOUT(InterpRegs) r, uvec4 ins, uint op) {
  uint t = WASM_TRAP_NONE;
  switch (op) {
    case 0x00u: interp_trap(r, WASM_TRAP_UNREACHABLE); break;
    case 0x01u: break;
    case 0x200u: r.pc = ins.y; break;  // JUMP
    case 0x201u: {                      // JUMP_IF_ZERO (lowered `if`)
      if (pop(r).x == 0u) r.pc = ins.y;
      break;
    }
    case 0x0Cu: interp_branch(r, ins.y, ins.z, ins.w); break;
    case 0x0Du: {
      if (pop(r).x != 0u) interp_branch(r, ins.y, ins.z, ins.w);
      break;
    }
    case 0x0Eu: {
      uint i = min(pop(r).x, ins.y);
      uvec4 entry = fetch(r.pc + i);
      interp_branch(r, entry.y, entry.z, entry.w);
      break;
    }
    case 0x0Fu: interp_return(r, ins.y); break;
    case 0x10u: interp_enter(r, ins.y, r.pc); break;
    case 0x11u: {
      uint i = pop(r).x;
      interp_call_indirect(r, ins.z, ins.w, i);
      break;
    }
    case 0x1Au: r.sp -= 1u; break;
    case 0x1Bu:
    case 0x1Cu: {
      uint c = pop(r).x;
      uvec2 b = pop(r);
      uvec2 a = pop(r);
      push(r, c != 0u ? a : b);
      break;
    }
    case 0x20u: push(r, slot_get(r.fp + ins.y)); break;
    case 0x21u: slot_set(r.fp + ins.y, pop(r)); break;
    case 0x22u: slot_set(r.fp + ins.y, slot_get(r.sp - 1u)); break;
    case 0x23u: push(r, global_get(ins.y)); break;
    case 0x24u: global_set(ins.y, pop(r)); break;
    case 0x25u: {
      uint i = pop(r).x;
      if (i >= table_size(ins.y)) {
        interp_trap(r, WASM_TRAP_TABLE_OUT_OF_BOUNDS);
      } else {
        push32(r, table_get_entry(ins.y, i));
      }
      break;
    }
    case 0x26u: {
      uint ref = pop(r).x;
      uint i = pop(r).x;
      if (i >= table_size(ins.y)) {
        interp_trap(r, WASM_TRAP_TABLE_OUT_OF_BOUNDS);
      } else {
        table_set_entry(ins.y, i, ref);
      }
      break;
    }
    case 0x3Fu: push32(r, st_get(S_PAGES)); break;
    case 0x40u: {
      uint n = pop(r).x;
      uint old = st_get(S_PAGES);
      if (range_within(old, n, prog(H_MEMORY_LIMIT))) {
        st_set(S_PAGES, old + n);  // pages beyond the size are kept zero, so nothing to clear
        push32(r, old);
      } else {
        push32(r, 0xFFFFFFFFu);
      }
      break;
    }
    case 0x41u: push32(r, ins.y); break;
    case 0x42u: push(r, uvec2(ins.y, ins.z)); break;
    case 0x43u: push32(r, ins.y); break;
    case 0x44u: push(r, uvec2(ins.y, ins.z)); break;
    case 0xD0u: push32(r, NULL_REF); break;
    case 0xD1u: {
      // Popped first: GLSL copies an inout argument in before evaluating the others.
      uint ref = pop(r).x;
      push32(r, ref == NULL_REF ? 1u : 0u);
      break;
    }
    case 0xD2u: push32(r, ins.y); break;
    case 0x108u: {  // memory.init
      uint n = pop(r).x;
      uint src = pop(r).x;
      uint dst = pop(r).x;
      t = memory_init(ins.y, dst, src, n);
      break;
    }
    case 0x109u: st_set(prog(H_DROPPED) + ins.y, 1u); break;
    case 0x10Au: {
      uint n = pop(r).x;
      uint src = pop(r).x;
      uint dst = pop(r).x;
      t = memory_copy(dst, src, n);
      break;
    }
    case 0x10Bu: {
      uint n = pop(r).x;
      uint value = pop(r).x;
      uint dst = pop(r).x;
      t = memory_fill(dst, value, n);
      break;
    }
    case 0x10Cu: {  // table.init: a = element segment, b = table
      uint n = pop(r).x;
      uint src = pop(r).x;
      uint dst = pop(r).x;
      t = table_init(ins.z, ins.y, dst, src, n);
      break;
    }
    case 0x10Du: st_set(prog(H_DROPPED) + prog(H_DATA_COUNT) + ins.y, 1u); break;
    case 0x10Eu: {  // table.copy: a = destination, b = source
      uint n = pop(r).x;
      uint src = pop(r).x;
      uint dst = pop(r).x;
      t = table_copy(ins.y, ins.z, dst, src, n);
      break;
    }
    case 0x10Fu: {
      uint n = pop(r).x;
      uint ref = pop(r).x;
      push32(r, table_grow(ins.y, ref, n));
      break;
    }
    case 0x110u: push32(r, table_size(ins.y)); break;
    case 0x111u: {
      uint n = pop(r).x;
      uint ref = pop(r).x;
      uint dst = pop(r).x;
      t = table_fill(ins.y, dst, ref, n);
      break;
    }
    default: {
      if (op >= 0x28u && op <= 0x35u) {
        uint n = load_width(op);
        uint ea = 0u;
        uint addr = pop(r).x;
        if (memory_range_ok(addr, ins.z, n, ea)) {
          push(r, load_extend(op, memory_read(ea, n)));
        } else {
          t = WASM_TRAP_MEMORY_OUT_OF_BOUNDS;
        }
      } else if (op >= 0x36u && op <= 0x3Eu) {
        uint n = store_width(op);
        uint ea = 0u;
        uvec2 v = pop(r);
        uint addr = pop(r).x;
        if (memory_range_ok(addr, ins.z, n, ea)) {
          memory_write(ea, n, v);
        } else {
          t = WASM_TRAP_MEMORY_OUT_OF_BOUNDS;
        }
      }
      break;
    }
  }
  if (t != WASM_TRAP_NONE) interp_trap(r, t);
}

// Starts a call of f: the host has written its arguments to slots 0 .. params.
void interp_begin_call(uint f) {
  InterpRegs r;
  r.pc = 0u;
  r.fp = 0u;
  r.sp = function_word(f, F_PARAMS);
  r.func = f;
  r.ob = 0u;
  r.status = STATUS_RUNNING;
  r.trap = WASM_TRAP_NONE;
  st_set(S_EXECUTED, 0u);
  st_set(S_EXECUTED + 1u, 0u);
  interp_enter(r, f, RETURN_TO_HOST);
  st_set(S_PC, r.pc);
  st_set(S_FP, r.fp);
  st_set(S_SP, r.sp);
  st_set(S_FUNC, r.func);
  st_set(S_STATUS, r.status);
  st_set(S_TRAP, r.trap);
}

// Runs the current call for at most `quantum` records; returns the status.
uint interp_run(uint quantum) {
  InterpRegs r;
  r.status = st_get(S_STATUS);
  if (r.status != STATUS_RUNNING) return r.status;
  r.pc = st_get(S_PC);
  r.fp = st_get(S_FP);
  r.sp = st_get(S_SP);
  r.func = st_get(S_FUNC);
  r.ob = frame_header_slot(r.func, r.fp) + 2u;
  r.trap = WASM_TRAP_NONE;
  bool limited = st_get(S_FUEL_LIMITED) != 0u;
  uvec2 fuel = uvec2(st_get(S_FUEL), st_get(S_FUEL + 1u));
  uint executed = 0u;
  while (executed < quantum && r.status == STATUS_RUNNING) {
    if (limited) {
      if (u64_is_zero(fuel)) {
        r.status = STATUS_FUEL_EXHAUSTED;
        r.trap = WASM_TRAP_FUEL_EXHAUSTED;
        break;
      }
      fuel = u64_sub(fuel, uvec2(1u, 0u));
    }
    executed += 1u;
    uvec4 ins = fetch(r.pc);
    r.pc += 1u;
    uint op = ins.x & 0xFFFFu;
    if (interp_is_numeric(op)) {
      uvec2 b = uvec2(0u, 0u);
      if (!interp_numeric_is_unary(op)) b = pop(r);
      uvec2 a = pop(r);
      uint t = WASM_TRAP_NONE;
      uvec2 v = interp_numeric(op, a, b, t);
      if (t != WASM_TRAP_NONE) {
        interp_trap(r, t);
      } else {
        push(r, v);
      }
    } else {
      interp_step(r, ins, op);
    }
  }
  uvec2 count = u64_add(uvec2(st_get(S_EXECUTED), st_get(S_EXECUTED + 1u)), uvec2(executed, 0u));
  st_set(S_EXECUTED, count.x);
  st_set(S_EXECUTED + 1u, count.y);
  st_set(S_FUEL, fuel.x);
  st_set(S_FUEL + 1u, fuel.y);
  st_set(S_PC, r.pc);
  st_set(S_FP, r.fp);
  st_set(S_SP, r.sp);
  st_set(S_FUNC, r.func);
  st_set(S_STATUS, r.status);
  st_set(S_TRAP, r.trap);
  return r.status;
}
