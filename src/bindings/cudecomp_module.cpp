// cudecomp._native: the extension module of the cudecomp package. It never touches Vulkan.
// The Python package (python/cudecomp) owns the public classes and the argument checks; this
// module exposes the C struct layouts, the enums and the collective operations.
#include <nanobind/nanobind.h>

#include "bindings/cudecomp_bindings.hpp"
#include "runtime/version.hpp"

NB_MODULE(_native, module) {
  module.doc() = "cudecomp native layer: pencil decompositions, transposes and halo updates over MPI";
  module.attr("__version__") = wavestack::runtime::kProjectVersion;
  wavestack::bindings::bind_cudecomp_types(module);
  wavestack::bindings::bind_cudecomp_grid(module);
}
