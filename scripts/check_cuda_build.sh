#!/usr/bin/env bash
# Fails unless cudecomp's CUDA library was built in the given build directory with every one of
# its objects, its kernels compiled for sm_90, and its CPU-runnable test program linked, so a CI
# run cannot silently skip them (nvcc and NCCL exist on every development and CI machine).
set -euo pipefail
build_dir=${1:-build/py}
library=$(find "$build_dir" -name 'libwavestack_decomp_cuda.a' -print -quit)
if [[ -z $library ]]; then
  echo "cuda-check: libwavestack_decomp_cuda.a was not built in $build_dir" >&2
  exit 1
fi
members=$(ar t "$library")
for object in pack_kernels.cu.o device_memory.cpp.o device_mover.cpp.o event_timer.cpp.o nccl_comm.cpp.o \
              nccl_halo.cpp.o nccl_transpose.cpp.o; do
  if ! grep -qx "$object" <<<"$members"; then
    echo "cuda-check: $library lacks $object" >&2
    exit 1
  fi
done
# The core must reach the CUDA library through the CUDA side of device_dispatch.hpp.
core=$(dirname "$library")/libwavestack_decomp.a
if ! ar t "$core" | grep -qx device_dispatch.cpp.o || ar t "$core" | grep -qx device_dispatch_none.cpp.o; then
  echo "cuda-check: $core does not hold the CUDA build's device_dispatch.cpp.o" >&2
  exit 1
fi
# The embedded fatbinary names its target architecture (cuobjdump is not in every toolkit).
if ! grep -aq 'sm_90' "$library"; then
  echo "cuda-check: $library contains no sm_90 code" >&2
  exit 1
fi
if [[ -z $(find "$build_dir" -name 'decomp_cuda_host_tests' -type f -print -quit) ]]; then
  echo "cuda-check: decomp_cuda_host_tests (links the CUDA runtime and NCCL) was not built in $build_dir" >&2
  exit 1
fi
echo "cuda-check: $library has its $(wc -l <<<"$members") objects and sm_90 code; the core dispatches to it;" \
  "decomp_cuda_host_tests linked"
