// What every workload in this folder defines, for the two drivers that include it
// (wasm_driver.c and native_driver.c, which bench/wasmgpu.py builds at run time):
//
//   typedef ... result_t;       uint32_t or double: the one result of `work`
//   #define WORK_TAKES_PARAM 0  or 1: whether `work` takes the workload parameter
//   result_t work(uint32_t x [, uint32_t param])
//
// x is the instance index, so every instance computes something different and a wrong
// answer in one instance shows. `param` is the same for all instances (an iteration count, a
// sieve size); it is an argument rather than a constant so no compiler can fold the loop.
#ifndef WAVESTACK_BENCH_WORKLOAD_H
#define WAVESTACK_BENCH_WORKLOAD_H

#include <stdint.h>

#ifdef __wasm__
#define WORKLOAD_EXPORT(name) __attribute__((export_name(name)))
#else
#define WORKLOAD_EXPORT(name)
#endif

#endif
