// Guest linear memory for the WASI library: range checks, loads and stores of ABI fields.
//
// Needs the integrator's memory accessors: memory_size_bytes(), memory_byte(addr),
// memory_set_byte(addr, v) (instance_memory.glsl defines them over mem_get/mem_set).
// Callers check every range with wasi_range_ok / wasi_array_ok before the first access, so the
// loads and stores below never see an address outside the memory. Guest pointers need no
// alignment (wasmtime traps on misaligned ones; here they simply work).

// [addr, addr + len) lies inside guest memory, without 32-bit wrap-around.
bool wasi_range_ok(uint addr, uint len) {
  uint carry = 0u;
  uint end = uaddCarry(addr, len, carry);
  return carry == 0u && end <= memory_size_bytes();
}

// count records of `size` bytes at addr lie inside guest memory (no overflow of count * size).
bool wasi_array_ok(uint addr, uint count, uint size) {
  uint high = 0u;
  uint low = 0u;
  umulExtended(count, size, high, low);
  return high == 0u && wasi_range_ok(addr, low);
}

uint wasi_load_u8(uint addr) { return memory_byte(addr); }

uint wasi_load_u16(uint addr) { return memory_byte(addr) | (memory_byte(addr + 1u) << 8u); }

uint wasi_load_u32(uint addr) {
  return memory_byte(addr) | (memory_byte(addr + 1u) << 8u) | (memory_byte(addr + 2u) << 16u) |
         (memory_byte(addr + 3u) << 24u);
}

uvec2 wasi_load_u64(uint addr) { return uvec2(wasi_load_u32(addr), wasi_load_u32(addr + 4u)); }

void wasi_store_u8(uint addr, uint v) { memory_set_byte(addr, v & 0xFFu); }

void wasi_store_u16(uint addr, uint v) {
  memory_set_byte(addr, v & 0xFFu);
  memory_set_byte(addr + 1u, (v >> 8u) & 0xFFu);
}

void wasi_store_u32(uint addr, uint v) {
  for (uint k = 0u; k < 4u; k++) memory_set_byte(addr + k, (v >> (8u * k)) & 0xFFu);
}

void wasi_store_u64(uint addr, uvec2 v) {
  wasi_store_u32(addr, v.x);
  wasi_store_u32(addr + 4u, v.y);
}

// Zero bytes [addr, addr + n) (padding of ABI records; n is a small constant).
void wasi_store_zeros(uint addr, uint n) {
  for (uint k = 0u; k < n; k++) memory_set_byte(addr + k, 0u);
}
