#!/usr/bin/env bash
# Builds cudecomp without CUDA (WAVESTACK_CUDA=OFF: device_dispatch_none.cpp instead of the CUDA
# library) in a build directory of its own and runs its C API, rank-agreement, upstream-facts,
# header and pre-0.7 ABI tests under mpiexec, then upstream cuDecomp 0.7.0's own api and halo
# suites linked against it (tests/cudecomp_upstream; scripts/check_decomp_upstream.sh runs them,
# and the rest of upstream's tests, against the main build). CI's main build always has the CUDA
# library, so without this the CPU-only build's side of device_dispatch.hpp (cudecompMalloc, cudecompMallocHost, cudecompFree, the autotuner
# on the host) would never run there. Only the targets those tests need are built.
# Usage: scripts/check_decomp_cpu_only.sh [BUILD_DIR]  (default build/py; the CPU-only build
# goes to BUILD_DIR/cpu-only)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build/py}/cpu-only
werror=$([[ -n ${CI:-} ]] && echo ON || echo OFF)
cmake -S . -B "$build_dir" -G Ninja -DWAVESTACK_CUDA=OFF -DWAVESTACK_BUILD_TESTS=ON -DWAVESTACK_BUILD_PYTHON=OFF \
  -DWAVESTACK_WERROR="$werror" >"$build_dir.configure.log" 2>&1 || { cat "$build_dir.configure.log" >&2; exit 1; }
cmake --build "$build_dir" --target decomp_c_api_tests decomp_rank_agreement_tests decomp_upstream_facts_tests \
  decomp_legacy_abi_test decomp_header_abi_test cudecomp_upstream_api_tests cudecomp_upstream_halo_tests
if grep -q 'device_dispatch\.cpp' "$build_dir/compile_commands.json"; then
  echo "decomp-cpu-only: $build_dir compiled the CUDA dispatch; expected device_dispatch_none.cpp" >&2
  exit 1
fi
ctest --test-dir "$build_dir" -R '^Decomp(CApi|RankAgreement|UpstreamFacts|LegacyAbi|HeaderAbi)\.' --output-on-failure
"${PYTHON:-.venv/bin/python}" tests/cudecomp_upstream/run_upstream_suites.py --build-dir "$build_dir" --gtest-only \
  --cpu-only-library
echo "decomp-cpu-only: the C API, rank-agreement, upstream-facts, header and pre-0.7 ABI tests and upstream's api" \
  "and halo suites pass without the CUDA library"
