#!/usr/bin/env python3
"""WASI file-system fuzzer: random sequences of file-system calls, generated from a seed and
run by a small C guest (``wasi_fs_driver.c``, compiled to wasm32-wasi with clang and
wasi-libc) on wasmgpu's cpu device in both execution modes, against a preopened directory
embedded in the instance, and under wasmtime's WASI with the same tree in a temporary
directory (``tests/wasi/oracles.py``). Stdout (every call's result and errno, then the whole
tree with sizes and checksums), stderr, the exit code and the final regular files (read back
through ``instances.files()``) must agree.

    python tests/fuzz/wasi_fs.py --seconds 600 [--seed N] [--findings DIR]
    python tests/fuzz/wasi_fs.py --replay tests/fixtures/fuzz/wasi

A saved finding is the operation script (``seed-N.txt``), the driver's stdin.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "wasi"))
sys.path.insert(0, str(HERE))

from differential import Supervisor, replay_through  # noqa: E402

DRIVER_SOURCE = HERE / "wasi_fs_driver.c"
FINDINGS_DIR = REPO / "tests" / "fixtures" / "fuzz" / "wasi"
FIXED_SEEDS = list(range(1, 31))
MODES = ("interpreter", "compiled")
CASE_TIMEOUT_S = 60.0
# The first case also builds the guest's compiled units (about 2 minutes on two busy cores
# with a cold cache); later cases take about a second.
FIRST_CASE_TIMEOUT_S = 600.0

# The tree every run starts from (wasmgpu embeds regular files only, so no empty directories).
INITIAL_FILES = {"a": b"hello, world\n", "d/e": bytes(range(200)), "d/g/h": b"deep\n"}
PATHS = ["a", "b", "c", "d", "d/e", "d/f", "d/g", "d/g/h", "g", "g/i", "d/../b", "./c", "missing/x"]


def driver_wasm() -> bytes:
    """The guest, built once per source version into the temporary folder."""
    source = DRIVER_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    output = Path(tempfile.gettempdir()) / "wavestack-fuzz" / f"wasi_fs_driver-{digest}.wasm"
    if not output.exists():
        output.parent.mkdir(parents=True, exist_ok=True)
        clang = os.environ.get("WAVESTACK_WASI_CLANG") or shutil.which("clang") or shutil.which("clang-14")
        if clang is None:
            raise RuntimeError("clang not found: the WASI fuzzer builds its guest with clang (scripts/bootstrap.sh)")
        flags = ["--target=wasm32-wasi", "-O2", "-Wall", "-Wextra", "-fuse-ld=lld", "-Wl,--strip-debug"]
        # As tests/fixtures/CMakeLists.txt: a wasi-sdk style sysroot where there is one, else clang's default.
        if Path("/usr/share/wasi-sysroot/lib/wasm32-wasi/libc.a").exists():
            flags.append("--sysroot=/usr/share/wasi-sysroot")
        partial = output.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run([clang, *flags, "-o", str(partial), str(DRIVER_SOURCE)], check=True, capture_output=True)
        partial.replace(output)
    return output.read_bytes()


def generate(seed: int) -> str:
    """The operation script of ``seed``: 5 to 60 operations over a small set of paths, so they
    collide (create what exists, remove what is open, rename onto directories, ...)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randint(5, 60)):
        slot = rng.randrange(4)  # few slots, so most operations reach an open file
        path, other = rng.choice(PATHS), rng.choice(PATHS)
        op = rng.choices(["open", "close", "write", "read", "seek", "truncate", "fstat", "sync", "rename", "unlink",
                          "mkdir", "rmdir", "stat", "readdir"],
                         [12, 3, 8, 6, 4, 2, 2, 1, 3, 2, 3, 2, 2, 2])[0]
        if op == "open":
            if rng.random() < 0.1:
                # wasmtime refuses O_DIRECTORY with write access, O_TRUNC, O_EXCL or O_APPEND
                # (EINVAL) before looking at the path, where wasmgpu, like Linux, answers by
                # what the path names: those combinations are left out.
                letters = "rd" + ("c" if rng.random() < 0.3 else "")
            else:
                letters = rng.choice(["r", "w", "rw"]) + "".join(
                    f for f, p in zip("ctxa", (0.5, 0.2, 0.15, 0.2)) if rng.random() < p)
            lines.append(f"open {slot} {path} {letters}")
        elif op == "write":
            lines.append(f"write {slot} {rng.choice([0, 1, 5, 100, 1000, 4096])} {rng.randrange(32, 120)}")
        elif op == "read":
            lines.append(f"read {slot} {rng.choice([0, 1, 7, 100, 4096])}")
        elif op == "seek":
            lines.append(f"seek {slot} {rng.choice([0, 1, 3, 100, 5000, -1, -20])} {rng.randrange(3)}")
        elif op == "truncate":
            lines.append(f"truncate {slot} {rng.choice([0, 3, 300, -1])}")
        elif op in ("close", "fstat", "sync"):
            lines.append(f"{op} {slot}")
        elif op == "rename":
            lines.append(f"rename {path} {other}")
        else:
            lines.append(f"{op} {path}")
    return "\n".join(lines) + "\n"


def regular_files(files: dict) -> dict:
    return {path: content for path, content in files.items() if not path.endswith("/")}


def run_case(seed: int, script: str | None = None) -> dict:
    import oracles
    import wasmgpu_engine

    script = generate(seed) if script is None else script
    module = driver_wasm()
    stdin = script.encode()
    report = {"seed": seed, "status": "ran", "calls": script.count("\n"), "findings": []}
    reference = oracles.run_wasmtime(module, ["driver"], {}, stdin, INITIAL_FILES, (".",), timeout=60)
    expected = (reference.exit_code, reference.stdout, reference.stderr, regular_files(reference.files))
    for mode in MODES:
        result = wasmgpu_engine.make_engine("cpu", execution=mode)(module, ["driver"], {}, stdin, INITIAL_FILES, (".",))
        stdout, tolerated = tolerate_precedence(result.stdout, reference.stdout)
        report["tolerated"] = report.get("tolerated", 0) + tolerated
        got = (result.exit_code, stdout, result.stderr, regular_files(result.files))
        for name, ours, theirs in zip(("exit code", "stdout", "stderr", "files"), got, expected):
            if ours != theirs:
                report["findings"].append(f"{mode}: {name} differs:\n{describe(ours, theirs)}")
    return report


# errno values (WASI's numbering, which wasi-libc keeps).
EINVAL, EISDIR, ENOENT, ENOTDIR, ENOTEMPTY = 28, 31, 44, 54, 55
# When several error conditions hold at once, POSIX leaves open which one is reported.
# wasmtime forwards the host's (Linux's) order; wasmgpu checks in its own order: for rename,
# the source before the target and the target's type before "a directory into its own
# subtree" (Linux: EINVAL / ENOTEMPTY first); for any path, a missing source before a target
# whose parent is a file. Such a line counts as agreeing when both calls failed with errors
# from this set. docs/ARCHITECTURE.md ("Differential fuzzing") lists them.
PRECEDENCE_ALTERNATIVES = {EINVAL, EISDIR, ENOENT, ENOTDIR, ENOTEMPTY}


def tolerate_precedence(ours: bytes, theirs: bytes) -> tuple[bytes, int]:
    """Our stdout with each rename line that differs from wasmtime's only in the choice among
    PRECEDENCE_ALTERNATIVES replaced by wasmtime's line; and how many were replaced."""
    our_lines, their_lines = ours.split(b"\n"), theirs.split(b"\n")
    if len(our_lines) != len(their_lines):
        return ours, 0
    replaced = 0
    for k, (mine, other) in enumerate(zip(our_lines, their_lines)):
        if mine == other or not mine.startswith(b"rename "):
            continue
        head_mine, _, errno_mine = mine.rpartition(b" -> error ")
        head_other, _, errno_other = other.rpartition(b" -> error ")
        if (head_mine == head_other and head_mine and errno_mine.isdigit() and errno_other.isdigit()
                and {int(errno_mine), int(errno_other)} <= PRECEDENCE_ALTERNATIVES):
            our_lines[k] = other
            replaced += 1
    return b"\n".join(our_lines), replaced


def describe(ours, theirs) -> str:
    if isinstance(ours, bytes):
        import difflib

        diff = difflib.unified_diff(theirs.decode(errors="replace").splitlines(),
                                    ours.decode(errors="replace").splitlines(), "wasmtime", "wasmgpu", lineterm="", n=1)
        return "\n".join(list(diff)[:40])
    if isinstance(ours, dict):
        return "\n".join(f"  {p}: wasmgpu {ours.get(p, '(none)')!r:.60} wasmtime {theirs.get(p, '(none)')!r:.60}"
                         for p in sorted(set(ours) | set(theirs)) if ours.get(p) != theirs.get(p))
    return f"  wasmgpu {ours!r}, wasmtime {theirs!r}"


def worker() -> None:
    for line in sys.stdin:
        line = line.strip()
        if line.startswith("replay "):
            path = Path(line[len("replay "):])
            report = run_case(0, path.read_text())
        elif line:
            report = run_case(int(line))
        else:
            continue
        print(json.dumps(report), flush=True)


def fuzz(seconds: float, base_seed: int | None = None, findings_dir: Path | None = None, log=print) -> dict:
    if base_seed is None:
        base_seed = random.SystemRandom().randrange(1 << 40)
    log(f"WASI fs fuzzer: {len(FIXED_SEEDS)} fixed seeds, then seeds from {base_seed} (random), {seconds:.0f} s")
    driver_wasm()  # built before the clock starts
    totals = {"cases": 0, "calls": 0, "tolerated": 0, "findings": []}
    supervisor = Supervisor(CASE_TIMEOUT_S, __file__, FIRST_CASE_TIMEOUT_S)
    seeds = itertools.chain(FIXED_SEEDS, itertools.count(base_seed))

    def run_case(seed: int) -> None:
        report = supervisor.run(str(seed))
        totals["cases"] += 1
        totals["calls"] += report.get("calls", 0)
        totals["tolerated"] += report.get("tolerated", 0)
        if report["findings"]:
            log(f"FINDING seed {seed}: " + "\n".join(report["findings"])[:3000])
            totals["findings"].append((seed, report["findings"]))
            if findings_dir is not None:
                findings_dir.mkdir(parents=True, exist_ok=True)
                (findings_dir / f"seed-{seed}.txt").write_text(generate(seed))

    try:
        # The first script builds the driver's compiled units (with a cold cache in CI that
        # took most of a minute, and the bounded run compared 2 scripts): the clock starts
        # after it, so `seconds` is spent comparing scripts.
        run_case(next(seeds))
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            run_case(next(seeds))
    finally:
        supervisor.close()
    elapsed = time.monotonic() - start
    totals["seconds"] = elapsed
    log(f"WASI fs fuzzer: {totals['cases']} scripts, {totals['calls']} file-system calls on each engine, "
        f"{(totals['cases'] - 1) / elapsed:.2f} scripts/s after the first, {totals['tolerated']} rename errors "
        f"differing only in precedence, {len(totals['findings'])} findings, base seed {base_seed}")
    return totals


def replay(folder: Path, log=print) -> list:
    """Runs every saved script; returns the findings that still reproduce."""
    supervisor = Supervisor(CASE_TIMEOUT_S, __file__, FIRST_CASE_TIMEOUT_S)
    return replay_through(supervisor, sorted(folder.glob("*.txt")), log)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--findings", type=Path)
    parser.add_argument("--replay", type=Path)
    parser.add_argument("--case", type=int, help="run one seed in this process and print its report")
    parser.add_argument("--show", type=int, help="print the operation script of a seed")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return 0
    if args.show is not None:
        print(generate(args.show), end="")
        return 0
    if args.case is not None:
        report = run_case(args.case)
        print("\n".join(report["findings"]) or "no findings")
        return 1 if report["findings"] else 0
    if args.replay:
        return 1 if replay(args.replay) else 0
    return 1 if fuzz(args.seconds, args.seed, args.findings)["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
