"""Tests of the WASI test harness itself: the oracles, the fixture programs and the
wasi-testsuite runner, before wasmgpu plugs into them.

Each fixture's output is checked against what the program was asked to do on each oracle
separately (so wasmtime's checks still run where Node is missing), and the two oracles must
also agree exactly on stdout, stderr, exit code and files (a differential test of two
independent WASI implementations, needing Node).
"""

from __future__ import annotations

import math
import re
import struct
import time

import pytest
import wasmtime

import oracles
import testsuite
from wasi_support import fixture_names, node_or_skip

# --- helpers -------------------------------------------------------------------------------


def fnv1a(data: bytes) -> int:
    value = 2166136261
    for byte in data:
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return value


# --- fixture programs ------------------------------------------------------------------------


@pytest.mark.parametrize("stdin", [b"", b"hello\nworld\n", bytes(range(256)) * 40], ids=["empty", "text", "binary"])
def test_stdio(engine, fixture, stdin):
    result = engine(fixture("stdio"), ["stdio"], {}, stdin)
    expected_stdout = (
        b"stdout line 1\nstdout line 2\nstdout line 3\n"
        b"no newline at the end of this stdout text\n"
        b"binary:" + bytes(range(256)) + b"\n"
        + f"stdin: {len(stdin)} bytes, fnv1a {fnv1a(stdin):08x}\n".encode()
        + stdin
    )
    assert result.exit_code == 0
    assert result.stdout == expected_stdout
    assert result.stderr == b"stderr line 1\nstderr line 2\nstderr line 3\nstderr done\n"


@pytest.mark.parametrize(
    "args, env",
    [
        (["args_env"], {}),
        (["prog", "one", "two words", "", "quote\"d", "ünïcödé ✓", "--flag=value"], {"A": "1"}),
        (["x"] * 50, {"EMPTY": "", "WITH_EQUALS": "a=b=c", "PATH": "/bin:/usr/bin", "UNICODE": "ü"}),
    ],
    ids=["argv0-only", "odd-args", "many-args-and-env"],
)
def test_args_env(engine, fixture, args, env):
    result = engine(fixture("args_env"), args, env)
    lines = [f"argc={len(args)}"] + [f"argv[{i}]={arg}" for i, arg in enumerate(args)]
    lines += [f"env[{i}]={key}={value}" for i, (key, value) in enumerate(env.items())]
    lines += [f"envc={len(env)}"]
    assert result.exit_code == 0
    assert result.stdout.decode() == "\n".join(lines) + "\n"


def test_malloc_growth(engine, fixture):
    result = engine(fixture("malloc_growth"), ["malloc_growth"])
    lines = result.stdout.decode().splitlines()
    assert result.exit_code == 0, result.stdout
    assert lines[0].startswith("allocated 96 pieces, ")
    assert "memory grew: yes" in lines
    assert "verify after allocation: 0 bad" in lines
    assert "verify after reallocation: 0 bad" in lines
    assert lines[-2].startswith("large block 4194304 bytes") and lines[-2].endswith("verify ok")
    pages = re.fullmatch(r"pages: start (\d+), after allocation (\d+), end (\d+)", lines[-1])
    start, grown, end = map(int, pages.groups())
    # Several MiB in pieces from a few pages: memory.grow must have run, to over 100 pages.
    assert start < 16 and 100 < grown <= end


FILE_WORKOUT_STDOUT = """\
listing 1:
  file b.bin 4096
  file c.txt 600
  dir  empty 0
  file log.txt 13
  dir  sub 0
    file d.txt 5
size after truncate 100, read at 12: 5 "alpha"
pread at 96: 4 "alph"
stat of unlinked file: -1, ENOENT
appended log size 13
listing 2:
  file c.txt 100
  file log.txt 13
  dir  sub 0
    file d.txt 5
"""


@pytest.mark.parametrize("preopen", [".", "/"])
def test_file_workout(engine, fixture, preopen):
    result = engine(fixture("file_workout"), ["file_workout"], {}, b"", {"keep.txt": b"untouched"}, [preopen])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.decode() == FILE_WORKOUT_STDOUT
    assert result.stderr == b""
    assert result.files == {
        "keep.txt": b"untouched",
        "work/": b"",
        "work/c.txt": (b"alpha\n" * 100)[:100],
        "work/log.txt": b"first\nsecond\n",
        "work/sub/": b"",
        "work/sub/d.txt": b"delta",
    }


def total_order_key(value: float) -> int:
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return ~bits & 0xFFFFFFFFFFFFFFFF if bits >> 63 else bits | 1 << 63


# The printf conversions of float_printf.c, in order; Python's % formatting is correctly
# rounded like musl's printf, so every field must match exactly (NaN's sign aside, below).
FLOAT_FORMATS = ["%f", "%e", "%g", "%.17g", "%.3e", "%12.4f", "%-10.2g", "%+.0f", "%.10g", "%E", "%G"]


def test_float_printf(engine, fixture):
    result = engine(fixture("float_printf"), ["float_printf"])
    assert result.exit_code == 0
    header, *lines = result.stdout.decode().splitlines()
    assert header == f"count {len(lines)}" and len(lines) >= 300
    values = []
    for line in lines:
        bits_hex, *fields = line.split("|")
        value = struct.unpack("<d", bytes.fromhex(bits_hex)[::-1])[0]
        values.append(value)
        expected = [spec % value for spec in FLOAT_FORMATS]
        if math.isnan(value) and math.copysign(1.0, value) < 0:
            # C prints a negative NaN as "-nan"; Python never shows NaN's sign.
            expected = [text.replace("nan", "-nan").replace("NAN", "-NAN") for text in expected]
        assert fields == expected, f"value {value!r} (bits {bits_hex})"
    # qsort ordered them by IEEE 754 totalOrder: -0 before +0, NaN last.
    assert [total_order_key(v) for v in values] == sorted(total_order_key(v) for v in values)
    texts = {line.split("|")[4] for line in lines}
    assert {"-0", "0", "4.9406564584124654e-324", "-4.9406564584124654e-324", "inf", "-inf", "nan"} <= texts
    assert sum(1 for v in values if v != 0 and abs(v) < 2.2250738585072014e-308) >= 30  # many subnormals


@pytest.mark.parametrize("how", ["exit", "return", "_Exit"])
@pytest.mark.parametrize("code", [0, 1, 3, 42, 125])
def test_exit_code(engine, fixture, code, how):
    result = engine(fixture("exit_code"), ["exit_code", str(code), how])
    assert result.exit_code == code and result.trap is None
    # _Exit skips stdio's flush: the buffered tail (no newline) of stdout is lost.
    tail = b"" if how == "_Exit" else b"buffered tail"
    assert result.stdout == f"exiting with {code} via {how}\n".encode() + tail
    assert result.stderr == b"stderr before exit\n"


def test_trap_is_not_an_exit(fixture, engine):
    result = engine(fixture("exit_code"), ["exit_code", "7", "trap"])
    assert result.exit_code == oracles.TRAP_EXIT_CODE
    assert "unreachable" in result.trap
    # The complete line was written before the trap; the buffered tail dies with the instance.
    assert result.stdout == b"exiting with 7 via trap\n"


def test_exit_codes_from_126_differ_between_oracles(fixture):
    """A documented divergence, kept visible: WASI allows any u32, wasmtime only [0, 126)."""
    node_or_skip()
    module = fixture("exit_code")
    for code, unsigned in [(126, 126), (255, 255), (-1, 0xFFFFFFFF)]:
        on_wasmtime = oracles.run_wasmtime(module, ["exit_code", str(code)])
        assert on_wasmtime.exit_code == oracles.TRAP_EXIT_CODE and "outside of [0..126)" in on_wasmtime.trap
        on_node = oracles.run_node(module, ["exit_code", str(code)])
        assert (on_node.exit_code, on_node.trap) == (unsigned, None)


def test_embedded_input(engine, fixture):
    numbers = [1.25, 2.5, -7.125, 1e-3, 123456.789, 0.1, 0.2, 0.3]
    text = "".join(f"{n!r}\n" for n in numbers) + "\nnot a number\n"
    files = {"data/input.txt": text.encode()}
    args = ["embedded_input", "data/input.txt", "out/result.txt"]
    result = engine(fixture("embedded_input"), args, {}, b"", {**files, "out/": b""})
    total = 0.0
    for n in numbers:
        total += n
    summary = (
        f"count={len(numbers)}\nsum={total:.17g}\nmin={min(numbers):.17g}\nmax={max(numbers):.17g}\n"
        f"mean={total / len(numbers):.17g}\n"
    )
    assert result.exit_code == 0, result.stderr
    assert result.files == {**files, "data/": b"", "out/": b"", "out/result.txt": summary.encode()}
    assert result.stdout.decode() == "read data/input.txt, wrote out/result.txt\n" + summary


def test_embedded_input_default_output_and_missing_input(engine, fixture):
    result = engine(fixture("embedded_input"), ["embedded_input", "in.txt"], {}, b"", {"in.txt": b"4\n"})
    assert result.files["result.txt"] == b"count=1\nsum=4\nmin=4\nmax=4\nmean=4\n"
    missing = engine(fixture("embedded_input"), ["embedded_input", "absent.txt"])
    assert missing.exit_code == 1
    assert missing.stderr == b"cannot open absent.txt: No such file or directory\n"
    assert missing.files == {}


def test_clocks_and_random(fixture, engine):
    """Not deterministic, so not differential: properties of each oracle's answers."""
    before = time.time_ns()
    result = engine(fixture("clocks_random"), ["clocks_random"])
    after = time.time_ns()
    assert result.exit_code == 0
    fields = dict(line.split("=", 1) for line in result.stdout.decode().splitlines())
    for clock in (0, 1):  # realtime, monotonic: required by every WASI host
        assert fields[f"clock{clock}.res_status"] == "0" and int(fields[f"clock{clock}.res"]) > 0
        assert fields[f"clock{clock}.time_status"] == "0,0"
        first, second = (int(t) for t in fields[f"clock{clock}.time"].split(","))
        assert 0 < first <= second
    realtime = int(fields["clock0.time"].split(",")[0])
    assert before - 10**9 <= realtime <= after + 10**9  # the oracles read the host clock
    # The CPU-time clocks are optional: wasmtime answers BADF (8), Node gives values.
    for clock in (2, 3):
        assert fields[f"clock{clock}.res_status"] in ("0", "8", "28", "58")
    assert fields["random.status"] == "0,0" and fields["random.zero_length_status"] == "0"
    assert fields["random.a"] != fields["random.b"] and len(fields["random.a"]) == 64
    assert fields["random.a"] != "0" * 64


# Differential: one run of each fixture (several for the ones with options) under both
# oracles must agree on everything, including what the content tests above leave open
# (malloc's page counts, every byte of the files left behind).
DIFFERENTIAL_RUNS = {
    "stdio": ("stdio", ["stdio"], {}, bytes(range(256)) * 3, {}, ["."]),
    "args_env": ("args_env", ["a", "b c", ""], {"K": "V", "EMPTY": ""}, b"", {}, ["."]),
    "malloc_growth": ("malloc_growth", ["malloc_growth"], {}, b"", {}, ["."]),
    "file_workout": ("file_workout", ["file_workout"], {}, b"", {"keep/": b""}, ["."]),
    "file_workout-root": ("file_workout", ["file_workout"], {}, b"", {}, ["/"]),
    "float_printf": ("float_printf", ["float_printf"], {}, b"", {}, ["."]),
    "exit_code": ("exit_code", ["exit_code", "9"], {}, b"", {}, ["."]),
    "exit_code-trap": ("exit_code", ["exit_code", "9", "trap"], {}, b"", {}, ["."]),
    "embedded_input": ("embedded_input", ["e", "in/n.txt", "in/o.txt"], {}, b"", {"in/n.txt": b"1\n2e9\n-0\n"}, ["."]),
    "embedded_input-missing": ("embedded_input", ["e", "nope"], {}, b"", {}, []),
    "sha256sum": ("sha256sum", ["sha256sum", "a.bin", "missing", "-"], {}, b"from stdin\n",
                  {"a.bin": bytes(range(256)) * 3}, ["."]),
}


@pytest.mark.parametrize("run", sorted(DIFFERENTIAL_RUNS))
def test_oracles_agree(fixture, run):
    node_or_skip()
    name, *arguments = DIFFERENTIAL_RUNS[run]
    module = fixture(name)
    on_wasmtime = oracles.run_wasmtime(module, *arguments)
    on_node = oracles.run_node(module, *arguments)
    assert on_node.exit_code == on_wasmtime.exit_code
    assert (on_node.trap is None) == (on_wasmtime.trap is None)  # trap messages differ by engine
    assert on_node.stdout == on_wasmtime.stdout
    assert on_node.stderr == on_wasmtime.stderr
    assert on_node.files == on_wasmtime.files
    assert on_node.symlinks == on_wasmtime.symlinks


def test_every_deterministic_fixture_is_compared():
    compared = {name for name, *_ in DIFFERENTIAL_RUNS.values()}
    # clocks_random is the one nondeterministic program; worker_reactor and readme_worker_reactor
    # are reactors (no _start), driven by test_wasmgpu_wasi.py's run of the seed's WASI example
    # and test_wasm_readme_example.py's run of the README's.
    assert compared == set(fixture_names()) - {"clocks_random", "worker_reactor", "readme_worker_reactor"}


# --- the oracles' own behaviour ----------------------------------------------------------------


def wat_command(body: str) -> bytes:
    return wasmtime.wat2wasm(
        '(module (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))'
        f' (memory (export "memory") 1) (func (export "_start") {body}))'
    )


def test_proc_exit_from_a_minimal_module(engine):
    # The check wasi-testsuite's doc/adapters.md gives for an adapter's exit code.
    result = engine(wat_command("(call $exit (i32.const 13))"), ["exit13"])
    assert (result.exit_code, result.trap, result.stdout) == (13, None, b"")


def test_start_returning_is_exit_zero(engine):
    assert engine(wat_command("nop"), ["nop"]).exit_code == 0


def test_timeout_interrupts_an_endless_loop(engine):
    started = time.monotonic()
    result = engine(wat_command("(loop (br 0))"), ["loop"], timeout=1.0)
    assert result.exit_code == oracles.TRAP_EXIT_CODE and result.trap.startswith("timeout")
    assert time.monotonic() - started < 30


def test_embedded_files_round_trip(engine):
    files = {"a.txt": b"A", "d/": b"", "e/f/g.bin": bytes(range(10))}
    result = engine(wat_command("nop"), ["nop"], {}, b"", files, ["."])
    assert result.files == {"a.txt": b"A", "d/": b"", "e/": b"", "e/f/": b"", "e/f/g.bin": bytes(range(10))}


@pytest.mark.parametrize("path", ["/abs", "../up", "a/../b", "a//b", "./a", ""])
def test_unsafe_embedded_paths_are_rejected(path, tmp_path):
    with pytest.raises(ValueError):
        oracles.materialize({path: b"x"}, tmp_path)


def test_bad_arguments_are_rejected():
    module = wat_command("nop")
    with pytest.raises(TypeError):
        oracles.run_wasmtime(module, "not-a-list")
    with pytest.raises(ValueError):
        oracles.run_wasmtime(module, ["x"], {"A=B": "c"})
    with pytest.raises(TypeError):
        oracles.run_wasmtime(module, ["x"], {}, "text, not bytes")


# --- the wasi-testsuite runner -------------------------------------------------------------------

# Tests that legitimately fail on an oracle, with the reason. Anything else must pass, and a
# listed test that starts passing fails too (so the list cannot go stale).
KNOWN_FAILURES = {
    "wasmtime": {},
    "node": {
        # uvwasi (node:wasi) implements no sockets: sock_shutdown answers ENOTSUP (58) for
        # every descriptor, where the tests expect EBADF for a closed one and ENOTSOCK for a
        # file (wasmtime gives both).
        "c/sock_shutdown-invalid_fd": "uvwasi sock_shutdown returns ENOTSUP instead of EBADF",
        "c/sock_shutdown-not_sock": "uvwasi sock_shutdown returns ENOTSUP instead of ENOTSOCK",
    },
}

CASES = testsuite.load_cases() if testsuite.testsuite_dir().is_dir() else []


def suite_or_skip():
    if not CASES:
        pytest.skip(f"wasi-testsuite not found at {testsuite.testsuite_dir()} (set WAVESTACK_SHARED)")


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_wasi_testsuite(engine, case):
    name = "node" if engine is oracles.run_node else "wasmtime"
    outcome = testsuite.run_case(case, engine)
    if case.id in KNOWN_FAILURES[name]:
        assert not outcome.passed, f"{case.id} now passes on {name}: remove it from KNOWN_FAILURES"
    else:
        assert outcome.passed, "; ".join(outcome.failures)


@pytest.mark.parametrize("name", sorted(oracles.ENGINES))
def test_wasi_testsuite_counts(name, capsys):
    """Runs the whole suite through the CLI entry point and checks its closing line."""
    suite_or_skip()
    if name == "node":
        node_or_skip()
    for failing in KNOWN_FAILURES[name]:
        assert failing in {case.id for case in CASES}, f"stale KNOWN_FAILURES entry {failing}"
    status = testsuite.main(["--engine", name])
    lines = capsys.readouterr().out.splitlines()
    failed = len(KNOWN_FAILURES[name])
    assert lines[-1] == f"{name}: {len(CASES) - failed} passed, {failed} failed"
    assert len(lines) == len(CASES) + 1
    assert status == (1 if failed else 0)


def test_testsuite_layout_is_read_as_upstream_does():
    suite_or_skip()
    cases = {case.id: case for case in CASES}
    assert {case.suite for case in CASES} == {"c", "assemblyscript"}
    lseek = cases["c/lseek"]
    files, preopens = lseek.file_system()
    assert preopens == ["/"] and files["lseek.txt"] == (lseek.wasm.parent / "fs-tests.dir" / "lseek.txt").read_bytes()
    assert "fopendir.dir/" in files and "writeable/.gitignore" in files
    assert cases["c/fopen-with-no-access"].file_system() == ({}, [])
    assert cases["assemblyscript/proc_exit-failure"].exit_code == 33
    assert cases["assemblyscript/args_get-multiple-arguments"].argv() == [
        "args_get-multiple-arguments.wasm", "first", 'the "second" arg', "3"]


def test_testsuite_dirs_form_and_checks(tmp_path, monkeypatch, caplog):
    """The older `dirs` form, stdout/stderr checks and WAVESTACK_SHARED, on a synthetic suite."""
    folder = tmp_path / "wasi-testsuite" / "tests" / "mine" / "testsuite" / "wasm32-wasip1"
    (folder / "data.dir" / "sub").mkdir(parents=True)
    (folder / "data.dir" / "x.txt").write_bytes(b"x")
    (folder / "t.wasm").write_bytes(wat_command("nop"))
    (folder / "t.json").write_text('{"dirs": ["data.dir"], "args": ["a"], "env": {"K": "V"}, '
                                   '"stdout": "out", "surprise": 1}')
    monkeypatch.setenv("WAVESTACK_SHARED", str(tmp_path))
    assert testsuite.testsuite_dir() == tmp_path / "wasi-testsuite"
    (case,) = testsuite.load_cases()
    assert "surprise" in caplog.text
    assert case.id == "mine/t"
    seen = {}

    def fake_engine(module, args, env, stdin, files, preopens):
        seen.update(args=args, env=env, files=files, preopens=preopens)
        return oracles.WasiResult(exit_code=0, stdout=b"out", stderr=b"")

    assert testsuite.run_case(case, fake_engine).passed
    assert seen == {"args": ["t.wasm", "a"], "env": {"K": "V"},
                    "files": {"data.dir/sub/": b"", "data.dir/x.txt": b"x", "data.dir/": b""},
                    "preopens": ["data.dir"]}
    wrong = testsuite.run_case(case, lambda *a: oracles.WasiResult(exit_code=3, stdout=b"other", stderr=b""))
    assert len(wrong.failures) == 2 and "exit code 3, expected 0" in wrong.failures[0]
    broken = testsuite.run_case(case, lambda *a: 1 / 0)
    assert broken.failures == ("engine raised ZeroDivisionError: division by zero",)


def test_dirs_form_grants_access_under_the_dirs_name(engine, tmp_path, monkeypatch):
    """A real program in the `dirs` form: fopen-with-no-access asserts that it can NOT open
    fs-tests.dir/file; preopening fs-tests.dir under its own name must make that assertion
    fail (a trap), which shows the mapping gives access exactly where upstream's does."""
    suite_or_skip()
    original = next(case for case in CASES if case.id == "c/fopen-with-no-access")
    folder = tmp_path / "wasi-testsuite" / "tests" / "c" / "testsuite" / "wasm32-wasip1"
    folder.mkdir(parents=True)
    (folder / "t.wasm").write_bytes(original.wasm.read_bytes())
    (folder / "t.json").write_text('{"dirs": ["fs-tests.dir"]}')
    (folder / "fs-tests.dir").mkdir()
    (folder / "fs-tests.dir" / "file").write_bytes(b"present")
    monkeypatch.setenv("WAVESTACK_SHARED", str(tmp_path))
    (case,) = testsuite.load_cases()
    outcome = testsuite.run_case(case, engine)
    assert not outcome.passed and outcome.result.trap is not None
    assert b"Assertion failed: file == NULL" in outcome.result.stderr


def test_an_unknown_engine_is_refused_naming_it():
    with pytest.raises(SystemExit, match="wasmgpu_engine has no engine 'nope'"):
        testsuite.resolve_engine("wasmgpu_engine:nope")
    with pytest.raises(SystemExit, match="unknown engine 'nope'"):
        testsuite.resolve_engine("nope")
