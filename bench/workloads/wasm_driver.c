// The WebAssembly build of a workload: its `work` export, and `batch`, the wasmtime loop
// baseline: one guest loop over all instances that stores every result in linear memory and
// returns the address of the first. bench/wasmgpu.py compiles it with
// -DWORKLOAD_SOURCE='"<workload>.c"'.
#include WORKLOAD_SOURCE

extern unsigned char __heap_base;  // the end of the module's data and stack (wasm-ld)

WORKLOAD_EXPORT("batch") result_t* batch(uint32_t count, uint32_t param) {
  // 8 bytes past the heap base: aligned for f64, and never address 0 (C's null pointer),
  // which a module without data would otherwise start its heap at.
  const uintptr_t first = (((uintptr_t)&__heap_base + 7u) & ~(uintptr_t)7u) + 8u;
  const uintptr_t end = first + (uintptr_t)count * sizeof(result_t);
  const uintptr_t have = __builtin_wasm_memory_size(0) * 65536u;
  if (end > have && __builtin_wasm_memory_grow(0, (end - have + 65535u) / 65536u) == (uintptr_t)-1) return 0;
  result_t* out = (result_t*)first;
  for (uint32_t i = 0; i < count; ++i) {
#if WORK_TAKES_PARAM
    out[i] = work(i, param);
#else
    (void)param;
    out[i] = work(i);
#endif
  }
  return out;
}
