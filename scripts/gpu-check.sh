#!/usr/bin/env bash
# One command for a machine with an NVIDIA GPU and nothing prepared (no network, no compiler
# needed): runs every check that needs a hardware GPU, from .gpu-bundle/bundle.tar.xz, which
# scripts/gpu-check-bundle.sh builds on the development machine (carry `.gpu-bundle`):
#
#   1. the machine: GPU, driver, Vulkan loader (unpacked from the bundle where missing);
#   2. bench/wave_gpu_vulkan.py (vector add against a device copy, SGEMM against cuBLAS through
#      PyTorch or CuPy) and bench/wasmgpu.py on the GPU, alone on the machine;
#   3. at once, each its own process on the one GPU: the wave_gpu differential and Vulkan
#      tests; the device numerics' bit-exactness test and the other C++ GPU tests; the wasmgpu
#      Python tests on Vulkan; the spec runner over all core suites in both execution modes
#      (suites split into shards); the wasi-testsuite runner in both modes; cudecomp's CUDA
#      tests and Python tests on CuPy arrays under mpirun with 1, 2 and 4 ranks.
#
# Every step has a time limit inside GPU_CHECK_SECONDS (default 420), so one run fits a short
# lease; a step cut off says so (GPU_CHECK_STEPS picks steps by name). Results go to $OUT (else build/gpu-check/out): summary.txt
# (every count and figure), bench.txt, and logs.tar.gz with every step's log.
# WAVESTACK_REQUIRE_GPU=1 throughout: a missing hardware device fails, never skips.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/build/gpu-check
bundle=${GPU_BUNDLE:-$work/bundle}  # GPU_BUNDLE: an unpacked bundle (a dry run on the development machine)
out=${OUT:-$work/out}
logs=$work/logs
python=${PYTHON:-python3}
start=$SECONDS
budget=${GPU_CHECK_SECONDS:-420}
rm -rf "$logs" && mkdir -p "$logs" "$out"

note() { echo "== gpu-check $((SECONDS - start))s: $*" | tee -a "$logs/steps.log"; }
left() { echo $((budget - (SECONDS - start))); }
# GPU_CHECK_STEPS: only the steps whose names start with one of these words (every step when
# unset), to check a fix again in less device time; the others leave no log.
selected() {
  [[ -z ${GPU_CHECK_STEPS:-} ]] && return 0
  local word
  for word in $GPU_CHECK_STEPS; do [[ $1 == "$word"* ]] && return 0; done
  return 1
}
# run_step NAME SECONDS COMMAND...: the command's output in logs/NAME.log, its exit status
# (124: cut off at its limit) in logs/NAME.rc.
run_step() {
  local name=$1 limit=$2
  shift 2
  selected "$name" || return 0
  ((limit > $(left) - 15)) && limit=$(($(left) - 15))
  if ((limit < 10)); then
    echo "not run: no time left" >"$logs/$name.log"
    echo 125 >"$logs/$name.rc"
    return
  fi
  local began=$SECONDS status
  timeout --kill-after=5 "$limit" "$@" >"$logs/$name.log" 2>&1
  status=$?
  echo $status >"$logs/$name.rc"
  echo "   $name: exit $status after $((SECONDS - began)) s (limit $limit s)" >>"$logs/steps.log"
}
finish() {
  local failed=()
  for status_file in "$logs"/*.rc; do
    [[ -f $status_file && $(cat "$status_file") != 0 ]] && failed+=("$(basename "$status_file" .rc)")
  done
  {
    bash "$root/scripts/gpu_check/summarize.sh" "$logs"
    if ((${#failed[@]})); then echo "RESULT: FAILED steps: ${failed[*]}"; else echo "RESULT: every step passed"; fi
  } | tee "$out/summary.txt"
  cp "$logs/bench_wave_gpu.log" "$out/bench.txt" 2>/dev/null
  tar -C "$work" -czf "$out/logs.tar.gz" logs
  ((${#failed[@]} == 0))
}

# ---- 1. the machine ----------------------------------------------------------------------------
note "machine"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  uname -r
  grep -m1 PRETTY_NAME /etc/os-release
  "$python" --version
  for tool in nvcc mpirun cc c++; do echo "$tool: $(command -v $tool || echo missing)"; done
  nproc
} >"$logs/machine.log" 2>&1
if [[ -z ${GPU_BUNDLE:-} && -f $root/.gpu-bundle/bundle.tar.xz ]]; then
  rm -rf "$bundle" && mkdir -p "$bundle" && tar -C "$bundle" -xJf "$root/.gpu-bundle/bundle.tar.xz"
fi
[[ -d $bundle/site ]] || { echo "no bundle: run scripts/gpu-check-bundle.sh and carry .gpu-bundle" | tee -a "$logs/steps.log"; finish; exit 1; }
if ! ldconfig -p | grep -q libvulkan.so.1; then
  # The device tool's recipe: these packages unpack into / safely; nothing else does.
  for package in "$bundle"/gl/*.deb; do dpkg -x "$package" /; done
  ldconfig
  echo "unpacked the Vulkan loader and glvnd from the bundle" >>"$logs/machine.log"
fi
if [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} ]] &&
   ! grep -qls nvidia /etc/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json 2>/dev/null &&
   [[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  echo "driver: $VK_DRIVER_FILES" >>"$logs/machine.log"
fi

# The packages: this checkout's Python files beside the bundle's extension modules, and the
# carried wheels, first on the path.
site=$work/site
rm -rf "$site" && mkdir -p "$site"
for package in wave_gpu wasmgpu cudecomp; do
  mkdir -p "$site/$package"
  cp "$root/python/$package"/*.py "$site/$package/"
  cp "$bundle/site/$package"/_native*.so "$site/$package/"
done
"$python" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$bundle"/whl/*.whl \
  >>"$logs/machine.log" 2>&1
export PYTHONPATH=$site:$root/tests/python${PYTHONPATH:+:$PYTHONPATH}
export WAVESTACK_REQUIRE_GPU=1 WAVESTACK_SHARED=$bundle/shared WAVESTACK_CACHE_DIR=$work/cache
# The hardware GPU only, unless a dry run on a software adapter asks (GPU_CHECK_ALLOW_SOFTWARE=1).
if [[ ${GPU_CHECK_ALLOW_SOFTWARE:-0} == 1 ]]; then export WAVESTACK_ALLOW_SOFTWARE_GPU=1; else unset WAVESTACK_ALLOW_SOFTWARE_GPU; fi
rm -rf "$WAVESTACK_CACHE_DIR"
if [[ ! -x $(command -v mpirun) && -d $bundle/mpi ]]; then
  # shellcheck source=gpu_check/openmpi_env.sh
  source "$root/scripts/gpu_check/openmpi_env.sh" "$bundle/mpi"
  echo "mpirun: the bundle's Open MPI ($bundle/mpi)" >>"$logs/machine.log"
fi
run_step info 60 bash -c "$python -m wave_gpu info; $python -m wasmgpu info"

# ---- 2. benchmarks, alone on the machine -------------------------------------------------------
note "benchmarks"
run_step bench_wave_gpu 60 "$python" "$root/bench/wave_gpu_vulkan.py"
run_step bench_wasmgpu 75 "$python" "$root/bench/wasmgpu.py" --instances 100000 --repeat 3 --threads 0 \
  --skip 'wasm3,wasmtime-per-call' --max-resident-mib 32768 --wasm-dir "$bundle/wasm" --output "$logs/bench_wasmgpu.json"
# Per core, as the compiled-mode targets are stated: the cpu device on one thread beside wasm3
# and native C (this machine's cores are another microarchitecture than CI's).
run_step bench_wasmgpu_core 60 "$python" "$root/bench/wasmgpu.py" --instances 10000 --repeat 9 --threads 1 \
  --skip '*gpu,wasmtime-per-call,ours-interpreter*' --wasm-dir "$bundle/wasm" --output "$logs/bench_wasmgpu_core.json"

# ---- 3. the tests, side by side on the one GPU ---------------------------------------------------
note "tests (in parallel)"
limit=$(($(left) - 20))
spec_suites=$(ls "$bundle/shared/wasm-spec/core")
shards=12
for execution in interpreter compiled; do
  for ((shard = 0; shard < shards; shard++)); do
    suites=$(echo "$spec_suites" | awk -v n=$shards -v k=$shard 'NR % n == k')
    # shellcheck disable=SC2086 # a list of suite names
    run_step "spec_${execution}_$shard" "$limit" "$python" "$root/tests/wasm_spec/runner.py" --device gpu \
      --execution "$execution" $suites &
  done
done
# Compiled mode's first runs build the pipelines of the units each program reaches: its C and
# AssemblyScript programs run apart.
run_step wasi_testsuite_compiled_c "$limit" "$python" "$root/tests/wasi/testsuite.py" --engine wasmgpu_engine:gpu \
  -k c/ &
run_step wasi_testsuite_compiled_as "$limit" "$python" "$root/tests/wasi/testsuite.py" --engine wasmgpu_engine:gpu \
  -k assemblyscript/ &
run_step wasi_testsuite_interpreter "$limit" "$python" "$root/tests/wasi/testsuite.py" \
  --engine wasmgpu_engine:gpu_interpreter &
run_step cpp_gpu "$limit" bash -c "for program in numerics_tests runtime_tests wasi_device_tests; do
  echo \"== \$program\"; '$bundle/bin/'\$program --gtest_brief=1 --gtest_color=no || status=1; done; exit \${status:-0}" &
(cd "$root/tests/python" &&
  run_step pytest_wave_gpu "$limit" "$python" -m pytest -q -p no:cacheprovider -n 4 test_wave_*.py) &
(cd "$root/tests/python" &&
  run_step pytest_wasmgpu "$limit" "$python" -m pytest -q -p no:cacheprovider -n 4 -k vulkan test_wasm_api_parity.py \
    test_wasm_compiled.py test_wasm_instances.py test_wasm_module.py test_wasm_numeric_wasmtime.py \
    test_wasm_wasi_config.py test_wasm_wasmtime.py) &
run_step cudecomp "$limit" bash "$root/scripts/gpu_check/cudecomp_tests.sh" "$bundle" "$site" &
wait
note "done"
finish
