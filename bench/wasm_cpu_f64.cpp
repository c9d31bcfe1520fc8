// f64-heavy WebAssembly loops on the cpu device (the interpreter compiled as C++), to compare
// the software float library with the host IEEE fast path end to end. The path is chosen when
// the library is compiled, so this program is built twice, once in a build directory configured
// with CMAKE_CXX_FLAGS=-DWAVESTACK_SOFT_FLOAT (docs/PERFORMANCE.md gives the commands); each run
// prints its path, the time per loop iteration and per executed instruction, and the result's
// bits, which must be the same in both builds.
//
// Two loops of n iterations over f64 locals x (starting at 0) and y:
//   mul-add:  y = y * 0.999 + x; x = x + 0.5                     (3 f64 ops in 13 instructions)
//   div-sqrt: y = y + sqrt(x) * x / (x + 1); x = x + 0.5         (6 f64 ops in 20 instructions)
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "wasm/device/numerics.hpp"
#include "wasm/instances/cpu_instances.hpp"
#include "wasm/load/loader.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

void append_f64(Bytes& code, double value) {
  std::uint8_t bytes[8];
  std::memcpy(bytes, &value, 8);
  code.push_back(0x44);  // f64.const
  code.insert(code.end(), bytes, bytes + 8);
}

// A module with one function (param i32 n) (result f64), locals x y: f64, whose loop body is
// `step` followed by the counter decrement and the backward branch; it returns y.
Bytes loop_module(const Bytes& step) {
  Bytes body = {0x01, 0x02, 0x7C, 0x03, 0x40};  // locals: 2 x f64; loop (no result)
  body.insert(body.end(), step.begin(), step.end());
  // local.get n; i32.const 1; i32.sub; local.tee n; br_if 0; end (loop); local.get y; end
  const Bytes tail = {0x20, 0x00, 0x41, 0x01, 0x6B, 0x22, 0x00, 0x0D, 0x00, 0x0B, 0x20, 0x02, 0x0B};
  body.insert(body.end(), tail.begin(), tail.end());
  Bytes module = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
  auto section = [&](std::uint8_t id, const Bytes& contents) {
    module.push_back(id);
    module.push_back(static_cast<std::uint8_t>(contents.size()));  // all sections here are < 128 bytes
    module.insert(module.end(), contents.begin(), contents.end());
  };
  section(1, {0x01, 0x60, 0x01, 0x7F, 0x01, 0x7C});  // type 0: (i32) -> f64
  section(3, {0x01, 0x00});                          // function 0 has type 0
  Bytes code = {0x01, static_cast<std::uint8_t>(body.size())};
  code.insert(code.end(), body.begin(), body.end());
  section(10, code);
  return module;
}

// Opcodes used below.
constexpr std::uint8_t kGet = 0x20, kSet = 0x21, kAdd = 0xA0, kMul = 0xA2, kDiv = 0xA3, kSqrt = 0x9F;

Bytes mul_add_step() {
  Bytes s = {kGet, 0x02};
  append_f64(s, 0.999);
  s.insert(s.end(), {kMul, kGet, 0x01, kAdd, kSet, 0x02, kGet, 0x01});
  append_f64(s, 0.5);
  s.insert(s.end(), {kAdd, kSet, 0x01});
  return s;
}

Bytes div_sqrt_step() {
  Bytes s = {kGet, 0x02, kGet, 0x01, kSqrt, kGet, 0x01, kMul, kGet, 0x01};
  append_f64(s, 1.0);
  s.insert(s.end(), {kAdd, kDiv, kAdd, kSet, 0x02, kGet, 0x01});
  append_f64(s, 0.5);
  s.insert(s.end(), {kAdd, kSet, 0x01});
  return s;
}

void run(const char* name, const Bytes& bytes, std::uint32_t n, int repeats) {
  namespace wasm = wavestack::wasm;
  const wasm::Module module = wasm::load_module(bytes.data(), bytes.size(), wasm::LoadOptions{});
  wasm::CpuInstances instances(module, 1, wasm::ReserveOptions{}, wasm::SpawnLimits{});
  double best = 1e30;
  wasm::CallOutcome outcome;
  for (int r = 0; r < repeats; ++r) {
    const std::uint64_t args[] = {n};
    const auto start = std::chrono::steady_clock::now();
    instances.begin_call(0, args, std::nullopt);
    while (instances.step(1u << 20, 1).running != 0) {
    }
    outcome = instances.outcome(1);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::printf("%-9s n=%u  best of %d: %8.2f ms  %6.1f ns/iteration  %5.2f ns/instruction  status %u  y = 0x%016llX\n",
              name, n, repeats, best * 1e3, best * 1e9 / n, best * 1e9 / static_cast<double>(outcome.executed),
              outcome.status[0], static_cast<unsigned long long>(outcome.results[0]));
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint32_t n = argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 0)) : 2000000u;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
#if defined(WASM_HOST_IEEE)
  std::printf("float path: host IEEE (host_ieee.hpp)\n");
#else
  std::printf("float path: software (WAVESTACK_SOFT_FLOAT or no fast path on this host)\n");
#endif
  run("mul-add", loop_module(mul_add_step()), n, repeats);
  run("div-sqrt", loop_module(div_sqrt_step()), n, repeats);
  return 0;
}
