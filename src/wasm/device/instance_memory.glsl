// Linear memory and value-stack access for the interpreter. Memory is byte-addressed over a
// uint buffer (little-endian, as wasm): an access takes the words its bytes lie in. Bounds are checked against the current size before any access.
// Needs the host's accessors: prog(i), st_get(i)/st_set(i, v), mem_get(i)/mem_set(i, v).
//
// An includer may define the value-stack accessors (WASM_HOST_SLOTS) or memory_read and
// memory_write (WASM_HOST_MEMORY) itself, with the same meaning: the cpu device's compiled units
// over direct pointers (device/compiled_glsl.cpp), Vulkan shaders the slots as 64-bit words
// (interpreter_vulkan_bindings.glsl).

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

WASM_LEAF uint memory_size_bytes() { return st_get(S_PAGES) * 65536u; }

// addr + offset .. + n inside the memory (no 32-bit wrap-around); the effective address in ea.
WASM_LEAF bool memory_range_ok(uint addr, uint offset, uint n, OUT(uint) ea) {
  uint carry1 = 0u;
  uint carry2 = 0u;
  ea = uaddCarry(addr, offset, carry1);
  uint end = uaddCarry(ea, n, carry2);
  return carry1 == 0u && carry2 == 0u && end <= memory_size_bytes();
}

WASM_LEAF uint memory_byte(uint addr) { return (mem_get(addr >> 2u) >> ((addr & 3u) * 8u)) & 0xFFu; }

WASM_LEAF void memory_set_byte(uint addr, uint value) {
  uint word = addr >> 2u;
  uint shift = (addr & 3u) * 8u;
  mem_set(word, (mem_get(word) & ~(0xFFu << shift)) | ((value & 0xFFu) << shift));
}

#if !defined(WASM_HOST_MEMORY)
// Both go by the one to three words the n (1, 2, 4 or 8) bytes at ea touch, never byte by
// byte, and without branches: lavapipe turns every storage-buffer access into a gather across
// the lanes of a workgroup and every branch on an address into masked code, and the byte loops
// (up to 8 accesses at each unaligned load, 16 at a store, behind an alignment test) made a
// unit of compiled code with a few dozen accesses take twice as long to build. Indices are
// clamped to the access's last word, so no word past it is touched (it may lie past the
// memory's end); a clamped repeat reads or rewrites a word the access already covers.

// n bytes at ea, zero-extended.
uvec2 memory_read(uint ea, uint n) {
  uint first = ea >> 2u;
  uint last = (ea + n - 1u) >> 2u;
  uint shift = (ea & 3u) * 8u;
  uint w0 = mem_get(first);
  uint w1 = mem_get(min(first + 1u, last));
  // (a shift of 32 is undefined: the shifted-in part is masked to zero instead)
  uint carry = shift == 0u ? 0u : 0xFFFFFFFFu;
  uint low = (w0 >> shift) | ((w1 << ((32u - shift) & 31u)) & carry);
  if (n < 4u) return uvec2(low & ((1u << (8u * n)) - 1u), 0u);
  if (n == 4u) return uvec2(low, 0u);
  uint w2 = mem_get(min(first + 2u, last));
  return uvec2(low, (w1 >> shift) | ((w2 << ((32u - shift) & 31u)) & carry));
}

// Word `word` of memory with the bits of `mask` replaced by those of `bits`.
void memory_merge_word(uint word, uint mask, uint bits) {
  mem_set(word, (mem_get(word) & ~mask) | (bits & mask));
}

// The low n bytes of v to ea.
void memory_write(uint ea, uint n, uvec2 v) {
  uint first = ea >> 2u;
  uint last = (ea + n - 1u) >> 2u;
  uint shift = (ea & 3u) * 8u;
  uint back = (32u - shift) & 31u;
  uint carry = shift == 0u ? 0u : 0xFFFFFFFFu;
  // The bytes written as a 64-bit mask; mask and value shifted into three words.
  uint mask_low = n >= 4u ? 0xFFFFFFFFu : (1u << (8u * n)) - 1u;
  uint mask_high = n == 8u ? 0xFFFFFFFFu : 0u;
  memory_merge_word(first, mask_low << shift, v.x << shift);
  // Word first + 1 gets what spills over (nothing when the access ends in the first word,
  // which the clamp then rewrites unchanged).
  uint mask1 = (mask_high << shift) | ((mask_low >> back) & carry);
  uint bits1 = (v.y << shift) | ((v.x >> back) & carry);
  memory_merge_word(min(first + 1u, last), last > first ? mask1 : 0u, bits1);
  if (n == 8u) memory_merge_word(min(first + 2u, last), last > first + 1u ? (mask_high >> back) & carry : 0u,
                                 v.y >> back);
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
