#!/usr/bin/env bash
# Builds upstream cuDecomp 0.7.0's own tests from ../shared/cudecomp-upstream against this
# project's library (tests/cudecomp_upstream: the header ABI test, tests/ctest's api and halo
# GoogleTest suites and Fortran tests, tests/cc's sweep programs) and runs them under mpirun with
# 1, 2 and 4 ranks, saying what ran (tests/cudecomp_upstream/run_upstream_suites.py). Fails when
# they were not configured (no ../shared sources, CUDA headers or GoogleTest) or anything fails.
# Usage: scripts/check_decomp_upstream.sh [BUILD_DIR]  (default build/py)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/py}
python=${PYTHON:-.venv/bin/python}
targets=(decomp_header_abi_test cudecomp_upstream_api_tests cudecomp_upstream_halo_tests
         cudecomp_upstream_fortran_api cudecomp_upstream_fortran_transpose cudecomp_upstream_fortran_halo)
for program in transpose halo; do
  for dtype in R32 R64 C32 C64; do targets+=("cudecomp_upstream_cc_${program}_${dtype}"); done
done
if ! cmake --build "$build_dir" --target "${targets[@]}"; then
  echo "decomp-upstream: the upstream suites did not build in $build_dir (configure output:" \
    "'upstream cuDecomp suites not built' says why; they need ../shared/cudecomp-upstream, the CUDA headers," \
    "GoogleTest and gfortran)" >&2
  exit 1
fi
"$build_dir/tests/cudecomp_upstream/decomp_header_abi_test"
"$python" tests/cudecomp_upstream/run_upstream_suites.py --build-dir "$build_dir"
