"""``python -m wasmgpu``: run a WASI command on many instances, or list the devices.

    python -m wasmgpu run [--instances N] [--env K=V] [--file GUEST=HOSTPATH] [--stdin FILE]
                          [--fuel N] [--device cpu|gpu|NAME] [--invoke EXPORT] [--output-dir DIR]
                          MODULE.wasm [ARGS...]
    python -m wasmgpu compile [--device cpu|gpu|NAME] [--tier fast|optimized|host]
                              [--compile-limit N] [--quiet] MODULE.wasm
    python -m wasmgpu info

``compile`` builds every unit of MODULE.wasm's compiled mode for the device (the cpu device by
default) into the disk cache, on every core, like ``wasmtime compile``: a later Module of the
same file and compile limit, in any process, loads the units instead of building them.
``run`` calls ``_start`` (or ``--invoke EXPORT``) on every instance, writes instance 0's
stdout and stderr to ours and exits with instance 0's exit code, like ``wasmtime run``.
Host files are embedded by value (``--file``): nothing is mounted. ``--output-dir`` writes
every instance's streams and files.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional

# The exit status of a trapped instance, as `wasmtime run` reports an abort.
TRAP_EXIT_STATUS = 134


def _key_value(text: str) -> tuple:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return key, value


def _positive_int(text: str) -> int:
    """--instances: the CLI prints instance 0's output, so there must be one."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m wasmgpu", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a WASI command on every instance")
    run.add_argument("module", help="the .wasm file")
    # As `wasmtime run`: everything after the module is the program's (options included).
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments (after its name)")
    run.add_argument("--instances", type=_positive_int, default=1, help="instances to run (default 1)")
    run.add_argument("--env", type=_key_value, action="append", default=[], metavar="K=V")
    run.add_argument("--file", type=_key_value, action="append", default=[], metavar="GUEST=HOSTPATH",
                     help="embed the host file's bytes at GUEST")
    run.add_argument("--stdin", type=Path, help="a file whose bytes are every instance's stdin")
    run.add_argument("--fuel", type=int, default=None, help="instructions per instance (default: the spawn's)")
    run.add_argument("--device", default=None, help="cpu, gpu (the default) or a Vulkan device name")
    run.add_argument("--invoke", default="_start", metavar="EXPORT", help="the export to call (default _start)")
    run.add_argument("--output-dir", type=Path, help="write every instance's stdout, stderr and files here")
    run.add_argument("--allow-software", action="store_true", help="admit software Vulkan adapters (lavapipe)")
    run.add_argument("--max-resident-bytes", type=int, default=None, help="allocation budget (default: none)")
    compile_ = commands.add_parser("compile", help="build every unit of a module into the disk cache")
    compile_.add_argument("module", help="the .wasm file")
    compile_.add_argument("--device", default="cpu", help="cpu (the default), gpu or a Vulkan device name")
    compile_.add_argument("--tier", choices=("fast", "optimized", "host"), default=None,
                          help="cpu device: the tier to build (default: the best tier of WAVESTACK_WASM_CPU_TIERS)")
    compile_.add_argument("--compile-limit", type=_positive_int, default=256,
                          help="instructions per unit, as the Module that will load them (default 256)")
    compile_.add_argument("--allow-software", action="store_true", help="admit software Vulkan adapters (lavapipe)")
    compile_.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    commands.add_parser("info", help="list the devices wasmgpu can use")
    return parser


def _info() -> int:
    from wasmgpu import _native

    print("cpu: the device interpreter compiled as C++, on a thread pool (device='cpu')")
    devices = _native.list_devices()
    if not devices:
        print("no Vulkan device (the Vulkan loader or a driver is missing)")
    for device in devices:
        software = " (software: needs allow_software=True or WAVESTACK_ALLOW_SOFTWARE_GPU=1)" if device[
            "is_software"] else ""
        print(f"vulkan {device['index']}: {device['name']} [{device['type']}], driver {device['driver_name']}"
              f"{software}")
    selected = _native.select_device(False)
    print(f"default device: {selected['name'] if selected else 'none (pass device=cpu)'}")
    return 0


def _write_outputs(directory: Path, instances) -> None:
    """DIR/<instance>/stdout, stderr, exit_code and files/<path> for every regular file."""
    for i in range(instances.count):
        target = directory / str(i)
        target.mkdir(parents=True, exist_ok=True)
        (target / "stdout").write_bytes(instances.stdout[i])
        (target / "stderr").write_bytes(instances.stderr[i])
        exit_code = instances.exit_codes[i]
        (target / "exit_code").write_text("" if exit_code is None else f"{exit_code}\n")
        for path, data in instances.files(instance=i).items():
            out = target / "files" / path
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


def _run(options) -> int:
    import wasmgpu

    files = {}
    for guest, host in options.file:
        files[guest] = Path(host).read_bytes()
    stdin = options.stdin.read_bytes() if options.stdin else b""
    arguments = list(options.args)
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    program = [os.path.basename(options.module)] + arguments
    wasi = wasmgpu.Wasi(args=program, env=dict(options.env), stdin=stdin, files=files)
    module = wasmgpu.Module(options.module)
    spawn = {"device": options.device, "allow_software": options.allow_software,
             "max_resident_bytes": options.max_resident_bytes}
    if options.fuel is not None:
        spawn["fuel"] = options.fuel
    with module.spawn(options.instances, wasi=wasi, **spawn) as instances:
        if "_initialize" in module.exports and options.invoke != "_initialize":
            instances.call("_initialize")
        trap = None
        try:
            instances.call(options.invoke)
        except wasmgpu.Trap as error:
            trap = error
        sys.stdout.buffer.write(instances.stdout[0])
        sys.stdout.flush()
        sys.stderr.buffer.write(instances.stderr[0])
        if options.output_dir:
            _write_outputs(options.output_dir, instances)
        exit_code = instances.exit_codes[0]
        if exit_code is not None:
            return exit_code
        if trap is not None and 0 in trap.traps:
            print(f"wasmgpu: instance 0 trapped: {trap.traps[0]}", file=sys.stderr)
            return TRAP_EXIT_STATUS
        return 0


def _compile(options) -> int:
    import time

    import wasmgpu
    from wasmgpu import _native

    start = time.perf_counter()
    module = wasmgpu.Module(options.module, execution="compiled", compile_limit=options.compile_limit,
                            progress=False if options.quiet else None)
    module.precompile(options.device, tier=options.tier, allow_software=options.allow_software)
    if not options.quiet:
        units = module.compiled["units"]
        counters = _native.compile_counters(module._native)
        where = options.device if options.tier is None else f"{options.device}, {options.tier} tier"
        print(f"wasmgpu: {os.path.basename(options.module)}: {units} units ready for {where} in "
              f"{time.perf_counter() - start:.1f} s ({counters['units_precompiled']} built or loaded now)",
              file=sys.stderr)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "info":
        return _info()
    if options.command == "compile":
        try:
            return _compile(options)
        except (OSError, ValueError, TypeError, RuntimeError) as error:  # WasmGPUError included
            print(f"wasmgpu compile: {error}", file=sys.stderr)
            return 1
    from wasmgpu.errors import WasmGPUError

    try:
        return _run(options)
    except WasmGPUError as error:  # a user's mistake or missing device: its message, not a traceback
        print(f"wasmgpu: {error}", file=sys.stderr)
        return 2


__all__ = ["main"]
