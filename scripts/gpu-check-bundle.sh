#!/usr/bin/env bash
# Run HERE (Debian 12 with the project's build prerequisites and network), before a session on
# a GPU machine that has no network, no Vulkan loader, no clang and no MPI: builds everything
# scripts/gpu-check.sh runs, for that machine's Python, into .gpu-bundle/bundle.tar.xz (git
# ignores the folder; xz brings it under the device tool's 64 MiB). Carry `.gpu-bundle` there.
# The GPU machine's time is short, so nothing is compiled there. The archive holds:
#
#   site/<package>/_native*.so   the three extension modules, for GPU_PYTHON (default 3.12),
#                                cudecomp's being its GPU variant (CUDA arrays)
#   bin/                         the C++ test programs that use a GPU
#   gl/*.deb                     the Vulkan loader and glvnd (the NVIDIA ICD loads libGLX)
#   whl/                         wasmtime (the wasmgpu tests' reference) and mpi4py built
#                                against the Open MPI below
#   mpi/                         a relocatable copy of this machine's Open MPI runtime
#   shared/                      the conformance data the runners read (../shared is not carried)
#   wasm/                        bench/wasmgpu.py's workload modules (no clang there)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bundle=$root/build/gpu-bundle/stage
python_version=${GPU_PYTHON:-3.12}
python=
for candidate in "$(command -v "python$python_version")" /root/.pyenv/versions/"$python_version".*/bin/python; do
  # pyenv's shims exist for versions that are not selected, and then fail
  [[ -x $candidate ]] && "$candidate" -c "" 2>/dev/null && { python=$candidate; break; }
done
[[ -n $python ]] || { echo "gpu-check-bundle: no Python $python_version here (GPU_PYTHON)" >&2; exit 1; }
exclude=$(git rev-parse --git-path info/exclude)
grep -qx '/.gpu-bundle/' "$exclude" 2>/dev/null || echo '/.gpu-bundle/' >>"$exclude"

venv=$root/.venv-gpu-bundle
[[ -x $venv/bin/python ]] || "$python" -m venv "$venv"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -1)
"$venv/bin/pip" install -q "nanobind==$(.venv/bin/python -c 'import nanobind; print(nanobind.__version__)')" numpy

build=$root/build/gpu-bundle
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$venv/bin/python" \
  -DWAVESTACK_BUILD_TESTS=ON -DWAVESTACK_CUDA=ON -DWAVESTACK_CUDECOMP_PYTHON_GPU=ON -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
programs=(numerics_tests runtime_tests wasi_device_tests decomp_cuda_device_tests decomp_cuda_host_tests
          decomp_gpu_logic_tests decomp_deferred_mover_tests)
ninja -C "$build" wave_gpu_native wasmgpu_native cudecomp_native "${programs[@]}"

rm -rf "$bundle"
mkdir -p "$bundle/site" "$bundle/bin" "$bundle/gl" "$bundle/whl" "$bundle/shared/wasm-spec"
for package in wave_gpu wasmgpu cudecomp; do
  mkdir -p "$bundle/site/$package"
  cp "$build"/src/bindings/$package/_native*.so "$bundle/site/$package/"
done
for program in "${programs[@]}"; do cp "$build/tests/cpp/$program" "$bundle/bin/"; done
strip "$bundle"/bin/* "$bundle"/site/*/_native*.so

# README of the device tool: these seven, unpacked into / there, give the loader and glvnd.
(cd "$bundle/gl" && apt-get -oAPT::Architecture=amd64 -oAPT::Architectures=amd64 download \
  libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
# wasmtime is pure ctypes (one wheel for every Python); mpi4py is built here against Open MPI
# (a few minutes, so kept in build/ for the next bundle).
wheels=$root/build/gpu-bundle/wheels
mkdir -p "$wheels"
compgen -G "$wheels/wasmtime-*.whl" >/dev/null ||
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$python_version" --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux1_x86_64 -d "$wheels" \
    "wasmtime==$(.venv/bin/python -m pip show wasmtime | sed -n 's/^Version: //p')"
compgen -G "$wheels/mpi4py-*.whl" >/dev/null ||
  "$venv/bin/pip" wheel -q --no-deps --no-binary mpi4py -w "$wheels" "mpi4py==$(.venv/bin/python -c 'import mpi4py; print(mpi4py.__version__)')"
# pywasm3 (the interpreter bench/wasmgpu.py compares with) has no wheels: built here, kept too.
compgen -G "$wheels/pywasm3-*.whl" >/dev/null ||
  "$venv/bin/pip" wheel -q --no-deps -w "$wheels" "pywasm3==$(.venv/bin/python -m pip show pywasm3 | sed -n 's/^Version: //p')"
cp "$wheels"/*.whl "$bundle/whl/"
bash scripts/gpu_check/bundle_openmpi.sh "$bundle/mpi"

# The runners read $WAVESTACK_SHARED: the core suites' JSON and binaries (not the .wat text,
# which the runner counts as not applicable without reading), and the WASI test suite.
shared=$(cd "$root/.." && pwd)/shared
(cd "$shared/wasm-spec" && tar -cf - --exclude='*.wat' core) | tar -xf - -C "$bundle/shared/wasm-spec"
cp -r "$shared/wasi-testsuite" "$bundle/shared/"
.venv/bin/python bench/wasmgpu.py --instances 1 --repeat 1 --skip '*' --wasm-dir "$bundle/wasm" \
  --output "$build/bench-modules.json" >/dev/null
mkdir -p "$root/.gpu-bundle"
tar -C "$bundle" -cf - . | xz -T0 -6 >"$root/.gpu-bundle/bundle.tar.xz"
du -sh "$bundle" "$root/.gpu-bundle/bundle.tar.xz"
