// Bulk instructions of the interpreter, run in chunks that fit a dispatch's budget (see
// interpreter.glsl): while chunks remain, the record runs again as a continuation with its
// operands on the stack updated to what is left.

// Finishes a chunked bulk instruction with `operands` operands, or schedules its next chunk.
void bulk_done(INOUT(Regs) r, uint operands, uint remaining) {
  if (remaining == 0u) {
    r.sp -= operands;
    r.cont = 0u;
  } else {
    frame_continue(r);
  }
}

// memory.fill / memory.copy / memory.init and the table equivalents: operands (dst, src or
// value, n) stay on the stack while chunks run, updated to what is left. The whole range is
// checked on the first chunk, so a trapping instruction changes nothing.
void bulk_memory_fill(INOUT(Regs) r) {
  uint n = peek32(r, 0u);
  uint value = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  if (r.cont == 0u && !range_within(dst, n, memory_size_bytes())) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_MEMORY_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  memory_fill_bytes(dst, value, chunk);
  r.work += chunk;
  poke32(r, 2u, dst + chunk);
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

void bulk_memory_copy(INOUT(Regs) r) {
  uint n = peek32(r, 0u);
  uint src = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  uint size = memory_size_bytes();
  if (r.cont == 0u && (!range_within(dst, n, size) || !range_within(src, n, size))) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_MEMORY_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  r.work += chunk;
  if (dst <= src) {  // forward: the low chunk first, then move both starts up
    memory_copy_bytes(dst, src, chunk, true);
    poke32(r, 2u, dst + chunk);
    poke32(r, 1u, src + chunk);
  } else {  // backward: the top chunk first
    memory_copy_bytes(dst + n - chunk, src + n - chunk, chunk, false);
  }
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

void bulk_memory_init(INOUT(Regs) r, uint segment) {
  uint n = peek32(r, 0u);
  uint src = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  if (r.cont == 0u && (!range_within(src, n, data_segment_length(segment)) ||
                       !range_within(dst, n, memory_size_bytes()))) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_MEMORY_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  memory_init_bytes(segment, dst, src, chunk);
  r.work += chunk;
  poke32(r, 2u, dst + chunk);
  poke32(r, 1u, src + chunk);
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

void bulk_table_init(INOUT(Regs) r, uint table, uint segment) {
  uint n = peek32(r, 0u);
  uint src = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  if (r.cont == 0u && (!range_within(src, n, elem_segment_length(segment)) ||
                       !range_within(dst, n, table_size(table)))) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_TABLE_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  table_init_entries(table, segment, dst, src, chunk);
  r.work += chunk;
  poke32(r, 2u, dst + chunk);
  poke32(r, 1u, src + chunk);
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

void bulk_table_copy(INOUT(Regs) r, uint dst_table, uint src_table) {
  uint n = peek32(r, 0u);
  uint src = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  if (r.cont == 0u && (!range_within(src, n, table_size(src_table)) ||
                       !range_within(dst, n, table_size(dst_table)))) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_TABLE_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  r.work += chunk;
  if (dst <= src) {
    table_copy_entries(dst_table, src_table, dst, src, chunk, true);
    poke32(r, 2u, dst + chunk);
    poke32(r, 1u, src + chunk);
  } else {
    table_copy_entries(dst_table, src_table, dst + n - chunk, src + n - chunk, chunk, false);
  }
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

void bulk_table_fill(INOUT(Regs) r, uint table) {
  uint n = peek32(r, 0u);
  uint ref = peek32(r, 1u);
  uint dst = peek32(r, 2u);
  if (r.cont == 0u && !range_within(dst, n, table_size(table))) {
    r.sp -= 3u;
    frame_trap(r, WASM_TRAP_TABLE_OUT_OF_BOUNDS);
    return;
  }
  uint chunk = min(n, allowance(r));
  table_fill_entries(table, dst, ref, chunk);
  r.work += chunk;
  poke32(r, 2u, dst + chunk);
  poke32(r, 0u, n - chunk);
  bulk_done(r, 3u, n - chunk);
}

// table.grow: the first chunk grows the table (or pushes -1); while the new entries are
// filled, the two operand slots hold (ref, old size) and (filled, n).
void bulk_table_grow(INOUT(Regs) r, uint table) {
  uvec2 a = slot_get(r.sp - 2u);
  uvec2 b = slot_get(r.sp - 1u);
  uint ref = a.x;
  uint old = a.y;
  uint filled = b.x;
  uint n = b.y;
  if (r.cont == 0u) {
    n = b.x;
    old = table_size(table);
    filled = 0u;
    if (!range_within(old, n, table_limit(table))) {
      r.sp -= 2u;
      push32(r, 0xFFFFFFFFu);
      return;
    }
    st_set(table_base(table), old + n);
  }
  uint chunk = min(n - filled, allowance(r));
  table_fill_entries(table, old + filled, ref, chunk);
  r.work += chunk;
  filled += chunk;
  if (filled == n) {
    r.sp -= 2u;
    push32(r, old);
    r.cont = 0u;
  } else {
    slot_set(r.sp - 2u, uvec2(ref, old));
    slot_set(r.sp - 1u, uvec2(filled, n));
    frame_continue(r);
  }
}

