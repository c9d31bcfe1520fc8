// cudecomp._native: the extension module of the cudecomp package. It never touches Vulkan.
// The Python package (python/cudecomp) owns the public classes and the argument checks; this
// module exposes the C struct layouts, the enums and the collective operations.
#include <nanobind/nanobind.h>

#include <string>

#include "bindings/cudecomp_bindings.hpp"
#include "cudecomp_version.h"
#include "decomp/device_dispatch.hpp"
#include "runtime/version.hpp"

NB_MODULE(_native, module) {
  module.doc() = "cudecomp native layer: pencil decompositions, transposes and halo updates over MPI";
  // "+cpu" is the local version label upstream's CPU-only build reports: this module then serves
  // host (NumPy) buffers only, whatever CUDA code the library was compiled with.
#ifdef WAVESTACK_CUDECOMP_PYTHON_GPU
  module.attr("__version__") = nanobind::str(wavestack::runtime::kProjectVersion);
#else
  module.attr("__version__") = nanobind::str((std::string(wavestack::runtime::kProjectVersion) + "+cpu").c_str());
#endif
  // Whether the Python operations take CUDA arrays (then NumPy arrays are refused, as the seed
  // says): the CMake setting WAVESTACK_CUDECOMP_PYTHON_GPU, on by default in the CUDA build (AUTO).
  // Off, they take NumPy arrays, even where the library has its CUDA backend (cuda_library below).
#ifdef WAVESTACK_CUDECOMP_PYTHON_GPU
  module.attr("has_cuda") = true;
#else
  module.attr("has_cuda") = false;
#endif
  // Whether the library was built with its CUDA backend: the C API then runs device buffers and
  // accepts the NCCL transpose backends (which refuse host buffers).
  module.attr("cuda_library") = wavestack::decomp::device_backend_built();
  // The cuDecomp release whose API this implements (cudecomp_version.h).
  module.attr("cudecomp_api_version") = nanobind::make_tuple(CUDECOMP_MAJOR, CUDECOMP_MINOR, CUDECOMP_PATCH);
  wavestack::bindings::bind_cudecomp_types(module);
  wavestack::bindings::bind_cudecomp_grid(module);
}
