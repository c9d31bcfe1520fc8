"""Reference WASI preview-1 engines ("oracles") for wasmgpu's WASI tests.

Two independent implementations run a WASI *command* module (its ``_start``) and report what
it did, so that tests can compare them with each other now and with wasmgpu later:

* ``run_wasmtime``: the ``wasmtime`` Python package (PyPI), in process.
* ``run_node``: Node's ``node:wasi`` (uvwasi), through ``node_wasi_driver.mjs`` in a child process.

Both have the engine interface that wasmgpu will plug into (see ``testsuite.py``)::

    run(module, args, env, stdin, files, preopens) -> WasiResult

``files`` is the embedded file system, ``{relative path: bytes}`` (a key ending in ``/`` is an
empty directory), materialized into a fresh temporary directory: the oracles need real host
directories, while wasmgpu embeds the same bytes in device memory. ``preopens`` names the
guest paths to preopen: ``"."`` and ``"/"`` both mean the whole tree (wasmgpu's seed preopens
the root as ``.``; ``wasmtime run --dir ROOT::/`` and the wasi-testsuite use ``/``), and any
other relative name means that subdirectory of the tree, preopened under its own name (as
``wasmtime run --dir NAME`` does). After the run the whole tree is read back into
``WasiResult.files`` in the same format, directories included, so a test sees creations,
renames and deletions.

A trap is not an exit: ``exit_code`` is then ``TRAP_EXIT_CODE`` (what ``wasmtime run`` reports for
a trap on Unix, so wasi-testsuite expectations read the same) and ``trap`` holds the message.
Exit codes are WASI's u32. The two oracles disagree on codes >= 126: wasmtime refuses them
(its proc_exit traps: "exit with invalid exit status outside of [0..126)"), Node passes them on.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
NODE_DRIVER = HERE / "node_wasi_driver.mjs"

# `wasmtime run` exits with 128 + SIGABRT when the guest traps; using the same number keeps
# exit-code checks identical across the oracles and the upstream runner's wasmtime adapter.
TRAP_EXIT_CODE = 134
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class WasiResult:
    """What one run of a WASI command did."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    # The embedded directory tree after the run: {relative posix path: bytes}; directories
    # appear as "path/": b"" (the same format the `files` argument accepts).
    files: dict[str, bytes] = field(default_factory=dict)
    # Symbolic links left in the tree: {relative path: target}.
    symlinks: dict[str, str] = field(default_factory=dict)
    # None when the program exited (proc_exit or returning from _start); else why it trapped.
    trap: str | None = None


# --- the embedded file system -------------------------------------------------------------


def _checked_relative(path: str) -> PurePosixPath:
    """A relative path with no '.', '..' or empty components: it cannot leave the tree."""
    parts = path.rstrip("/").split("/")
    if not path or path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"embedded file path must be relative and normalized: {path!r}")
    return PurePosixPath(*parts)


def materialize(files: Mapping[str, bytes] | None, root: Path) -> None:
    """Writes the embedded files (and empty directories, keys ending in '/') under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in (files or {}).items():
        target = root.joinpath(*_checked_relative(name).parts)
        if name.endswith("/"):
            if content:
                raise ValueError(f"a directory entry must have empty content: {name!r}")
            target.mkdir(parents=True, exist_ok=True)
            continue
        if not isinstance(content, (bytes, bytearray, memoryview)):
            raise TypeError(f"content of {name!r} must be bytes, not {type(content).__name__}")
        target.parent.mkdir(parents=True, exist_ok=True)
        # Written fresh (mode 0644), never copied: sources such as ../shared are read-only.
        target.write_bytes(bytes(content))


def collect(root: Path) -> tuple[dict[str, bytes], dict[str, str]]:
    """Reads a tree back: ({path: bytes, "dir/": b""}, {symlink path: target}), sorted."""
    files: dict[str, bytes] = {}
    symlinks: dict[str, str] = {}
    for directory, subdirs, names in os.walk(root):
        base = Path(directory)
        for name in sorted(subdirs + names):
            path = base / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                symlinks[relative] = os.readlink(path)
            elif path.is_dir():
                files[relative + "/"] = b""
            else:
                files[relative] = path.read_bytes()
        subdirs[:] = [name for name in subdirs if not (base / name).is_symlink()]
    return dict(sorted(files.items())), dict(sorted(symlinks.items()))


def preopen_host_dir(tree: Path, guest: str) -> Path:
    """The host directory behind one preopen (see the module docstring)."""
    if guest in (".", "/"):
        return tree
    host = tree.joinpath(*_checked_relative(guest).parts)
    host.mkdir(parents=True, exist_ok=True)
    return host


def _check_arguments(args: Sequence[str], env: Mapping[str, str] | None, stdin: bytes) -> None:
    if isinstance(args, (str, bytes)) or not all(isinstance(arg, str) for arg in args):
        raise TypeError("args must be a sequence of str (argv, including argv[0])")
    for key, value in (env or {}).items():
        if not isinstance(key, str) or not isinstance(value, str) or "=" in key:
            raise ValueError(f"environment entries must be str=str without '=' in the name: {key!r}")
    if not isinstance(stdin, (bytes, bytearray, memoryview)):
        raise TypeError("stdin must be bytes")


# --- wasmtime (PyPI) -------------------------------------------------------------------------

_wasmtime_engine = None
_wasmtime_modules: dict[str, object] = {}


def _wasmtime_module(module: bytes):
    """One engine for all runs (epoch interruption on, for timeouts) and compiled modules by hash."""
    import wasmtime

    _wasmtime_engine_and_modules()
    key = hashlib.sha256(module).hexdigest()
    if key not in _wasmtime_modules:
        if len(_wasmtime_modules) >= 64:
            _wasmtime_modules.clear()
        _wasmtime_modules[key] = wasmtime.Module(_wasmtime_engine, module)
    return _wasmtime_engine, _wasmtime_modules[key]


def preload_wasmtime_module(module: bytes, cwasm: str) -> None:
    """Makes run_wasmtime(module, ...) use the compiled module in `cwasm` (what
    `Module.serialize` of an engine with epoch interruption wrote) instead of compiling it:
    Wasmtime's warm start, for bench/wasmgpu_cold.py."""
    import wasmtime

    engine, _ = _wasmtime_engine_and_modules()
    _wasmtime_modules[hashlib.sha256(module).hexdigest()] = wasmtime.Module.deserialize_file(engine, cwasm)


def _wasmtime_engine_and_modules():
    global _wasmtime_engine
    import wasmtime

    if _wasmtime_engine is None:
        config = wasmtime.Config()
        config.epoch_interruption = True
        _wasmtime_engine = wasmtime.Engine(config)
    return _wasmtime_engine, _wasmtime_modules


def run_wasmtime(
    module: bytes,
    args: Sequence[str] = ("main",),
    env: Mapping[str, str] | None = None,
    stdin: bytes = b"",
    files: Mapping[str, bytes] | None = None,
    preopens: Sequence[str] = (".",),
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> WasiResult:
    """Runs a WASI command under the wasmtime Python package."""
    import wasmtime

    _check_arguments(args, env, stdin)
    engine, compiled = _wasmtime_module(bytes(module))
    with tempfile.TemporaryDirectory(prefix="wavestack-wasi-") as scratch:
        scratch_dir = Path(scratch)
        tree = scratch_dir / "tree"
        materialize(files, tree)
        (scratch_dir / "stdin").write_bytes(bytes(stdin))

        wasi = wasmtime.WasiConfig()
        wasi.argv = list(args)
        wasi.env = list((env or {}).items())
        wasi.stdin_file = str(scratch_dir / "stdin")
        wasi.stdout_file = str(scratch_dir / "stdout")
        wasi.stderr_file = str(scratch_dir / "stderr")
        for guest in preopens:
            wasi.preopen_dir(str(preopen_host_dir(tree, guest)), guest)

        store = wasmtime.Store(engine)
        store.set_wasi(wasi)
        store.set_epoch_deadline(1)
        linker = wasmtime.Linker(engine)
        linker.define_wasi()
        timed_out = threading.Event()

        def interrupt() -> None:
            timed_out.set()
            engine.increment_epoch()

        timer = threading.Timer(timeout, interrupt)
        timer.daemon = True
        timer.start()
        trap = None
        try:
            # Instantiation is inside the try: a start function may exit or trap too.
            instance = linker.instantiate(store, compiled)
            instance.exports(store)["_start"](store)
            exit_code = 0
        except wasmtime.ExitTrap as exit_trap:
            # proc_exit, including the one wasi-libc's _start makes for main's return value.
            exit_code = exit_trap.code & 0xFFFFFFFF
        except (wasmtime.Trap, wasmtime.WasmtimeError) as error:
            exit_code = TRAP_EXIT_CODE
            trap = f"timeout after {timeout} s" if timed_out.is_set() else str(error)
        finally:
            timer.cancel()
            # Dropping the store closes the WASI context and so the stdio files.
            store.close()
        stdout = (scratch_dir / "stdout").read_bytes()
        stderr = (scratch_dir / "stderr").read_bytes()
        tree_files, symlinks = collect(tree)
    return WasiResult(exit_code, stdout, stderr, tree_files, symlinks, trap)


# --- Node's node:wasi ------------------------------------------------------------------------


def node_executable() -> str | None:
    """The `node` to use (WAVESTACK_NODE overrides PATH), or None when there is none."""
    return shutil.which(os.environ.get("WAVESTACK_NODE") or "node")


def run_node(
    module: bytes,
    args: Sequence[str] = ("main",),
    env: Mapping[str, str] | None = None,
    stdin: bytes = b"",
    files: Mapping[str, bytes] | None = None,
    preopens: Sequence[str] = (".",),
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> WasiResult:
    """Runs a WASI command under Node's node:wasi (preview1) via node_wasi_driver.mjs."""
    _check_arguments(args, env, stdin)
    node = node_executable()
    if node is None:
        raise FileNotFoundError("node not found (install Node >= 20 or set WAVESTACK_NODE)")
    with tempfile.TemporaryDirectory(prefix="wavestack-wasi-") as scratch:
        scratch_dir = Path(scratch)
        tree = scratch_dir / "tree"
        materialize(files, tree)
        (scratch_dir / "module.wasm").write_bytes(bytes(module))
        (scratch_dir / "stdin").write_bytes(bytes(stdin))
        config = {
            "module": str(scratch_dir / "module.wasm"),
            "args": list(args),
            # A JS object: keep names that are not array indices ("0", "1", ...), which
            # objects would reorder; WASI itself has no order requirement.
            "env": dict(env or {}),
            "preopens": {guest: str(preopen_host_dir(tree, guest)) for guest in preopens},
            "stdin": str(scratch_dir / "stdin"),
            "stdout": str(scratch_dir / "stdout"),
            "stderr": str(scratch_dir / "stderr"),
            "result": str(scratch_dir / "result.json"),
        }
        (scratch_dir / "config.json").write_text(json.dumps(config))
        try:
            process = subprocess.run(
                [node, "--no-warnings", str(NODE_DRIVER), str(scratch_dir / "config.json")],
                capture_output=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            process = None
        result_file = scratch_dir / "result.json"
        if process is None:
            exit_code, trap = TRAP_EXIT_CODE, f"timeout after {timeout} s"
        elif result_file.exists():
            outcome = json.loads(result_file.read_text())
            exit_code, trap = outcome["exit_code"], outcome["trap"]
            # WASI's exitcode is a u32; Node hands back proc_exit's i32 argument as signed.
            exit_code = TRAP_EXIT_CODE if trap is not None else int(exit_code) & 0xFFFFFFFF
        else:
            # The driver itself failed (bad Node version, crash): that is a harness error.
            raise RuntimeError(
                f"node_wasi_driver.mjs failed with status {process.returncode}:\n"
                + process.stderr.decode(errors="replace")
            )
        stdout = (scratch_dir / "stdout").read_bytes() if (scratch_dir / "stdout").exists() else b""
        stderr = (scratch_dir / "stderr").read_bytes() if (scratch_dir / "stderr").exists() else b""
        tree_files, symlinks = collect(tree)
    return WasiResult(exit_code, stdout, stderr, tree_files, symlinks, trap)


ENGINES = {"wasmtime": run_wasmtime, "node": run_node}
