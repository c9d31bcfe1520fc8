// A memory-heavy loop: the sum of the primes below n with a byte sieve in linear memory, n
// = param - (x % 256) (at most kCapacity), so each instance fills and strides over n bytes.
#include "workload.h"

typedef uint32_t result_t;
#define WORK_TAKES_PARAM 1

// 60,000 bytes: with the 1 KiB stack the module needs one 64 KiB page per instance.
enum { kCapacity = 60000 };
static uint8_t composite[kCapacity];

WORKLOAD_EXPORT("work") result_t work(uint32_t x, uint32_t limit) {
  const uint32_t drop = x % 256u;
  uint32_t n = limit > drop ? limit - drop : 0;
  if (n > kCapacity) n = kCapacity;
  if (n <= 2) return 0;
  // Evens start out composite, so the sieve walks odd numbers only. (A fill with a pattern
  // rather than zeros also keeps compilers from turning the loop into a memset call, which a
  // module without a C library could not link.)
  for (uint32_t i = 0; i < n; ++i) composite[i] = (uint8_t)((i & 1u) == 0);
  uint32_t sum = 2;
  for (uint32_t p = 3; p < n; p += 2) {
    if (composite[p]) continue;
    sum += p;
    for (uint32_t q = p * p; q < n; q += 2 * p) composite[q] = 1;
  }
  return sum;
}
