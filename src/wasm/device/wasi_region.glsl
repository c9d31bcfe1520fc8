// Region words as bytes and 64-bit values, and the work budget of resumable calls. Needs only
// the integrator's region accessors wasi_get(w) / wasi_set(w, v).

// Byte k of the packed bytes that start at region word `base`.
uint wasi_region_byte(uint base, uint k) { return (wasi_get(base + (k >> 2u)) >> ((k & 3u) * 8u)) & 0xFFu; }

void wasi_region_set_byte(uint base, uint k, uint v) {
  uint w = base + (k >> 2u);
  uint shift = (k & 3u) * 8u;
  wasi_set(w, (wasi_get(w) & ~(0xFFu << shift)) | ((v & 0xFFu) << shift));
}

// 64-bit helpers over region words.
uvec2 wasi_get64(uint w) { return uvec2(wasi_get(w), wasi_get(w + 1u)); }

void wasi_set64(uint w, uvec2 v) {
  wasi_set(w, v.x);
  wasi_set(w + 1u, v.y);
}

// A budget of work units for one invocation of a resumable call. An invocation always makes
// progress (a budget of 0 counts as 1) and stops at the first step that finds the budget spent,
// so it does at most budget + one step's cost of work.
struct WasiWork {
  uint budget;
  uint used;
};

WasiWork wasi_work(uint budget) {
  WasiWork w;
  w.budget = max(budget, 1u);
  w.used = 0u;
  return w;
}

bool wasi_work_left(WasiWork w) { return w.used < w.budget; }

// Units left (at least 1), for byte loops that take a chunk at a time.
uint wasi_work_chunk(WasiWork w) { return w.used < w.budget ? w.budget - w.used : 1u; }
