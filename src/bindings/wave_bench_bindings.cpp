// Plain C++ loops for bench/wave_emulator.py: the physical limit the emulator is measured
// against. Benchmark use only; they are compiled with the same flags as the emulator.
#include <nanobind/ndarray.h>

#include <cstdint>

#include "bindings/wave_ir_bindings.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace wavestack::bindings {
namespace {

using F32 = nb::ndarray<float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

void vector_add(F32 a, F32 b, F32 out) {
  const size_t n = out.shape(0);
  const float* x = a.data();
  const float* y = b.data();
  float* z = out.data();
  nb::gil_scoped_release release;
  for (size_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
}

// Escape-time iterations of c = (x0 + i * y0) for a width x height image over [-2,1]x[-1.5,1.5].
void mandelbrot(I32 out, uint32_t width, uint32_t height, int32_t max_iterations) {
  int32_t* result = out.data();
  const size_t n = out.shape(0);
  nb::gil_scoped_release release;
  for (size_t i = 0; i < n; ++i) {
    const float cx = -2.0F + 3.0F * static_cast<float>(i % width) / static_cast<float>(width);
    const size_t row = i / width;
    const float cy = -1.5F + 3.0F * static_cast<float>(row) / static_cast<float>(height);
    float x = 0.0F;
    float y = 0.0F;
    int32_t k = 0;
    while (k < max_iterations) {
      if (x * x + y * y > 4.0F) break;
      const float t = x * x - y * y + cx;
      y = 2.0F * x * y + cy;
      x = t;
      ++k;
    }
    result[i] = k;
  }
}

}  // namespace

void bind_wave_bench(nb::module_& module) {
  module.def("bench_reference_vector_add", &vector_add, "a"_a, "b"_a, "out"_a);
  module.def("bench_reference_mandelbrot", &mandelbrot, "out"_a, "width"_a, "height"_a, "max_iterations"_a);
}

}  // namespace wavestack::bindings
