#!/usr/bin/env bash
# Fails unless the CUDA kernels were compiled for sm_90 in the given build directory, so a
# CI run cannot silently skip them (nvcc exists on every development and CI machine).
set -euo pipefail
build_dir=${1:-build/py}
library=$(find "$build_dir" -name 'libwavestack_decomp_cuda.a' -print -quit)
if [[ -z $library ]]; then
  echo "cuda-check: libwavestack_decomp_cuda.a was not built in $build_dir" >&2
  exit 1
fi
# The embedded fatbinary names its target architecture (cuobjdump is not in every toolkit).
if ! grep -aq 'sm_90' "$library"; then
  echo "cuda-check: $library contains no sm_90 code" >&2
  exit 1
fi
echo "cuda-check: $library contains sm_90 code"
