#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU and nothing prepared (no network): builds the
# wave_gpu extension, runs the Vulkan differential tests and bench/wave_gpu.py, then cudecomp's
# CUDA step (cudecomp_step below), and prints a short table. Results also go to $OUT (or
# build/gpu-check/out): tests.log, bench.txt, cudecomp.log, summary.txt.
# GPU_CHECK_CUDECOMP_ONLY=1 runs the cudecomp step alone (it needs no Vulkan).
#
# Needs there: a C++20 compiler, CMake >= 3.25, ninja, Python 3 with numpy, pytest and
# nanobind, and the NVIDIA driver's Vulkan ICD; for cudecomp's step, MPI, the CUDA toolkit with
# NCCL, GoogleTest, and mpi4py and CuPy in that Python. What such machines usually lack (Vulkan
# headers and loader, volk, glslang, SPIRV-Tools) is taken from the system when present,
# else from .gpu-deps/*.deb, which scripts/gpu-check-deps.sh downloads on a machine with
# apt (carry `.gpu-deps` along). Anything still missing stops the script with a message
# saying what and how to provide it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/gpu-check"
out=${OUT:-$work/out}
mkdir -p "$work" "$out"
python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}

fail() {
  echo "gpu-check: $*" >&2
  echo "gpu-check: FAILED: $*" >"$out/summary.txt"
  exit 1
}
step() { echo "== gpu-check: $*"; }

# ---- cudecomp on the GPU -------------------------------------------------------------------------
# Builds cudecomp's core, CUDA library and Python extension in its GPU variant
# (scripts/gpu_check/cudecomp: no Vulkan or glslang needed) and runs, with 1, 2 and 4 ranks on
# the one GPU, the C device test program and the Python tests on CuPy arrays
# (tests/gpu/test_decomp_cupy.py): every transpose backend (MPI_P2P, MPI_P2P_PL, MPI_A2A over
# CUDA-aware MPI; NCCL, NCCL_PL) and the halo updates on device buffers, every element checked
# against its global index. The CPU-side tests of the same code run too, and the benchmark
# (python -m cudecomp bench --device both) times one transpose cycle on GPU and host arrays in
# one run. NCCL refuses two ranks of one communicator on the same GPU, so with 2 and 4 ranks on
# one GPU the Python tests run the NCCL backends only where ranks have their own device (they
# say so). Returns non-zero on any failure.
cudecomp_step() {
  local build="$work/cudecomp" project="$work/cudecomp-project" log="$out/cudecomp.log" status=0
  command -v mpirun >/dev/null || { echo "cudecomp: mpirun not found" | tee "$log"; return 1; }
  mkdir -p "$project"
  cp "$root/scripts/gpu_check/cudecomp/CMakeLists.txt" "$project/CMakeLists.txt"
  for folder in src tests include cmake; do ln -sfn "$root/$folder" "$project/$folder"; done
  local version
  version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/pyproject.toml" | head -1)
  { cmake -S "$project" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWAVESTACK_VERSION="$version" \
      -DPython_EXECUTABLE="$(command -v "$python")" &&
    cmake --build "$build" -j "$jobs"; } >"$log" 2>&1 || { tail -30 "$log"; echo "cudecomp: build failed ($log)"; return 1; }
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  "$build/decomp_gpu_logic_tests" >>"$log" 2>&1 || status=1
  "$build/decomp_cuda_host_tests" >>"$log" 2>&1 || status=1
  for ranks in 1 2 4; do
    echo "== cudecomp: $ranks rank(s)" | tee -a "$log"
    mpirun --oversubscribe -np "$ranks" "$build/decomp_deferred_mover_tests" >>"$log" 2>&1 || status=1
    mpirun --oversubscribe -np "$ranks" "$build/decomp_cuda_device_tests" >>"$log" 2>&1 || status=1
  done
  # The Python package: python/cudecomp's files beside the GPU-variant module built above, first
  # on the path (a NumPy build installed on the machine would refuse CuPy arrays).
  local site="$work/cudecomp-site"
  rm -rf "$site" && mkdir -p "$site/cudecomp"
  cp "$root"/python/cudecomp/*.py "$site/cudecomp/"
  if ! compgen -G "$build/python/_native*.so" >/dev/null; then
    echo "cudecomp: the Python extension was not built (Python with nanobind missing?)" | tee -a "$log"
    return 1
  fi
  cp "$build"/python/_native*.so "$site/cudecomp/"
  local pythonpath="$site${PYTHONPATH:+:$PYTHONPATH}" package
  # An editable install of the project would take precedence over PYTHONPATH: make sure the
  # tests import this GPU package.
  package=$(PYTHONPATH=$pythonpath "$python" -c 'import cudecomp as c; print(c.__file__, c.__version__, "has_cuda", c._native.has_cuda)' 2>&1)
  echo "== cudecomp: Python package $package" | tee -a "$log"
  if [[ $package != "$site/cudecomp/__init__.py "*" has_cuda True" ]]; then
    echo "cudecomp: the Python tests would not import the GPU package built here" | tee -a "$log"
    return 1
  fi
  # The CUDA-array rules (no GPU needed), then CuPy arrays under mpirun with 1, 2 and 4 ranks.
  (cd "$root/tests/python" && PYTHONPATH=$pythonpath "$python" -m pytest -q -p no:cacheprovider \
    test_decomp_cuda_arrays.py) >>"$log" 2>&1 || status=1
  (cd "$root/tests/gpu" && PYTHONPATH=$pythonpath "$python" -m pytest -v -s -p no:cacheprovider \
    test_decomp_cupy.py) 2>&1 | tee -a "$log" | grep -E "CuPy arrays OK|NCCL backends not run|PASSED|FAILED|Error"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  # The benchmark on GPU and host arrays in one run: 4 ranks with an MPI backend (NCCL refuses
  # ranks that share a GPU, so autotuning there would try it), and 1 rank autotuned, NCCL included.
  echo "== cudecomp: benchmark" | tee -a "$log"
  PYTHONPATH=$pythonpath mpirun --oversubscribe -np 4 "$python" -m cudecomp bench --gdims 128 128 128 \
    --pdims 2 2 --backend MPI_P2P --device both 2>&1 | tee -a "$log" | grep -E "bench:|cycle"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  PYTHONPATH=$pythonpath mpirun --oversubscribe -np 1 "$python" -m cudecomp bench --gdims 256 256 256 \
    --device both 2>&1 | tee -a "$log" | grep -E "bench:|cycle"
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  grep -E "PASSED|FAILED|passed|failed" "$log" | tail -12
  return $status
}

if [[ ${GPU_CHECK_CUDECOMP_ONLY:-0} == 1 ]]; then
  step "cudecomp (CUDA library on the GPU)"
  cudecomp_step
  cudecomp_status=$?
  echo "cudecomp:  exit $cudecomp_status; log in $out/cudecomp.log" | tee "$out/summary.txt"
  exit $cudecomp_status
fi

# ---- 1. build prerequisites ----------------------------------------------------------------
step "prerequisites"
deps="$work/deps"  # unpacked here, outside .gpu-deps, so .gpu-deps stays small to carry
if compgen -G "$root/.gpu-deps/*.deb" >/dev/null; then
  mkdir -p "$deps"
  for package in "$root"/.gpu-deps/*.deb; do dpkg -x "$package" "$deps" || fail "cannot unpack $package"; done
  export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  # glslang's CMake targets name SPIRV-Tools libraries by plain name (-lSPIRV-Tools-opt)
  for libdir in "$deps"/usr/lib/*-linux-gnu; do export LIBRARY_PATH="$libdir${LIBRARY_PATH:+:$LIBRARY_PATH}"; done
  echo "using the packages of .gpu-deps ($(ls "$root"/.gpu-deps/*.deb | wc -l) unpacked into $deps)"
fi
missing=()
for tool in cmake ninja; do
  command -v "$tool" >/dev/null || "$python" -c "import $tool" 2>/dev/null || missing+=("$tool")
done
command -v c++ >/dev/null || command -v g++ >/dev/null || missing+=("a C++ compiler (c++/g++)")
"$python" -c "import numpy, pytest, nanobind" 2>/dev/null || missing+=("Python packages numpy, pytest, nanobind")
find_file() {  # first existing path among the arguments
  for candidate in "$@"; do [[ -e $candidate ]] && { echo "$candidate"; return 0; }; done
  return 1
}
find_file /usr/include/vulkan/vulkan.h "$deps/usr/include/vulkan/vulkan.h" >/dev/null ||
  missing+=("Vulkan headers (libvulkan-dev)")
find_file /usr/include/volk.c "$deps/usr/include/volk.c" >/dev/null || missing+=("volk (libvulkan-volk-dev)")
compgen -G "/usr/lib/*/cmake/glslang/glslang-config.cmake" >/dev/null ||
  compgen -G "$deps/usr/lib/*/cmake/glslang/glslang-config.cmake" >/dev/null ||
  missing+=("glslang with SPIRV-Tools (glslang-dev, spirv-tools)")
if ((${#missing[@]} > 0)); then
  fail "missing: ${missing[*]}. On a machine with apt run scripts/gpu-check-deps.sh and carry .gpu-deps;" \
       "Python packages can be carried as wheels."
fi

# ---- 2. Vulkan loader and the NVIDIA driver ------------------------------------------------
step "Vulkan loader and driver"
# The loader, and the glvnd libraries the NVIDIA driver loads, from .gpu-deps where the
# system has none.
for library in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0; do
  ldconfig -p 2>/dev/null | grep -q "$library" && continue
  found=$(find_file "$deps"/usr/lib/*/"$library") || {
    [[ $library == libvulkan.so.1 ]] && fail "no Vulkan loader (libvulkan.so.1): carry .gpu-deps"
    echo "warning: $library is missing; the NVIDIA Vulkan driver may fail to load" >&2
    continue
  }
  case ":${LD_LIBRARY_PATH:-}:" in *":$(dirname "$found"):"*) ;; *)
    export LD_LIBRARY_PATH="$(dirname "$found")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  esac
  echo "$library: $found"
done
if [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} ]]; then
  icd=$(grep -ls nvidia /etc/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json 2>/dev/null | head -1)
  if [[ -z $icd && -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    echo "driver: $VK_DRIVER_FILES"
  fi
fi

# ---- 3. build the wave_gpu extension ---------------------------------------------------------
step "build"
project="$work/project"
mkdir -p "$project"
cp "$root/scripts/gpu_check/CMakeLists.txt" "$project/CMakeLists.txt"
for folder in src cmake; do ln -sfn "$root/$folder" "$project/$folder"; done
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/pyproject.toml" | head -1)
cmake -S "$project" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWAVESTACK_VERSION="$version" \
  -DPython_EXECUTABLE="$(command -v "$python")" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; fail "cmake configure failed (build.log)"; }
cmake --build "$work/cmake" -j "$jobs" >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; fail "build failed (build.log)"; }
site="$work/site"
rm -rf "$site" && mkdir -p "$site/wave_gpu"
cp "$root"/python/wave_gpu/*.py "$site/wave_gpu/"
cp "$work"/cmake/_native*.so "$site/wave_gpu/" || fail "the build produced no _native module"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
# The hardware GPU only, unless a dry run on a software adapter asks (GPU_CHECK_ALLOW_SOFTWARE=1).
if [[ ${GPU_CHECK_ALLOW_SOFTWARE:-0} == 1 ]]; then export WAVESTACK_ALLOW_SOFTWARE_GPU=1; else unset WAVESTACK_ALLOW_SOFTWARE_GPU; fi
export WAVESTACK_CACHE_DIR="$work/cache"
"$python" -m wave_gpu info | tee "$out/info.txt" || fail "python -m wave_gpu info failed"

# ---- 4. differential tests on the hardware GPU ----------------------------------------------
step "differential tests (emulator vs Vulkan)"
export WAVESTACK_REQUIRE_GPU=1
(cd "$root/tests/python" && "$python" -m pytest -q -p no:cacheprovider test_wave_kernels.py test_wave_seed.py \
  test_wave_fuzz.py test_wave_semantics.py test_wave_devices.py test_wave_vulkan.py test_wave_errors.py) 2>&1 | tee "$out/tests.log"
tests_status=${PIPESTATUS[0]}
tests_line=$(grep -E "^[0-9]+ (passed|failed)|passed|failed" "$out/tests.log" | tail -1)

# ---- 5. benchmark ------------------------------------------------------------------------------
step "benchmark"
# shellcheck disable=SC2086 # BENCH_ARGS is a list of options
"$python" "$root/bench/wave_gpu.py" ${BENCH_ARGS:-} 2>&1 | tee "$out/bench.txt"
bench_status=${PIPESTATUS[0]}

# ---- 6. cudecomp -------------------------------------------------------------------------------
step "cudecomp (CUDA library on the GPU)"
cudecomp_step
cudecomp_status=$?

# ---- 7. summary ----------------------------------------------------------------------------------
{
  echo "device:    $(grep -E '^(Selected|No )' "$out/info.txt" | head -1)"
  echo "tests:     ${tests_line:-no result} (exit $tests_status)"
  grep -E "^(vector add|SGEMM)" "$out/bench.txt" | sed 's/^/bench:     /'
  echo "bench exit $bench_status; logs in $out"
  echo "cudecomp:  exit $cudecomp_status (cudecomp.log)"
} | tee "$out/summary.txt"
[[ $tests_status -eq 0 && $bench_status -eq 0 && $cudecomp_status -eq 0 ]]
