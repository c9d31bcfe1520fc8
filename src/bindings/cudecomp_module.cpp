// cudecomp._native: the extension module of the cudecomp package. It never touches Vulkan.
#include <nanobind/nanobind.h>

#include "runtime/version.hpp"

NB_MODULE(_native, module) {
  module.doc() = "cudecomp native layer: pencil decompositions, transposes and halo updates over MPI";
  module.attr("__version__") = wavestack::runtime::kProjectVersion;
}
