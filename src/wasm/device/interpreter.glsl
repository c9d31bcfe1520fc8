// The device interpreter: runs one instance's current call for a bounded amount of work,
// then saves its registers in the state so the next dispatch resumes exactly there.
//
// Frames live in the value stack (no recursion in device code):
//   [params][declared locals][header: (return pc, caller fp), (caller function, 0)][operands]
// A call turns the arguments on the caller's operand stack into the callee's first locals in
// place; a return copies the results down to the frame's first slot. A call whose frame
// (header + locals + the function's max_stack operands) does not fit traps with "call stack
// exhausted", so no other push needs a check. Branch heights are relative to the operand base
// (the slot after the header).
//
// Fuel counts executed records: with fuel F exactly F records run and the call stops before
// the next one. A dispatch ends after `quantum` records or when its `budget` of loop work
// (bytes and entries moved, locals cleared, values copied, numeric loops) is used up. Bulk
// instructions and the clearing of a callee's locals run in chunks that fit the budget: the
// record runs again as a continuation, charged neither fuel nor a count, so fuel and traps
// are exact whatever the chunking, and every loop of a dispatch stays bounded.

// Loads 0x28..0x35: how many bytes. i32/i64/f32/f64.load are 4, 8, 4, 8; then come pairs
// (signed, unsigned) of 8-, 16-bit loads into i32, and 8-, 16-, 32-bit loads into i64.
uint load_width(uint op) {
  if (op <= 0x2Bu) return (op & 1u) != 0u ? 8u : 4u;
  uint pair = (op - 0x2Cu) >> 1u;  // 0..4: 8, 16 (i32), 8, 16, 32 (i64)
  return pair == 4u ? 4u : ((pair & 1u) != 0u ? 2u : 1u);
}

// The loaded bytes as the instruction's result type.
uvec2 load_extend(uint op, uvec2 v) {
  uvec2 r = v;
  switch (op) {
    case 0x2Cu: r = uvec2(i32_extend8_s(v.x), 0u); break;
    case 0x2Eu: r = uvec2(i32_extend16_s(v.x), 0u); break;
    case 0x30u: r = i64_extend8_s(v); break;
    case 0x32u: r = i64_extend16_s(v); break;
    case 0x34u: r = i64_extend32_s(v); break;
    default: break;
  }
  return r;
}

// Stores 0x36..0x3E: bytes written. i32/i64/f32/f64.store are 4, 8, 4, 8; then i32.store8,
// i32.store16, i64.store8, i64.store16, i64.store32.
uint store_width(uint op) {
  if (op <= 0x39u) return (op & 1u) != 0u ? 8u : 4u;
  uint k = op - 0x3Au;  // 0..4: 8, 16 (i32), 8, 16, 32 (i64)
  return k == 4u ? 4u : ((k & 1u) != 0u ? 2u : 1u);
}

// The instruction record at pc.
uvec4 fetch(uint pc) {
  uint w = prog(H_CODE) + 4u * pc;
  return uvec4(prog(w), prog(w + 1u), prog(w + 2u), prog(w + 3u));
}

// Executes one record (the pc already points past it). Numeric instructions are handled
// by the caller.
void interp_step(INOUT(Regs) r, uvec4 ins, uint op) {
  uint t = WASM_TRAP_NONE;
  switch (op) {
    case 0x00u: frame_trap(r, WASM_TRAP_UNREACHABLE); break;
    case 0x01u: break;
    case 0x200u: r.pc = ins.y; break;  // JUMP
    case 0x201u: {                      // JUMP_IF_ZERO (lowered `if`)
      if (pop(r).x == 0u) r.pc = ins.y;
      break;
    }
    case 0x203u: frame_call(r, r.cont_func, RETURN_TO_HOST); break;  // ENTRY
    case 0x0Cu: frame_branch(r, ins.y, ins.z, ins.w); break;
    case 0x0Du: {
      if (pop(r).x != 0u) frame_branch(r, ins.y, ins.z, ins.w);
      break;
    }
    case 0x0Eu: {
      uint i = min(pop(r).x, ins.y);
      uvec4 entry = fetch(r.pc + i);
      frame_branch(r, entry.y, entry.z, entry.w);
      break;
    }
    case 0x0Fu: frame_return(r, ins.y); break;
    case 0x10u: frame_call(r, ins.y, r.pc); break;
    case 0x11u: frame_call_indirect(r, ins.z, ins.w); break;
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
        t = WASM_TRAP_TABLE_OUT_OF_BOUNDS;
      } else {
        push32(r, table_get_entry(ins.y, i));
      }
      break;
    }
    case 0x26u: {
      uint ref = pop(r).x;
      uint i = pop(r).x;
      if (i >= table_size(ins.y)) {
        t = WASM_TRAP_TABLE_OUT_OF_BOUNDS;
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
    case 0x108u: bulk_memory_init(r, ins.y); break;
    case 0x109u: st_set(prog(H_DROPPED) + ins.y, 1u); break;
    case 0x10Au: bulk_memory_copy(r); break;
    case 0x10Bu: bulk_memory_fill(r); break;
    case 0x10Cu: bulk_table_init(r, ins.z, ins.y); break;  // a = element segment, b = table
    case 0x10Du: st_set(prog(H_DROPPED) + prog(H_DATA_COUNT) + ins.y, 1u); break;
    case 0x10Eu: bulk_table_copy(r, ins.y, ins.z); break;  // a = destination, b = source
    case 0x10Fu: bulk_table_grow(r, ins.y); break;
    case 0x110u: push32(r, table_size(ins.y)); break;
    case 0x111u: bulk_table_fill(r, ins.y); break;
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
  if (t != WASM_TRAP_NONE) frame_trap(r, t);
}

// Work a record needs in one piece (copies that are not chunked); the dispatch ends before
// a record that would overrun its budget, unless it is the dispatch's first.
uint record_work(uvec4 ins, uint op, uint pc) {
  uint w = 8u;  // loads and stores move at most 8 bytes; small fixed loops
  if (op == 0x0Cu || op == 0x0Du) w += ins.z;
  if (op == 0x0Eu) w += fetch(pc + 1u).z;  // every entry of a br_table keeps the same arity
  if (op == 0x0Fu) w += ins.y;
  if (wasm_numeric_arity(op) != 0u) w += 64u;  // division and square root loop up to 64 steps
  return w;
}

// Runs the current call for at most `quantum` records and about `budget` units of loop
// work; returns the status.
uint interp_run(uint quantum, uint budget) {
  Regs r = regs_load(budget);
  if (r.status != STATUS_RUNNING) return r.status;
  r.ob = frame_operand_base(r);
  bool limited = st_get(S_FUEL_LIMITED) != 0u;
  uvec2 fuel = uvec2(st_get(S_FUEL), st_get(S_FUEL + 1u));
  uint records = 0u;     // charged records
  uint iterations = 0u;  // records run, continuations included
  bool stopped = false;  // the loop ended for one of its own reasons
  while (true) {
    if (r.status != STATUS_RUNNING || iterations >= quantum || r.work >= budget) {
      stopped = true;
      break;
    }
    uvec4 ins = fetch(r.pc);
    uint op = ins.x & 0xFFFFu;
    uint need = record_work(ins, op, r.pc);
    if (iterations > 0u && r.work + need > budget) {
      stopped = true;
      break;
    }
    bool charged = r.cont == 0u && op != OP_ENTRY;
    if (charged && limited) {
      if (u64_is_zero(fuel)) {
        r.status = STATUS_FUEL_EXHAUSTED;
        r.trap = WASM_TRAP_FUEL_EXHAUSTED;
        stopped = true;
        break;
      }
      fuel = u64_sub(fuel, uvec2(1u, 0u));
    }
    if (charged) records += 1u;
    iterations += 1u;
    r.work += 1u + need;  // copies are counted again where they happen: an upper bound
    r.pc += 1u;
    uint arity = wasm_numeric_arity(op);
    if (arity != 0u) {
      uvec2 b = uvec2(0u, 0u);
      if (arity == 2u) b = pop(r);
      uvec2 a = pop(r);
      uint t = WASM_TRAP_NONE;
      uvec2 v = wasm_numeric(op, a, b, t);
      if (t != WASM_TRAP_NONE) {
        frame_trap(r, t);
      } else {
        push(r, v);
      }
    } else {
      interp_step(r, ins, op);
    }
  }
  if (!stopped) frame_trap(r, WASM_TRAP_DEVICE_LOOP_LIMIT);
  regs_store(r, records, fuel);
  return r.status;
}
