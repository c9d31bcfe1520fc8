#!/usr/bin/env bash
# cudecomp's GPU build on the GPU, for scripts/gpu-check.sh: usage cudecomp_tests.sh BUNDLE SITE.
# The C++ programs come from the bundle (built with nvcc for sm_90 by gpu-check-bundle.sh);
# SITE holds the Python packages with cudecomp's GPU-variant module. Runs the logic and host
# tests, then under mpirun with 1, 2 and 4 ranks on the one GPU the deferred mover and the
# device tests (every transpose backend: MPI_P2P, MPI_P2P_PL, MPI_A2A over CUDA-aware MPI, or
# their refusal with more than one rank over an MPI that is not;
# NCCL, NCCL_PL; halo updates; every element checked against its global index), then the
# Python tests on CuPy arrays (tests/gpu/test_decomp_cupy.py) and the benchmark on GPU and host
# arrays in one run. NCCL refuses two ranks of one communicator on one GPU, so with 2 and 4
# ranks the NCCL backends run only where ranks have their own device (the tests say so).
set -uo pipefail
bundle=$1 site=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
status=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
command -v mpirun >/dev/null || { echo "cudecomp: no mpirun (neither the machine's nor the bundle's)"; exit 1; }
echo "== mpirun: $(command -v mpirun)"
# The CUDA runtime and NCCL of the machine's CUDA and Python installations (the programs link
# libcudart.so.13 and libnccl.so.2 dynamically; CUDA 13's wheels keep them under
# site-packages/nvidia/{cu13,nccl}/lib).
python_site=$("$python" -c 'import site; print(" ".join(site.getsitepackages()))')
for library in libcudart.so.13 libnccl.so.2; do
  ldconfig -p | grep -q "$library" && continue
  # shellcheck disable=SC2086 # a list of folders
  found=$(find /usr/local/cuda/lib64/ /usr/local/cuda/lib/ $python_site -name "$library" 2>/dev/null | head -1)
  [[ -n $found ]] && export LD_LIBRARY_PATH=$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
done
ldd "$bundle/bin/decomp_cuda_device_tests" | grep -E "not found|cudart|nccl|mpi"
"$bundle/bin/decomp_gpu_logic_tests" --gtest_brief=1 --gtest_color=no || status=1
"$bundle/bin/decomp_cuda_host_tests" --gtest_brief=1 --gtest_color=no || status=1
for ranks in 1 2 4; do
  echo "== cudecomp: $ranks rank(s)"
  mpirun --oversubscribe -np "$ranks" "$bundle/bin/decomp_deferred_mover_tests" --gtest_brief=1 --gtest_color=no || status=1
  mpirun --oversubscribe -np "$ranks" "$bundle/bin/decomp_cuda_device_tests" --gtest_brief=1 --gtest_color=no || status=1
done
package=$(PYTHONPATH=$site "$python" -c 'import cudecomp as c; print(c.__file__, c.__version__, "has_cuda", c._native.has_cuda)' 2>&1)
echo "== cudecomp: Python package $package"
[[ $package == "$site/cudecomp/__init__.py "*" has_cuda True" ]] || { echo "cudecomp: not the GPU package"; exit 1; }
(cd "$root/tests/python" && PYTHONPATH=$site "$python" -m pytest -q -p no:cacheprovider test_decomp_cuda_arrays.py) ||
  status=1
(cd "$root/tests/gpu" && PYTHONPATH=$site "$python" -m pytest -v -s -p no:cacheprovider test_decomp_cupy.py) || status=1
echo "== cudecomp: benchmark"
# MPI backends on device buffers need a CUDA-aware MPI with more than one rank (the library
# refuses them otherwise, naming the backend): the 4-rank run times GPU arrays only over one.
devices=host
ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && devices=both
echo "== cudecomp: 4-rank benchmark on --device $devices (MPI CUDA-aware: $([[ $devices == both ]] && echo yes || echo no))"
PYTHONPATH=$site mpirun --oversubscribe -np 4 "$python" -m cudecomp bench --gdims 128 128 128 --pdims 2 2 \
  --backend MPI_P2P --device "$devices" || status=1
PYTHONPATH=$site mpirun --oversubscribe -np 1 "$python" -m cudecomp bench --gdims 256 256 256 --device both || status=1
exit $status
