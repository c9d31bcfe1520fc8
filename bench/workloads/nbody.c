// An f64 n-body step loop: five bodies under gravity, `param` symplectic Euler steps, every
// pair's distance through a square root and a division per step. The bodies live in a static
// array (linear memory), so the loads and stores of f64 fields are part of the work, as in a
// real simulation. x shifts the starting positions, so instances differ. Both builds use
// -ffp-contract=off, so the native and WebAssembly results agree bit for bit.
#include "workload.h"

typedef double result_t;
#define WORK_TAKES_PARAM 1

enum { kBodies = 5 };

struct body {
  double x, y, z, vx, vy, vz, mass;
};

static struct body bodies[kBodies];

WORKLOAD_EXPORT("work") result_t work(uint32_t x, uint32_t steps) {
  const double dt = 0.01;
  for (int i = 0; i < kBodies; ++i) {
    bodies[i].x = (double)i + (double)(x % 97u) * 1e-3;
    bodies[i].y = (double)(i * i % 3) - 1.0;
    bodies[i].z = (double)(i % 2) * 0.5;
    bodies[i].vx = 0.0;
    bodies[i].vy = (double)(i - 2) * 0.1;
    bodies[i].vz = 0.0;
    bodies[i].mass = 1.0 + (double)i * 0.25;
  }
  for (uint32_t s = 0; s < steps; ++s) {
    for (int i = 0; i < kBodies; ++i) {
      for (int j = i + 1; j < kBodies; ++j) {
        const double dx = bodies[i].x - bodies[j].x;
        const double dy = bodies[i].y - bodies[j].y;
        const double dz = bodies[i].z - bodies[j].z;
        const double d2 = dx * dx + dy * dy + dz * dz + 1e-3;
        const double magnitude = dt / (d2 * __builtin_sqrt(d2));
        bodies[i].vx -= dx * bodies[j].mass * magnitude;
        bodies[i].vy -= dy * bodies[j].mass * magnitude;
        bodies[i].vz -= dz * bodies[j].mass * magnitude;
        bodies[j].vx += dx * bodies[i].mass * magnitude;
        bodies[j].vy += dy * bodies[i].mass * magnitude;
        bodies[j].vz += dz * bodies[i].mass * magnitude;
      }
    }
    for (int i = 0; i < kBodies; ++i) {
      bodies[i].x += dt * bodies[i].vx;
      bodies[i].y += dt * bodies[i].vy;
      bodies[i].z += dt * bodies[i].vz;
    }
  }
  double sum = 0.0;
  for (int i = 0; i < kBodies; ++i) sum += bodies[i].x + bodies[i].y + bodies[i].z;
  return sum;
}
