// The seed's benchmark shape: a worker of about 23 WebAssembly instructions, one i32 argument,
// one i32 result (the same arithmetic as `process` in bench/wasmgpu_host.py).
#include "workload.h"

typedef uint32_t result_t;
#define WORK_TAKES_PARAM 0

WORKLOAD_EXPORT("work") result_t work(uint32_t x) {
  uint32_t t = x * 2654435761u;
  t = (t >> 15) ^ t;
  return (t * 3u + 7u + (x & 1u)) ^ x;
}
