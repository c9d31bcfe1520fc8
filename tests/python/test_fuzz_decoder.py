"""The decoder/validator fuzzer (tests/fuzz/decoder_fuzzer.cpp, libFuzzer with ASan, UBSan
and leak checking) in CI: a bounded run with a fixed seed and one with a random seed that is
printed, each from the spec's .wasm files as seeds, and a replay of every earlier finding
(tests/fixtures/fuzz/decoder). Any crash, sanitizer report, leak, hang, memory blow-up or
exception other than the three typed load errors fails the test; the input is saved under
build/fuzz/artifacts-ci. `scripts/fuzz.sh SECONDS` runs the fuzzers longer."""

import random
import subprocess
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


CALLER_WITH_LARGE_PEAK = """
import sys
sys.path.insert(0, {fuzz_dir!r})
from pathlib import Path
import fuzzers
fuzzers.RSS_LIMIT_MB = 800
ballast = bytearray(1200 * 2**20)
ballast[::4096] = b"\\x01" * len(ballast[::4096])  # touched, so it counts in this process's peak RSS
result = fuzzers.run(fuzzers.FUZZERS["decoder"], 2, 1, Path({corpus!r}), Path({artifacts!r}))
print(result.returncode)
print(result.output[-3000:])
"""


def test_memory_limit_judges_the_fuzzer_not_its_caller(built, tmp_path):
    """Linux carries a process's peak RSS across fork and exec, and libFuzzer's -rss_limit_mb
    reads that peak: a fuzzer started straight from a pytest worker that had grown past the
    limit reported out-of-memory in its first second. Here a caller with a 1.2 GB peak starts
    the fuzzer under an 800 MB limit; the run must succeed."""
    script = CALLER_WITH_LARGE_PEAK.format(fuzz_dir=str(fuzzers.SOURCE_DIR), corpus=str(tmp_path / "corpus"),
                                           artifacts=str(tmp_path / "artifacts"))
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    returncode, _, output = completed.stdout.partition("\n")
    assert returncode == "0", output
