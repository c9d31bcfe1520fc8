"""CI's bounded runs of the differential fuzzers (tests/fuzz/differential.py, wasi_fs.py) and
the replay of every regression input they found (tests/fixtures/fuzz/differential, .../wasi).

Each bounded run takes WAVESTACK_FUZZ_SECONDS (default 60) seconds: the fixed seed list first,
then consecutive seeds from a random base seed that the run prints (rerun a failure with
``python tests/fuzz/differential.py --seed BASE`` or ``--case SEED``). Any difference from
wasmtime, hang or crash fails the test. `scripts/fuzz.sh SECONDS` runs them longer.
"""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

pytest.importorskip("wasmtime", reason="the wasmtime package is the oracle (pip install wasmtime)")

import differential  # noqa: E402
import wasi_fs  # noqa: E402

SECONDS = float(os.environ.get("WAVESTACK_FUZZ_SECONDS", "60"))


def _fail_on(findings, what):
    lines = [f"seed {seed}: " + "\n".join(found) for seed, found in findings]
    assert not findings, f"{what} found {len(findings)} differences from wasmtime:\n" + "\n\n".join(lines)[:20000]


def test_differential_fuzzer_bounded_run(run_log):
    totals = differential.fuzz(SECONDS, log=run_log)  # what ran (seeds, counts, rate) shows in CI's log
    _fail_on(totals["findings"], "the differential fuzzer")
    # A run that compared nothing would prove nothing (a broken smith configuration, say).
    assert totals["valid"] > 0 and totals["calls"] > 0, totals


def test_wasi_fs_fuzzer_bounded_run(run_log):
    totals = wasi_fs.fuzz(SECONDS, log=run_log)
    _fail_on(totals["findings"], "the WASI file-system fuzzer")
    assert totals["cases"] > 0 and totals["calls"] > 0, totals


def test_differential_regression_inputs_replay():
    inputs = sorted(differential.FINDINGS_DIR.glob("*.wasm"))
    assert inputs, f"no regression inputs in {differential.FINDINGS_DIR}"
    failures = differential.replay(differential.FINDINGS_DIR)
    assert not failures, failures


def test_wasi_regression_inputs_replay():
    inputs = sorted(wasi_fs.FINDINGS_DIR.glob("*.txt"))
    assert inputs, f"no regression inputs in {wasi_fs.FINDINGS_DIR}"
    failures = wasi_fs.replay(wasi_fs.FINDINGS_DIR)
    assert not failures, failures
