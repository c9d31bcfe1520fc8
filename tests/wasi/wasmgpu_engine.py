"""wasmgpu as an engine of the WASI tests: the same interface as the oracles (oracles.py),

    run(module, args, env, stdin, files, preopens) -> WasiResult

with the files embedded into the instance's device file system instead of a host directory.
``make_engine(device)`` gives the engine for the cpu device or the selected Vulkan device
("gpu", lavapipe in CI). One instance runs the command unless ``instances`` says more; the
result is instance 0's (the tests check that every instance agrees where they spawn several).

Preopens: "." and "/" preopen the whole tree under that name; a single other name preopens
that subdirectory's contents under its own name (the wasi-testsuite's older ``dirs`` form);
none preopens nothing (Wasi(preopen=None)).
Empty directories of ``files`` (keys ending in "/") are created by a placeholder-free route:
wasmgpu.Wasi embeds files only, so an empty directory is not represented and is reported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import wasmgpu
from oracles import TRAP_EXIT_CODE, WasiResult

# Generous quotas: the suites' programs are small, but some write files and list directories.
STORAGE_SIZE = 1 << 20
MAX_FILES = 128
MAX_FDS = 64
STACK_SLOTS = 8192
# Linear memory reserved per instance (64 MiB; memory.grow fails beyond): the default 16 pages
# are too few for malloc-heavy programs, and lavapipe's storage buffer range caps one
# instance's memory at 128 MiB.
MEMORY_PAGES = 1024


def _file_system(files: Mapping[str, bytes] | None, preopens: Sequence[str]):
    """(files to embed, preopen name, prefix to put back on the files read after the run)."""
    files = dict(files or {})
    if not preopens:  # nothing preopened, as `wasmtime run` without --dir
        if files:
            raise NotImplementedError("files without a preopened directory")
        return {}, None, ""
    if len(preopens) != 1:
        raise NotImplementedError(f"wasmgpu preopens one directory (the root), got {list(preopens)}")
    name = preopens[0]
    if name in (".", "/"):
        prefix = ""
    else:
        prefix = name.rstrip("/") + "/"
        outside = [path for path in files if not path.startswith(prefix)]
        if outside:
            raise NotImplementedError(f"files outside the preopened {name!r}: {outside[:3]}")
        files = {path[len(prefix):]: content for path, content in files.items()}
    embedded = {path: content for path, content in files.items() if not path.endswith("/")}
    return embedded, name, prefix


def make_engine(device: str = "cpu", instances: int = 1, execution: str = "auto", **spawn_options):
    """``execution``: the modules' mode ("auto": compiled mode on the cpu device)."""
    where = {"device": "cpu"} if device == "cpu" else {"allow_software": True}
    where.update(spawn_options)

    def run(module: bytes, args: Sequence[str] = ("main",), env: Mapping[str, str] | None = None,
            stdin: bytes = b"", files: Mapping[str, bytes] | None = None, preopens: Sequence[str] = (".",),
            *, timeout: float | None = None) -> WasiResult:
        del timeout  # fuel bounds the run instead
        embedded, preopen, prefix = _file_system(files, preopens)
        wasi = wasmgpu.Wasi(args=list(args), env=dict(env or {}), stdin=stdin, files=embedded,
                            storage_size=STORAGE_SIZE, max_files=MAX_FILES, max_fds=MAX_FDS, preopen=preopen)
        loaded = wasmgpu.Module(module, execution=execution)
        options = {"stack_size": STACK_SLOTS, "max_resident_bytes": None, "fuel": 2_000_000_000}
        if loaded._native.memory_limits is not None:
            low, high = loaded._native.memory_limits
            options["memory_pages"] = max(low, min(MEMORY_PAGES, 65535 if high is None else high))
        options.update(where)
        with loaded.spawn(instances, wasi=wasi, **options) as spawned:
            trap = None
            try:
                spawned.call("_start")
            except wasmgpu.Trap as error:
                reason = error.traps.get(0)
                if reason != "WASI proc_exit":
                    trap = reason
            exit_code = spawned.exit_codes[0]
            if exit_code is None:
                exit_code = TRAP_EXIT_CODE if trap is not None else 0
            tree = {prefix + path: content for path, content in spawned.files(instance=0).items()}
            return WasiResult(exit_code=exit_code, stdout=spawned.stdout[0], stderr=spawned.stderr[0], files=tree,
                              trap=trap)

    return run


# For `python tests/wasi/testsuite.py --engine wasmgpu_engine:cpu` (and :cpu_interpreter, :gpu,
# :gpu_interpreter).
cpu = make_engine("cpu")
cpu_interpreter = make_engine("cpu", execution="interpreter")
gpu = make_engine("gpu")
gpu_interpreter = make_engine("gpu", execution="interpreter")
