#!/usr/bin/env bash
# Runs the fuzzers longer than CI does (tests/python/test_fuzz_*.py run each for about a
# minute): SECONDS each (default 600), with a random seed that is printed. Usage:
# scripts/fuzz.sh [SECONDS]. Exits non-zero when any fuzzer found something.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
python=.venv/bin/python
[[ -x $python ]] || python=python3
status=0

# --- decoder/validator: tests/fuzz/decoder_fuzzer.cpp (libFuzzer, ASan+UBSan+leaks). The
# corpus stays in build/fuzz/corpus-decoder between runs; a finding's input is saved in
# build/fuzz/artifacts-decoder (add it to tests/fixtures/fuzz/decoder with its fix).
"$python" tests/fuzz/fuzzers.py run decoder --seconds "$seconds" || status=1
# --- end decoder/validator ---

# --- differential: tests/fuzz/differential.py (wasm-tools smith modules, cpu device in both
# modes vs wasmtime) and tests/fuzz/wasi_fs.py (WASI file-system call sequences vs wasmtime's
# WASI). Findings are saved in tests/fixtures/fuzz/differential and tests/fixtures/fuzz/wasi.
"$python" tests/fuzz/differential.py --seconds "$seconds" --findings tests/fixtures/fuzz/differential || status=1
"$python" tests/fuzz/wasi_fs.py --seconds "$seconds" --findings tests/fixtures/fuzz/wasi || status=1
# --- end differential ---

exit "$status"
