"""wasmgpu's WASI against the oracles: the C fixture programs, the wasi-testsuite and
graphviz.wasm, on the cpu device and on the selected Vulkan device (lavapipe in CI), each in
compiled mode (the default) and in the interpreter.

On Vulkan, compiled mode builds a pipeline per unit a program reaches, which lavapipe does
slowly (the wasi-testsuite: 450 s; graphviz.wasm's 539 units: more than 40 minutes), so by
default (CI) Vulkan runs the stdio and exit_code fixtures in compiled mode and the others, the
wasi-testsuite and graphviz in the interpreter; WAVESTACK_WASI_VULKAN=all runs everything in
both modes there (measured: every fixture and the wasi-testsuite pass; graphviz not finished).

Every fixture runs under wasmgpu and under the wasmtime package with the same arguments,
environment, stdin and embedded files; stdout, stderr, exit code and the files left behind must
be identical (the clocks_random fixture, the one that reads clocks and randomness, is compared
by its properties and by the exact values the virtual clock and ChaCha20 define).
"""

from __future__ import annotations

import hashlib
import os
import re
import struct

import pytest

import graphviz_reference
import oracles
import testsuite
import wasmgpu
import wasmgpu_engine

# The fixtures' runs: (fixture, args, env, stdin, files). Deterministic programs only.
RUNS = [
    ("stdio", ["stdio"], {}, b"hello\nworld\n", {}),
    ("stdio", ["stdio"], {}, bytes(range(256)) * 40, {}),
    ("args_env", ["prog", "one", "two words", "", "ünïcödé ✓"], {"A": "1", "WITH_EQUALS": "a=b=c"}, b"", {}),
    ("malloc_growth", ["malloc_growth"], {}, b"", {}),
    ("file_workout", ["file_workout"], {}, b"", {}),
    ("float_printf", ["float_printf"], {}, b"", {}),
    ("exit_code", ["exit_code", "0"], {}, b"", {}),
    ("exit_code", ["exit_code", "7"], {}, b"", {}),
    ("exit_code", ["exit_code", "125"], {}, b"", {}),
    ("embedded_input", ["embedded_input", "data/input.txt", "result.txt"], {}, b"",
     {"data/input.txt": b"1.25\n2.5\n-3.75\n1e3\n"}),
]
# Run on the cpu device only: lavapipe interprets about 10^5 instructions a second, and these
# execute 409 M (malloc_growth) and 17 M (float_printf). Every other run goes on both devices.
CPU_ONLY = {"malloc_growth", "float_printf"}
# "cpu" and "gpu" run the default execution (compiled mode), "*-interpreter" the interpreter.
ALL_ON_VULKAN = os.environ.get("WAVESTACK_WASI_VULKAN") == "all"
# By default Vulkan runs these fixtures in compiled mode (each builds 20 to 40 unit pipelines on
# lavapipe: 70 to 100 s apiece in CI) and the others in the interpreter, stdio in both.
VULKAN_COMPILED_FIXTURES = {"stdio", "exit_code"}
VULKAN_INTERPRETER_FIXTURES = {"stdio", "args_env", "file_workout", "embedded_input"}


def _runs_on(device: str, fixture_name: str) -> bool:
    if device.startswith("cpu"):
        return True
    if fixture_name in CPU_ONLY:
        return False
    if ALL_ON_VULKAN:
        return True
    return fixture_name in (VULKAN_COMPILED_FIXTURES if device == "gpu" else VULKAN_INTERPRETER_FIXTURES)


DEVICE_RUNS = [(device, run) for run in RUNS for device in ("cpu", "cpu-interpreter", "gpu", "gpu-interpreter")
               if _runs_on(device, run[0])]
# The wasi-testsuite and graphviz.wasm: every mode on the cpu device, the interpreter on Vulkan
# (compiled mode too with WAVESTACK_WASI_VULKAN=all).
PROGRAM_DEVICES = ["cpu", "cpu-interpreter", "gpu-interpreter"] + (["gpu"] if ALL_ON_VULKAN else [])


@pytest.fixture(params=PROGRAM_DEVICES)
def ours(request):
    """wasmgpu's engine on the cpu device or the selected Vulkan device, in compiled mode or
    the interpreter."""
    return engine_for(request.param)


def _without_directories(files):
    return {path: content for path, content in files.items() if not path.endswith("/")}


def engine_for(device: str):
    if device.startswith("gpu") and wasmgpu._native.select_device(False) is None:
        import device_support  # tests/python

        reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        if device_support.gpu_required():
            pytest.fail(reason)
        pytest.skip(reason)
    if device.endswith("-interpreter"):
        return wasmgpu_engine.make_engine(device.removesuffix("-interpreter"), execution="interpreter")
    return wasmgpu_engine.make_engine(device)


@pytest.mark.parametrize("device, run", DEVICE_RUNS,
                         ids=[f"{device}-{run[0]}-{RUNS.index(run)}" for device, run in DEVICE_RUNS])
def test_fixture_matches_wasmtime(device, fixture, run):
    ours = engine_for(device)
    name, args, env, stdin, files = run
    module = fixture(name)
    expected = oracles.run_wasmtime(module, args, env, stdin, files)
    got = ours(module, args, env, stdin, files)
    assert got.stdout == expected.stdout
    assert got.stderr == expected.stderr
    assert got.exit_code == expected.exit_code
    assert got.files == _without_directories(expected.files)
    if device.startswith("cpu") and oracles.node_executable() is not None:  # and Node's node:wasi, where installed
        on_node = oracles.run_node(module, args, env, stdin, files)
        assert (got.stdout, got.stderr, got.exit_code) == (on_node.stdout, on_node.stderr, on_node.exit_code)
        assert got.files == _without_directories(on_node.files)


# -- the wasi-testsuite --------------------------------------------------------------------

def test_wasi_testsuite_passes_on_wasmgpu(ours):
    if not testsuite.testsuite_dir().is_dir():
        pytest.fail(f"the wasi-testsuite is missing at {testsuite.testsuite_dir()}")
    outcomes = testsuite.run_suite(ours)
    failed = {outcome.case.id: "; ".join(outcome.failures) for outcome in outcomes if not outcome.passed}
    assert len(outcomes) == 26
    assert failed == {}


# -- graphviz.wasm, a real WASI program ---------------------------------------------------------

def _graphviz_demo():
    import importlib.util

    path = testsuite.REPO / "examples" / "wasmgpu_graphviz.py"
    spec = importlib.util.spec_from_file_location("wasmgpu_graphviz", path)
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    return demo


def test_graphviz_renders_a_different_graph_per_instance_identically_to_wasmtime(ours, request):
    demo = _graphviz_demo()
    device = request.node.callspec.params["ours"]
    dots = demo.example_graphs(3)
    where = {"allow_software": True} if device.startswith("gpu") else {"device": "cpu"}
    compiled = not device.endswith("-interpreter")
    module = demo.graphviz_module("auto" if compiled else "interpreter")
    with module.spawn(3, **demo.SPAWN_OPTIONS, **where) as instances:
        svgs, first = demo.render(instances, dots)
        assert first.instructions > 1_000_000
        if compiled:  # the first render builds (or loads) the units it reaches
            assert first.executed_as == "compiled" and first.units_compiled > 100
            print(f"graphviz.wasm on {device}, first render: {first.units_compiled} of "
                  f"{module.compiled['units']} units built in {first.compile_seconds:.1f} s")
        reference = graphviz_reference.GraphvizReference()
        try:
            expected = [reference.render(dot) for dot in dots]
        finally:
            reference.close()
        assert svgs == expected
        assert len(set(svgs)) == 3 and all(b"<svg" in svg for svg in svgs)
        if device.startswith("cpu") or ALL_ON_VULKAN:  # a second render reuses the instances
            again, second = demo.render(instances, list(reversed(dots)))
            assert again == list(reversed(expected))
            assert second.units_compiled == 0  # compiled mode: nothing left to build


# -- the command line --------------------------------------------------------------------------------

def _cli(*arguments, stdin=None, cwd=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "wasmgpu", "run", *arguments], capture_output=True, timeout=300,
                          stdin=stdin, cwd=cwd)


TRAP_EXIT_STATUS = 134  # `wasmtime run`'s exit status for a trap


def test_cli_run_behaves_like_wasmtime_run(fixtures_dir, tmp_path):
    module = fixtures_dir / "exit_code.wasm"
    for code in ("0", "9"):
        expected = oracles.run_wasmtime(module.read_bytes(), ["exit_code.wasm", code])
        got = _cli("--device", "cpu", str(module), code)
        assert (got.returncode, got.stdout, got.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    (tmp_path / "input.txt").write_bytes(b"1.5\n2.5\n")
    (tmp_path / "stdin.txt").write_bytes(b"from stdin\n")
    out = tmp_path / "out"
    # As `wasmtime run`: options, the module, then the program's arguments (options included).
    got = _cli("--device", "cpu", "--instances", "3", "--file", f"data/input.txt={tmp_path / 'input.txt'}",
               "--output-dir", str(out), "--env", "MODE=batch", str(fixtures_dir / "embedded_input.wasm"),
               "data/input.txt", "result.txt")
    expected = oracles.run_wasmtime((fixtures_dir / "embedded_input.wasm").read_bytes(),
                                    ["embedded_input.wasm", "data/input.txt", "result.txt"], {"MODE": "batch"}, b"",
                                    {"data/input.txt": b"1.5\n2.5\n"})
    assert got.returncode == expected.exit_code and got.stdout == expected.stdout
    for i in range(3):
        assert (out / str(i) / "stdout").read_bytes() == expected.stdout
        assert (out / str(i) / "files" / "result.txt").read_bytes() == expected.files["result.txt"]
    stdio = _cli("--device", "cpu", "--stdin", str(tmp_path / "stdin.txt"), str(fixtures_dir / "stdio.wasm"))
    expected = oracles.run_wasmtime((fixtures_dir / "stdio.wasm").read_bytes(), ["stdio.wasm"], {}, b"from stdin\n")
    assert (stdio.returncode, stdio.stdout, stdio.stderr) == (0, expected.stdout, expected.stderr)


def test_cli_runs_what_wasmtime_runs_with_no_tuning(fixtures_dir, tmp_path):
    # The example: a 256 KiB file embedded with --file and nothing else. The command
    # sizes the file storage for it (the API's default is 64 KiB) and sets no fuel limit (the
    # API's default is 10 million instructions; this run takes more). The interpreter runs it
    # here to keep CI short (compiled mode builds each unit with g++ for now).
    data = bytes((k * 7919 + k // 251) % 256 for k in range(256 * 1024))
    (tmp_path / "big.bin").write_bytes(data)
    module = fixtures_dir / "sha256sum.wasm"
    expected = oracles.run_wasmtime(module.read_bytes(), ["sha256sum.wasm", "big.bin"], {}, b"", {"big.bin": data})
    assert expected.stdout == hashlib.sha256(data).hexdigest().encode() + b"  big.bin\n"
    got = _cli("--device", "cpu", "--execution", "interpreter", "--file", f"big.bin={tmp_path / 'big.bin'}",
               str(module), "big.bin", cwd=tmp_path)
    assert (got.returncode, got.stdout, got.stderr) == (expected.exit_code, expected.stdout, expected.stderr)
    # The API's default budget (10 million instructions) would not have been enough.
    limited = _cli("--device", "cpu", "--execution", "interpreter", "--fuel", "10000000", "--file",
                   f"big.bin={tmp_path / 'big.bin'}", str(module), "big.bin", cwd=tmp_path)
    assert limited.returncode == TRAP_EXIT_STATUS and b"fuel exhausted" in limited.stderr


@pytest.mark.parametrize("options, message", [
    (["--file", "big.bin=missing.bin"], r"^wasmgpu: --file missing.bin: No such file or directory$"),
    (["--storage-size", "100", "--file", "big.bin=big.bin"],
     r"^wasmgpu: storage_size: 100 bytes cannot hold stdin and the files \(1000 bytes\).*--storage-size"),
    (["--stack-size", "3"], r"^wasmgpu: stack_size: 3 slots cannot hold one frame .*--stack-size"),
    (["--memory-pages", "70000"], r"^wasmgpu: memory_pages: .*--memory-pages"),
    (["--max-files", "5", "--file", "a/b/c/d=big.bin"], r"^wasmgpu: max_files: .*--max-files"),
    (["--instances", "0"], r"^wasmgpu: argument --instances: expected a positive integer, got 0 "),
    (["--no-such-option"], r"^wasmgpu: .*--no-such-option"),
])
def test_cli_errors_are_one_line_naming_the_option(fixtures_dir, tmp_path, options, message):
    (tmp_path / "big.bin").write_bytes(bytes(1000))
    got = _cli("--device", "cpu", "--execution", "interpreter", *options, str(fixtures_dir / "sha256sum.wasm"),
               cwd=tmp_path)
    lines = got.stderr.decode().splitlines()
    assert got.returncode == 1 and got.stdout == b""
    assert len(lines) == 1 and re.search(message, lines[0]), lines


def test_cli_names_the_option_of_a_limit_the_program_hit(fixtures_dir, tmp_path):
    (tmp_path / "big.bin").write_bytes(bytes(4096))
    got = _cli("--device", "cpu", "--execution", "interpreter", "--fuel", "1000", "--file", "big.bin=big.bin",
               str(fixtures_dir / "sha256sum.wasm"), "big.bin", cwd=tmp_path)
    assert got.returncode == TRAP_EXIT_STATUS
    assert got.stderr.decode().splitlines()[-1] == (
        "wasmgpu: instance 0 trapped: fuel exhausted (--fuel 1000 instructions ran out: raise --fuel, or leave it "
        "out for no limit)")


def test_cli_info_lists_the_cpu_device():
    import subprocess
    import sys

    info = subprocess.run([sys.executable, "-m", "wasmgpu", "info"], capture_output=True, text=True, timeout=120)
    assert info.returncode == 0 and info.stdout.startswith("cpu: ")


# -- the seed's WASI example, as written ------------------------------------------------------------

SEED_EXAMPLE = """
import wasmgpu

module = wasmgpu.Module("worker.wasm", files={"data/input.txt": b"1.25\\n2.5\\n"})
wasi = wasmgpu.Wasi(
    args=["worker", "data/input.txt"],
    env={"MODE": "batch"},
    stdin=b"input stream\\n",
    storage_size=256 * 1024,
    max_files=64,
    max_fds=64,
    seed=123,
)
with module.spawn(8, wasi=wasi, memory_pages=32, stack_size=4096) as instances:
    instances.call("process")
    output_file = instances.read_file("result.txt", instance=0)
    stdout = instances.stdout  # list of captured bytes, one per instance
    stderr = instances.stderr
"""


def test_the_seeds_wasi_example_runs_as_written(fixtures_dir, tmp_path, monkeypatch):
    engine_for("gpu")  # the example uses the default device (lavapipe in CI)
    (tmp_path / "worker.wasm").write_bytes((fixtures_dir / "worker_reactor.wasm").read_bytes())
    monkeypatch.chdir(tmp_path)
    scope = {}
    exec(compile(SEED_EXAMPLE, "seed-example", "exec"), scope)
    assert scope["output_file"] == b"count=2 sum_milli=3750\n"
    assert scope["stdout"] == [b"count=2 sum_milli=3750 mode=batch\n"] * 8
    assert scope["stderr"] == [b"processed\n"] * 8
