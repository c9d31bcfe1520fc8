"""The decoder/validator fuzzer (tests/fuzz/decoder_fuzzer.cpp, libFuzzer with ASan, UBSan
and leak checking) in CI: a bounded run with a fixed seed and one with a random seed that is
printed, each from the spec's .wasm files as seeds, and a replay of every earlier finding
(tests/fixtures/fuzz/decoder). Any crash, sanitizer report, leak, hang, memory blow-up or
exception other than the three typed load errors fails the test; the input is saved under
build/fuzz/artifacts-ci. `scripts/fuzz.sh SECONDS` runs the fuzzers longer."""

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import fuzzers  # noqa: E402

DECODER = fuzzers.FUZZERS["decoder"]
# About a minute of fuzzing in CI, split between the seeds.
SECONDS_PER_SEED = 30
RANDOM_SEED = random.SystemRandom().randrange(1, 2**31)

pytestmark = pytest.mark.skipif(not fuzzers.SPEC_DIR.is_dir(), reason=f"spec data not found at {fuzzers.SPEC_DIR}")


@pytest.fixture(scope="module")
def built():
    """The fuzz build (clang, sanitizers) in build/fuzz."""
    fuzzers.build()
    return DECODER


@pytest.mark.parametrize("seed", [*fuzzers.FIXED_SEEDS, RANDOM_SEED],
                         ids=[*(f"seed{seed}" for seed in fuzzers.FIXED_SEEDS), "random_seed"])
def test_bounded_run_finds_nothing(built, seed, tmp_path, run_log):
    result = fuzzers.run(built, SECONDS_PER_SEED, seed, tmp_path / "corpus", fuzzers.BUILD_DIR / "artifacts-ci")
    run_log(f"decoder_fuzzer, {SECONDS_PER_SEED} s, {result.summary()}")
    assert result.returncode == 0, (f"decoder_fuzzer found a failure with seed {seed} (rerun: "
                                    f"{' '.join(result.command)}):\n{result.output[-6000:]}")
    # It really fuzzed: past the seeds, into mutated inputs.
    seeds = len(list(fuzzers.seed_corpus(built).iterdir()))
    assert (result.stat("number_of_executed_units") or 0) > seeds, result.output[-3000:]


# Each earlier finding replays as its own test (libFuzzer runs a file argument once, with the
# same sanitizers and checks); while nothing was found the list is empty and pytest reports
# the test as skipped, not passed.
@pytest.mark.parametrize("finding", fuzzers.regression_inputs(DECODER), ids=lambda path: path.name)
def test_regression_input_replays_cleanly(built, finding):
    result = fuzzers.replay_one(built, finding)
    assert result.returncode == 0, result.output[-6000:]
    assert "Executed " in result.output, result.output[-3000:]


@pytest.mark.parametrize("finding", fuzzers.regression_inputs(DECODER), ids=lambda path: path.name)
def test_regression_input_verdict_agrees_with_wasmtime(finding):
    """Beyond not crashing: accepted or refused as wasmtime (configured to the profile)
    decides, through the Python binding's decode and validation."""
    from test_wasm_wasmtime import engine, our_verdict, wasmtime_accepts

    data = finding.read_bytes()
    ours = our_verdict(data)
    assert wasmtime_accepts(engine(), data) == (ours is None), ours
