// An f64 loop: `param` leapfrog steps of a particle in the potential sqrt(1 + x^2) (a
// softened spring), so every step does an add, a multiply, a divide and a square root.
// Both builds use -ffp-contract=off, so the native and WebAssembly results agree bit for bit.
#include "workload.h"

typedef double result_t;
#define WORK_TAKES_PARAM 1

WORKLOAD_EXPORT("work") result_t work(uint32_t x, uint32_t steps) {
  const double dt = 0.01;
  double position = 1.0 + (double)x * 1e-3;
  double velocity = 0.0;
  for (uint32_t i = 0; i < steps; ++i) {
    const double force = -position / __builtin_sqrt(1.0 + position * position);
    velocity += force * dt;
    position += velocity * dt;
  }
  return position + velocity;
}
