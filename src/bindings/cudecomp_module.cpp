// cudecomp._native: the extension module of the cudecomp package. It never touches Vulkan.
// The Python package (python/cudecomp) owns the public classes and the argument checks; this
// module exposes the C struct layouts, the enums and the collective operations.
#include <nanobind/nanobind.h>

#include <string>

#include "bindings/cudecomp_bindings.hpp"
#include "cudecomp_version.h"
#include "decomp/backend_support.hpp"
#include "runtime/version.hpp"

NB_MODULE(_native, module) {
  module.doc() = "cudecomp native layer: pencil decompositions, transposes and halo updates over MPI";
  // "+cpu" is the local version label upstream's CPU-only build reports: this module serves host
  // (NumPy) buffers only, whatever CUDA kernels the library was compiled with.
  module.attr("__version__") = nanobind::str((std::string(wavestack::runtime::kProjectVersion) + "+cpu").c_str());
  // Whether this extension runs operations on CUDA device buffers (then NumPy arrays are
  // rejected, as the seed says). False while the library's CUDA path is not wired in
  // (decomp/backend_support.hpp), whatever kernels were compiled.
  module.attr("has_cuda") = wavestack::decomp::this_build().cuda;
  // The cuDecomp release whose API this implements (cudecomp_version.h).
  module.attr("cudecomp_api_version") = nanobind::make_tuple(CUDECOMP_MAJOR, CUDECOMP_MINOR, CUDECOMP_PATCH);
  wavestack::bindings::bind_cudecomp_types(module);
  wavestack::bindings::bind_cudecomp_grid(module);
}
