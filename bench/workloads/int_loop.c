// An integer loop: `param` rounds of xorshift32 mixing with a multiply-accumulate, all i32.
#include "workload.h"

typedef uint32_t result_t;
#define WORK_TAKES_PARAM 1

WORKLOAD_EXPORT("work") result_t work(uint32_t x, uint32_t rounds) {
  uint32_t state = x * 2654435761u + 1u;  // xorshift's state must not be 0
  uint32_t sum = 0;
  for (uint32_t i = 0; i < rounds; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    sum += state * (i | 1u);
  }
  return sum ^ state;
}
