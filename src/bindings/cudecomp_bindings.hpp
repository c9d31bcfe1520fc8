// Pieces of the cudecomp._native module, one file each.
#pragma once

#include <nanobind/nanobind.h>

namespace wavestack::bindings {

// Enums, struct layouts and defaults, the exception translator (cudecomp_types_bindings.cpp).
void bind_cudecomp_types(nanobind::module_& module);
// Handle and grid descriptor with their collective operations (cudecomp_grid_bindings.cpp).
void bind_cudecomp_grid(nanobind::module_& module);

}  // namespace wavestack::bindings
