// The numerics library's float operations on the cpu device: the software functions
// (<name>_soft, src/wasm/device/f64.glsl and f32.glsl compiled as C++) against the host IEEE
// fast path that replaces them (src/wasm/device/host_ieee.hpp). Each benchmark applies one
// operation to 4,096 independent operand pairs per iteration (random values of ordinary
// magnitude, as a program's data would be: no NaNs, infinities or subnormals) and folds the
// results into a checksum so none is optimized away; Google Benchmark reports the time per
// iteration, and the counter `per_op` the time per operation.
//
//   cmake --build <build> --target numerics_host_ieee_bench && <build>/bench/numerics_host_ieee_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "wasm/device/numerics.hpp"

#if !defined(WASM_HOST_IEEE)
#error "numerics_host_ieee_bench compares the two paths: build it where the host fast path exists"
#endif

namespace {

namespace device = wavestack::wasm::device;
using device::uint;
using device::uvec2;

constexpr int kOperands = 4096;

// Finite doubles with exponents of +-2^40 around 1, half of them negative.
struct Operands {
  std::vector<uvec2> a64, b64;
  std::vector<uint> a32, b32;
  Operands() {
    std::mt19937_64 engine(0x5EEDF00Du);
    for (int i = 0; i < kOperands; ++i) {
      auto f64 = [&] {
        const std::uint64_t bits = (engine() & 0x800FFFFFFFFFFFFFull) | ((983 + engine() % 80) << 52);
        return uvec2(static_cast<uint>(bits), static_cast<uint>(bits >> 32));
      };
      auto f32 = [&] { return static_cast<uint>((engine() & 0x807FFFFFu) | ((107 + engine() % 40) << 23)); };
      a64.push_back(f64());
      b64.push_back(f64());
      a32.push_back(f32());
      b32.push_back(f32());
    }
    // sqrt needs non-negative operands.
    for (uvec2& v : a64) v.y &= 0x7FFFFFFFu;
    for (uint& v : a32) v &= 0x7FFFFFFFu;
  }
};

const Operands& operands() {
  static const Operands instance;
  return instance;
}

void per_op(benchmark::State& state) {
  state.counters["per_op"] = benchmark::Counter(static_cast<double>(state.iterations()) * kOperands,
                                                benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <uvec2 (*Op)(uvec2, uvec2)>
void f64_binary(benchmark::State& state) {
  const Operands& in = operands();
  for (auto _ : state) {
    uint sum = 0u;
    for (int i = 0; i < kOperands; ++i) sum ^= Op(in.a64[i], in.b64[i]).x;
    benchmark::DoNotOptimize(sum);
  }
  per_op(state);
}

template <uvec2 (*Op)(uvec2)>
void f64_unary(benchmark::State& state) {
  const Operands& in = operands();
  for (auto _ : state) {
    uint sum = 0u;
    for (int i = 0; i < kOperands; ++i) sum ^= Op(in.a64[i]).x;
    benchmark::DoNotOptimize(sum);
  }
  per_op(state);
}

template <uint (*Op)(uvec2, uvec2)>
void f64_compare(benchmark::State& state) {
  const Operands& in = operands();
  for (auto _ : state) {
    uint sum = 0u;
    for (int i = 0; i < kOperands; ++i) sum += Op(in.a64[i], in.b64[i]);
    benchmark::DoNotOptimize(sum);
  }
  per_op(state);
}

template <uint (*Op)(uint, uint)>
void f32_binary(benchmark::State& state) {
  const Operands& in = operands();
  for (auto _ : state) {
    uint sum = 0u;
    for (int i = 0; i < kOperands; ++i) sum ^= Op(in.a32[i], in.b32[i]);
    benchmark::DoNotOptimize(sum);
  }
  per_op(state);
}

template <uint (*Op)(uint)>
void f32_unary(benchmark::State& state) {
  const Operands& in = operands();
  for (auto _ : state) {
    uint sum = 0u;
    for (int i = 0; i < kOperands; ++i) sum ^= Op(in.a32[i]);
    benchmark::DoNotOptimize(sum);
  }
  per_op(state);
}

// Soft and host side by side, operation by operation.
BENCHMARK(f64_binary<device::f64_add_soft>)->Name("f64_add/soft");
BENCHMARK(f64_binary<device::f64_add>)->Name("f64_add/host");
BENCHMARK(f64_binary<device::f64_mul_soft>)->Name("f64_mul/soft");
BENCHMARK(f64_binary<device::f64_mul>)->Name("f64_mul/host");
BENCHMARK(f64_binary<device::f64_div_soft>)->Name("f64_div/soft");
BENCHMARK(f64_binary<device::f64_div>)->Name("f64_div/host");
BENCHMARK(f64_unary<device::f64_sqrt_soft>)->Name("f64_sqrt/soft");
BENCHMARK(f64_unary<device::f64_sqrt>)->Name("f64_sqrt/host");
BENCHMARK(f64_compare<device::f64_lt_soft>)->Name("f64_lt/soft");
BENCHMARK(f64_compare<device::f64_lt>)->Name("f64_lt/host");
BENCHMARK(f64_binary<device::f64_min_soft>)->Name("f64_min/soft");
BENCHMARK(f64_binary<device::f64_min>)->Name("f64_min/host");
BENCHMARK(f32_binary<device::f32_add_soft>)->Name("f32_add/soft");
BENCHMARK(f32_binary<device::f32_add>)->Name("f32_add/host");
BENCHMARK(f32_binary<device::f32_mul_soft>)->Name("f32_mul/soft");
BENCHMARK(f32_binary<device::f32_mul>)->Name("f32_mul/host");
BENCHMARK(f32_binary<device::f32_div_soft>)->Name("f32_div/soft");
BENCHMARK(f32_binary<device::f32_div>)->Name("f32_div/host");
BENCHMARK(f32_unary<device::f32_sqrt_soft>)->Name("f32_sqrt/soft");
BENCHMARK(f32_unary<device::f32_sqrt>)->Name("f32_sqrt/host");

}  // namespace

BENCHMARK_MAIN();
