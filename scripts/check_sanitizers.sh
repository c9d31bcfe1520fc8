#!/usr/bin/env bash
# Runs a bounded sample of the wasm tests on the cpu device under AddressSanitizer and
# UndefinedBehaviorSanitizer: wasmgpu's extension module (the interpreter, the WASI host, the
# instance loops) built once more with the sanitizers (WAVESTACK_SANITIZE, in BUILD_DIR/sanitize)
# and loaded in place of the editable install's, and the generated C++ units of compiled mode
# built with them too (WAVESTACK_UNIT_CXXFLAGS): spec suites in compiled mode and in the
# interpreter, the wasi-testsuite, and the differential fuzzer's regression inputs. The
# sanitizer runtimes are preloaded, since the Python executable is not instrumented and ASan
# must come first in the process. Exits non-zero when a test fails or a sanitizer reports.
# Usage: scripts/check_sanitizers.sh [BUILD_DIR]  (default build/py; `make build` first)
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv/bin/python
[[ -x $python ]] || python=python3
log_dir=${1:-build/py}/sanitize
mkdir -p "$log_dir"
log_dir=$(cd "$log_dir" && pwd)

# GCC's runtimes, matching the compiler the units are built with. The units are built by the
# host compiler (the in-process one, the default tier, cannot add the sanitizers to their code).
export WAVESTACK_CXX=g++
export WAVESTACK_WASM_CPU_TIERS=host
asan=$(g++ -print-file-name=libasan.so)
ubsan=$(g++ -print-file-name=libubsan.so)
for runtime in "$asan" "$ubsan"; do
  # -print-file-name echoes the bare name when the library is not installed.
  [[ $runtime == /* && -e $runtime ]] || { echo "sanitizers: $runtime not found (install GCC's libasan/libubsan)" >&2; exit 1; }
done

# -O0 (after the unit's own -O1, so it wins): units build 2.3 times faster under ASan
# (address + traps: 10 s instead of 23 s), and no access is optimised away before ASan sees it.
export WAVESTACK_UNIT_CXXFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O0"
# A cache of its own: instrumented units are keyed apart anyway (the flags are in the key), and
# a fresh directory lets the check below see that this run built instrumented units.
export WAVESTACK_CACHE_DIR="$log_dir/cache"
rm -rf "$WAVESTACK_CACHE_DIR"
# CPython leaks by design at exit, so no leak check; every report ends the process.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
preload="$asan $ubsan"

# Spec suites: memory access and bounds, bulk memory, tables and indirect calls, traps,
# conversions and float bits, deep recursion (call stack exhaustion). Each module builds its
# own units (1 to 2 s each under ASan here), so suites of many modules (memory_copy: 150 s
# with the others) stay out.
spec_suites=(address memory memory_fill bulk call_indirect br_table conversions f32_bitwise traps call)
# The wasi-testsuite in the interpreter (compiled mode builds about 6 units per program: 4.5
# minutes for the 12 AssemblyScript ones), and one program in compiled mode (fd_write).
wasi_compiled=assemblyscript/fd_write-to-stdout

status=0
# wasmgpu's extension module with the sanitizers: a build directory of its own, only the targets
# that module needs (116 steps: 85 s on the loaded 2-core machine, at -O0).
build_start=$SECONDS
python_path=$("$python" -c 'import sys; print(sys.executable)')
cmake -S . -B "$log_dir/build" -G Ninja -DWAVESTACK_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DWAVESTACK_CUDA=OFF \
  -DPython_EXECUTABLE="$python_path" >"$log_dir/configure.log" 2>&1 || { cat "$log_dir/configure.log" >&2; exit 1; }
cmake --build "$log_dir/build" --target wasmgpu_native >"$log_dir/build.log" 2>&1 || { tail -n 40 "$log_dir/build.log" >&2; exit 1; }
native=("$log_dir"/build/src/bindings/wasmgpu/_native*.so)
# scripts/sanitized_native/sitecustomize.py loads it for every Python process below.
export WAVESTACK_SANITIZED_NATIVE=${native[0]}
export PYTHONPATH="$PWD/scripts/sanitized_native${PYTHONPATH:+:$PYTHONPATH}"
loaded=$(LD_PRELOAD="$preload" "$python" -c 'import wasmgpu._native as native; print(native.__file__)')
if [[ $loaded != "$WAVESTACK_SANITIZED_NATIVE" ]]; then
  echo "sanitizers: Python loaded $loaded, not the sanitized $WAVESTACK_SANITIZED_NATIVE" >&2
  exit 1
fi
echo "sanitizers: instrumented extension built in $((SECONDS - build_start)) s"

step() {
  local name=$1
  shift
  local log="$log_dir/$name.log" start=$SECONDS code=0
  echo "sanitizers: $name: $*"
  LD_PRELOAD="$preload" "$@" >"$log" 2>&1 || code=$?
  # A report that some layer caught and turned into an ordinary failure still fails the step.
  if grep -qE 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$log"; then
    echo "sanitizers: $name: SANITIZER REPORT" >&2
    grep -m1 -A30 -E 'ERROR: AddressSanitizer|runtime error:' "$log" >&2
    ((code != 0)) || code=1
  fi
  tail -n 3 "$log"
  # A step that ran nothing proved nothing (a filter that matches no test, say).
  if grep -qE '^(cpu|cpu_interpreter): 0 passed' "$log"; then
    echo "sanitizers: $name ran no test" >&2
    ((code != 0)) || code=1
  fi
  if ((code != 0)); then
    echo "sanitizers: $name FAILED (exit $code, log $log)" >&2
    status=1
  fi
  echo "sanitizers: $name took $((SECONDS - start)) s"
}

step spec-compiled "$python" tests/wasm_spec/runner.py --execution compiled "${spec_suites[@]}"
step spec-interpreter "$python" tests/wasm_spec/runner.py --execution interpreter "${spec_suites[@]}"
step wasi-interpreter "$python" tests/wasi/testsuite.py --engine wasmgpu_engine:cpu_interpreter
step wasi-compiled "$python" tests/wasi/testsuite.py --engine wasmgpu_engine:cpu -k "$wasi_compiled"
step differential-replay "$python" tests/fuzz/differential.py --replay tests/fixtures/fuzz/differential
# Lane groups (the cpu device's grouped loops), the lanes parting, trapping and out of bounds.
step lane-groups "$python" -m pytest -q -p no:cacheprovider tests/python/test_wasm_lane_groups.py -k own_outcome

# The check is only worth something if the units really were instrumented.
units=("$WAVESTACK_CACHE_DIR"/cpu-units/*.so)
if [[ ! -e ${units[0]} ]]; then
  echo "sanitizers: no compiled unit was built, so compiled mode did not run" >&2
  status=1
elif ! readelf -d "${units[0]}" | grep -q 'libasan'; then
  echo "sanitizers: ${units[0]} is not linked against libasan: WAVESTACK_UNIT_CXXFLAGS was ignored" >&2
  status=1
else
  echo "sanitizers: ${#units[@]} instrumented units built"
fi
echo "sanitizers: total $((SECONDS - build_start)) s, $([[ $status == 0 ]] && echo passed || echo FAILED)"
exit "$status"
