"""Running a real WASI command on wasmgpu as ``python -m wasmgpu run`` does (the command's sizing,
wasmgpu.run_sizing: file storage for what is embedded, a deep stack, memory up to the module's
maximum on the cpu device, no fuel limit), for the tests of yosys and CPython.

The execution mode is one setting: ``EXECUTION`` (WAVESTACK_REAL_PROGRAMS_EXECUTION), "auto"
(compiled mode, what a user gets: its baseline compiler builds a program of thousands of functions
as it runs, in seconds) unless set to "interpreter". The tests print which mode ran.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import wasmgpu
from oracles import TRAP_EXIT_CODE, WasiResult
from wasmgpu.run_sizing import spawn_defaults

EXECUTION = os.environ.get("WAVESTACK_REAL_PROGRAMS_EXECUTION", "auto")

_modules: dict[tuple[int, str], wasmgpu.Module] = {}


def module_of(binary: bytes, execution: str = EXECUTION) -> wasmgpu.Module:
    """One Module per program and mode for the session (decoding 8,000 functions takes a while)."""
    key = (hash(binary), execution)
    if key not in _modules:
        _modules[key] = wasmgpu.Module(binary, execution=execution)
    return _modules[key]


def spawn_command(binary: bytes, args: Sequence[str], env: Mapping[str, str] | None = None,
                  files: Mapping[str, bytes] | None = None, preopen: str = ".", instances: int = 1,
                  execution: str = EXECUTION):
    """The spawned instances of a command, sized as ``python -m wasmgpu run --device cpu`` sizes it."""
    module = module_of(binary, execution)
    files = dict(files or {})
    sized = spawn_defaults(module, files, b"", instances, on_cpu=True)
    wasi = wasmgpu.Wasi(args=list(args), env=dict(env or {}), files=files, preopen=preopen,
                        storage_size=sized.pop("storage_size"), max_files=sized.pop("max_files"))
    return module.spawn(instances, wasi=wasi, device="cpu", max_resident_bytes=None, **sized)


def finish(instances) -> list[WasiResult]:
    """Runs _start on every instance; each instance's result, as the oracles report one."""
    traps = {}
    try:
        instances.call("_start")
    except wasmgpu.Trap as error:
        traps = {i: reason for i, reason in error.traps.items() if reason != "WASI proc_exit"}
    results = []
    for i in range(instances.count):
        exit_code = instances.exit_codes[i]
        if exit_code is None:
            exit_code = TRAP_EXIT_CODE if i in traps else 0
        results.append(WasiResult(exit_code=exit_code, stdout=instances.stdout[i], stderr=instances.stderr[i],
                                  files=instances.files(instance=i), trap=traps.get(i)))
    return results


def run_command(binary: bytes, args: Sequence[str], env: Mapping[str, str] | None = None,
                files: Mapping[str, bytes] | None = None, preopen: str = ".",
                execution: str = EXECUTION) -> tuple[WasiResult, wasmgpu.CallStats]:
    with spawn_command(binary, args, env, files, preopen, 1, execution) as instances:
        return finish(instances)[0], instances.last_call
