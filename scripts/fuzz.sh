#!/usr/bin/env bash
# Runs the project's fuzzers for longer than CI does: scripts/fuzz.sh SECONDS (default 600).
# Each fuzzer section below gets the whole SECONDS; findings are saved under
# tests/fixtures/fuzz/<fuzzer>/ as regression inputs (replayed by the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
python=${PYTHON:-.venv/bin/python}
status=0

# --- differential fuzzers (wasmgpu vs wasmtime: tests/fuzz/differential.py, tests/fuzz/wasi_fs.py) ---
"$python" tests/fuzz/differential.py --seconds "$seconds" --findings tests/fixtures/fuzz/differential || status=1
"$python" tests/fuzz/wasi_fs.py --seconds "$seconds" --findings tests/fixtures/fuzz/wasi || status=1
# --- end of differential fuzzers ---

exit $status
