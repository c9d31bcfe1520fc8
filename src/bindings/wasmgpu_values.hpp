// Python values <-> the 64-bit slots the instances exchange, in bulk and in C++: arguments
// for every instance are converted in one pass (Python lists of rows, NumPy arrays, a tuple of
// columns), and results become a Python list or NumPy arrays without per-value Python work
// beyond creating the values themselves. Value kinds are one character per parameter/result:
// 'i' i32, 'I' i64, 'f' f32, 'F' f64, 'r' funcref, 'e' externref.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wasm/instances/instance_set.hpp"

namespace wavestack::bindings {

// One row per instance, `kinds` per row; raises TypeError / ValueError / OverflowError naming
// the offending input (inputs[i][k]) before anything runs.
[[nodiscard]] std::vector<std::uint64_t> pack_arguments(nanobind::handle inputs, const std::string& kinds,
                                                        std::uint32_t count);

// The results of a call in the seed's form: a list in instance order of a scalar (one
// result), a tuple (several) or None (none, or a trapped instance).
[[nodiscard]] nanobind::object results_as_list(const wasm::CallOutcome& outcome, const std::string& kinds);

// The results as NumPy arrays: one array for one result, a tuple of arrays for several,
// None for none; trapped instances hold 0.
[[nodiscard]] nanobind::object results_as_numpy(const wasm::CallOutcome& outcome, const std::string& kinds);

void bind_values(nanobind::module_& module);

}  // namespace wavestack::bindings
