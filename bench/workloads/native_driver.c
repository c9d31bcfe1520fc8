// The native build of a workload, a shared library for ctypes: bench_batch runs `work` for
// instances 0..count-1, stores every result in `out`, and returns the seconds the loop took
// by the monotonic clock (so no Python overhead is counted). bench/wasmgpu.py compiles it
// with cc -O2 -DWORKLOAD_SOURCE='"<workload>.c"'.
#include <time.h>

#include WORKLOAD_SOURCE

static double seconds_now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

double bench_batch(uint32_t count, uint32_t param, result_t* out) {
  const double start = seconds_now();
  for (uint32_t i = 0; i < count; ++i) {
#if WORK_TAKES_PARAM
    out[i] = work(i, param);
#else
    (void)param;
    out[i] = work(i);
#endif
  }
  return seconds_now() - start;
}
