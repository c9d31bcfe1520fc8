// Recursive calls: fib(param + x % 4), the naive doubly recursive definition.
#include "workload.h"

typedef uint32_t result_t;
#define WORK_TAKES_PARAM 1

__attribute__((noinline)) static uint32_t fib(uint32_t n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

WORKLOAD_EXPORT("work") result_t work(uint32_t x, uint32_t base) {
  return fib(base + x % 4u);
}
