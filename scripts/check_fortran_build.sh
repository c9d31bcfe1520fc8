#!/usr/bin/env bash
# Fails unless the cudecomp Fortran module and its MPI test were built in the given build
# directory, so a CI run cannot silently lose the DecompFortran tests (bootstrap installs
# gfortran; CMake builds the module only when it finds a Fortran compiler).
set -euo pipefail
build_dir=${1:-build/py}
for name in cudecomp.mod decomp_fortran_transpose; do
  if [[ -z $(find "$build_dir" -name "$name" -print -quit) ]]; then
    echo "fortran-check: $name was not built in $build_dir (is gfortran installed?)" >&2
    exit 1
  fi
done
echo "fortran-check: the cudecomp Fortran module and its tests were built"
