// Tables, element segments and globals of the interpreter. A table is a state region
// [size, entry 0, ...] of u32 references (NULL_REF for null); its capacity is reserved at
// spawn, so table.grow fails (-1) beyond min(capacity, declared max).

uint table_base(uint table) { return prog(prog(H_TABLES) + T_WORDS * table + T_STATE); }
uint table_limit(uint table) { return prog(prog(H_TABLES) + T_WORDS * table + T_LIMIT); }
uint table_size(uint table) { return st_get(table_base(table)); }
uint table_get_entry(uint table, uint i) { return st_get(table_base(table) + 1u + i); }
void table_set_entry(uint table, uint i, uint ref) { st_set(table_base(table) + 1u + i, ref); }

uint elem_segment_length(uint segment) {
  uint dropped = st_get(prog(H_DROPPED) + prog(H_DATA_COUNT) + segment);
  return dropped != 0u ? 0u : prog(prog(H_ELEMS) + 2u * segment + 1u);
}

uint elem_item(uint segment, uint i) { return prog(prog(prog(H_ELEMS) + 2u * segment) + i); }

// Entry loops over ranges the caller has checked (chunked like the bulk memory operations).
void table_init_entries(uint table, uint segment, uint dst, uint src, uint n) {
  for (uint k = 0u; k < n; k++) table_set_entry(table, dst + k, elem_item(segment, src + k));
}

void table_copy_entries(uint dst_table, uint src_table, uint dst, uint src, uint n, bool forward) {
  if (forward) {
    for (uint k = 0u; k < n; k++) table_set_entry(dst_table, dst + k, table_get_entry(src_table, src + k));
  } else {
    for (uint k = n; k > 0u; k--) table_set_entry(dst_table, dst + k - 1u, table_get_entry(src_table, src + k - 1u));
  }
}

void table_fill_entries(uint table, uint dst, uint ref, uint n) {
  for (uint k = 0u; k < n; k++) table_set_entry(table, dst + k, ref);
}

uvec2 global_get(uint g) {
  uint w = prog(H_GLOBALS) + 2u * g;
  return uvec2(st_get(w), st_get(w + 1u));
}

void global_set(uint g, uvec2 v) {
  uint w = prog(H_GLOBALS) + 2u * g;
  st_set(w, v.x);
  st_set(w + 1u, v.y);
}
