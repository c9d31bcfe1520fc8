// Linear memory and value-stack access for the interpreter. Memory is byte-addressed over a
// uint buffer (little-endian, as wasm): aligned 4- and 8-byte accesses take whole words, the
// rest goes byte by byte. Bounds are checked against the current size before any access.
// Needs the host's accessors: prog(i), st_get(i)/st_set(i, v), mem_get(i)/mem_set(i, v).
//
// A C++ includer may define the value-stack accessors (WASM_HOST_SLOTS) or memory_read and
// memory_write (WASM_HOST_MEMORY) itself, with the same meaning over direct pointers (the cpu
// device's compiled units: device/compiled_glsl.cpp); GLSL never defines either.

#if !defined(WASM_HOST_SLOTS)
uvec2 slot_get(uint slot) {
  uint w = prog(H_STACK) + 2u * slot;
  return uvec2(st_get(w), st_get(w + 1u));
}

void slot_set(uint slot, uvec2 v) {
  uint w = prog(H_STACK) + 2u * slot;
  st_set(w, v.x);
  st_set(w + 1u, v.y);
}
#endif

uint memory_size_bytes() { return st_get(S_PAGES) * 65536u; }

// addr + offset .. + n inside the memory (no 32-bit wrap-around); the effective address in ea.
bool memory_range_ok(uint addr, uint offset, uint n, OUT(uint) ea) {
  uint carry1 = 0u;
  uint carry2 = 0u;
  ea = uaddCarry(addr, offset, carry1);
  uint end = uaddCarry(ea, n, carry2);
  return carry1 == 0u && carry2 == 0u && end <= memory_size_bytes();
}

uint memory_byte(uint addr) { return (mem_get(addr >> 2u) >> ((addr & 3u) * 8u)) & 0xFFu; }

void memory_set_byte(uint addr, uint value) {
  uint word = addr >> 2u;
  uint shift = (addr & 3u) * 8u;
  mem_set(word, (mem_get(word) & ~(0xFFu << shift)) | ((value & 0xFFu) << shift));
}

#if !defined(WASM_HOST_MEMORY)
// n (1, 2, 4 or 8) bytes at ea, zero-extended.
uvec2 memory_read(uint ea, uint n) {
  if ((ea & 3u) == 0u && n >= 4u) {
    uint high = n == 8u ? mem_get((ea >> 2u) + 1u) : 0u;
    return uvec2(mem_get(ea >> 2u), high);
  }
  uvec2 v = uvec2(0u, 0u);
  for (uint k = 0u; k < n; k++) {
    uint b = memory_byte(ea + k);
    if (k < 4u) {
      v.x |= b << (8u * k);
    } else {
      v.y |= b << (8u * (k - 4u));
    }
  }
  return v;
}

void memory_write(uint ea, uint n, uvec2 v) {
  if ((ea & 3u) == 0u && n >= 4u) {
    mem_set(ea >> 2u, v.x);
    if (n == 8u) mem_set((ea >> 2u) + 1u, v.y);
    return;
  }
  for (uint k = 0u; k < n; k++) {
    uint b = k < 4u ? (v.x >> (8u * k)) : (v.y >> (8u * (k - 4u)));
    memory_set_byte(ea + k, b);
  }
}
#endif

// end = start + n without wrap-around, and end <= limit.
bool range_within(uint start, uint n, uint limit) {
  uint carry = 0u;
  uint end = uaddCarry(start, n, carry);
  return carry == 0u && end <= limit;
}

// Bulk memory primitives: byte loops over ranges the caller has checked. The interpreter
// runs bulk instructions in bounded chunks (interpreter.glsl), so these see short ranges.
void memory_fill_bytes(uint dst, uint value, uint n) {
  for (uint k = 0u; k < n; k++) memory_set_byte(dst + k, value);
}

// Copies bytes [0, n) (forward) or, for dst > src, the chunk must go from the top down.
void memory_copy_bytes(uint dst, uint src, uint n, bool forward) {
  if (forward) {
    for (uint k = 0u; k < n; k++) memory_set_byte(dst + k, memory_byte(src + k));
  } else {
    for (uint k = n; k > 0u; k--) memory_set_byte(dst + k - 1u, memory_byte(src + k - 1u));
  }
}

uint data_segment_length(uint segment) {
  uint dropped = st_get(prog(H_DROPPED) + segment);
  return dropped != 0u ? 0u : prog(prog(H_DATAS) + 2u * segment + 1u);
}

void memory_init_bytes(uint segment, uint dst, uint src, uint n) {
  uint base = prog(prog(H_DATAS) + 2u * segment);
  for (uint k = 0u; k < n; k++) {
    uint at = src + k;
    memory_set_byte(dst + k, (prog(base + (at >> 2u)) >> ((at & 3u) * 8u)) & 0xFFu);
  }
}
