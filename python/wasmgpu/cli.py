"""``python -m wasmgpu``: run a WASI command on many instances, or list the devices.

    python -m wasmgpu run [--instances N] [--env K=V] [--file GUEST=HOSTPATH] [--dir HOSTDIR[::GUESTDIR]]
                          [--stdin FILE]
                          [--fuel N] [--device cpu|gpu|NAME] [--invoke EXPORT] [--output-dir DIR]
                          [--execution MODE] [--memory-pages N] [--stack-size SLOTS]
                          [--call-depth N] [--storage-size BYTES] [--max-files N] [--max-fds N]
                          MODULE.wasm [ARGS...]
    python -m wasmgpu compile [--device cpu|gpu|NAME] [--tier fast|optimized|host]
                              [--compile-limit N] [--quiet] MODULE.wasm
    python -m wasmgpu info

``compile`` builds every unit of MODULE.wasm's compiled mode for the device (the cpu device by
default) into the disk cache, on every core, like ``wasmtime compile``: a later Module of the
same file and compile limit, in any process, loads the units instead of building them.
``run`` calls ``_start`` (or ``--invoke EXPORT``) on every instance, writes instance 0's
stdout and stderr to ours and exits with instance 0's exit code, like ``wasmtime run``, and
runs what it runs with no tuning: the file storage, the stack and (on the cpu device) the
memory are sized for the program, and there is no fuel limit unless ``--fuel`` is given
(run_sizing.py). Host files and directory trees are embedded by value (``--file``, ``--dir``):
nothing is mounted.
``--output-dir`` writes every instance's streams and files. Every error is one line naming
the cause and the option to change, with exit status 1; a trap in instance 0 exits with 134,
as ``wasmtime run``'s.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional

# The exit status of a trapped instance, as `wasmtime run` reports an abort.
TRAP_EXIT_STATUS = 134
ERROR_EXIT_STATUS = 1

# The spawn() and Wasi() arguments an error message may name, and the option that sets each.
OPTION_OF_ARGUMENT = {
    "count": "--instances", "memory_pages": "--memory-pages", "stack_size": "--stack-size",
    "call_depth": "--call-depth", "fuel": "--fuel", "max_resident_bytes": "--max-resident-bytes",
    "storage_size": "--storage-size", "max_files": "--max-files", "max_fds": "--max-fds",
    "batch_size": "--instances", "device": "--device", "args": "ARGS", "env": "--env", "files": "--file",
}


class UsageError(Exception):
    """A mistake in the command line, reported as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's usage and exit 2, as one line and exit 1
        raise UsageError(f"{message} (see {self.prog} --help)")


def _count(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _key_value(text: str) -> tuple:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return key, value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m wasmgpu", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    run = commands.add_parser("run", help="run a WASI command on every instance")
    run.add_argument("module", help="the .wasm file")
    # As `wasmtime run`: everything after the module is the program's (options included).
    run.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments (after its name)")
    run.add_argument("--instances", type=_count, default=1, help="instances to run (default 1)")
    run.add_argument("--env", type=_key_value, action="append", default=[], metavar="K=V")
    run.add_argument("--file", type=_key_value, action="append", default=[], metavar="GUEST=HOSTPATH",
                     help="embed the host file's bytes at GUEST")
    run.add_argument("--dir", action="append", default=[], metavar="HOSTDIR[::GUESTDIR]",
                     help="embed every file under HOSTDIR at GUESTDIR (default: HOSTDIR's name), as wasmtime "
                          "run's --dir names a directory; an absolute GUESTDIR preopens the root as /")
    run.add_argument("--stdin", type=Path, help="a file whose bytes are every instance's stdin")
    run.add_argument("--fuel", type=_count, default=None, help="instructions per instance (default: no limit)")
    run.add_argument("--device", default=None, help="cpu, gpu (the default) or a Vulkan device name")
    run.add_argument("--invoke", default="_start", metavar="EXPORT", help="the export to call (default _start)")
    run.add_argument("--output-dir", type=Path, help="write every instance's stdout, stderr and files here")
    run.add_argument("--allow-software", action="store_true", help="admit software Vulkan adapters (lavapipe)")
    run.add_argument("--max-resident-bytes", type=_count, default=None, help="allocation budget (default: none)")
    run.add_argument("--execution", default="auto", choices=("auto", "compiled", "interpreter"),
                     help="compiled code (auto, the default) or the device interpreter")
    sizing = "default: sized for the program (python/wasmgpu/run_sizing.py)"
    run.add_argument("--memory-pages", type=_count, default=None, metavar="N",
                     help=f"linear memory pages reserved per instance ({sizing})")
    run.add_argument("--stack-size", type=_count, default=None, metavar="SLOTS",
                     help=f"value stack per instance, 64-bit slots ({sizing})")
    run.add_argument("--call-depth", type=_count, default=None, metavar="N", help=f"nested calls ({sizing})")
    run.add_argument("--storage-size", type=_count, default=None, metavar="BYTES",
                     help=f"file storage per instance, stdin and files included ({sizing})")
    run.add_argument("--max-files", type=_count, default=None, metavar="N",
                     help=f"files and directories per instance ({sizing})")
    run.add_argument("--max-fds", type=_count, default=None, metavar="N", help="open descriptors (default 64)")
    compile_ = commands.add_parser("compile", help="build every unit of a module into the disk cache")
    compile_.add_argument("module", help="the .wasm file")
    compile_.add_argument("--device", default="cpu", help="cpu (the default), gpu or a Vulkan device name")
    compile_.add_argument("--tier", choices=("fast", "optimized", "host"), default=None,
                          help="cpu device: the tier to build (default: the best tier of WAVESTACK_WASM_CPU_TIERS)")
    compile_.add_argument("--compile-limit", type=_count, default=256,
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


def _read_host_file(path, option: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"{option} {path}: {error.strerror or error}") from None


def _embedded_dirs(specs) -> tuple:
    """({guest path: bytes} of every regular file under each --dir, whether a guest directory is
    absolute). The files are embedded by value, as --file's: nothing is mounted."""
    files, absolute = {}, False
    for spec in specs:
        host, _, guest = spec.partition("::")
        guest = guest or os.path.basename(os.path.normpath(host))
        root = Path(host)
        if not root.is_dir():
            raise UsageError(f"--dir {host}: no such directory")
        absolute = absolute or guest.startswith("/")
        prefix = guest.strip("/")
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                relative = path.relative_to(root).as_posix()
                files[f"{prefix}/{relative}" if prefix else relative] = _read_host_file(path, "--dir")
    return files, absolute


def _trap_hint(reason: str, spawn: dict) -> str:
    """What to change when instance 0 stopped for a limit the command set."""
    if reason.startswith("call stack exhausted"):
        return (f" (the stack holds {spawn['stack_size']} slots and {spawn['call_depth']} nested calls: "
                "raise --stack-size or --call-depth)")
    if reason.startswith("fuel exhausted"):
        return f" (--fuel {spawn['fuel']} instructions ran out: raise --fuel, or leave it out for no limit)"
    return ""


def _run(options) -> int:
    import wasmgpu
    from wasmgpu.run_sizing import spawn_defaults

    files, absolute = _embedded_dirs(options.dir)
    files.update({guest.lstrip("/"): _read_host_file(host, "--file") for guest, host in options.file})
    absolute = absolute or any(guest.startswith("/") for guest, _ in options.file)
    stdin = _read_host_file(options.stdin, "--stdin") if options.stdin else b""
    if not os.path.exists(options.module):
        raise UsageError(f"MODULE {options.module}: no such file")
    arguments = list(options.args)
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    program = [os.path.basename(options.module)] + arguments
    # The program's stderr is ours: progress of unit builds only where a person watches (a
    # terminal), unless WAVESTACK_PROGRESS asks for it.
    progress = None if sys.stderr.isatty() or os.environ.get("WAVESTACK_PROGRESS") else False
    module = wasmgpu.Module(options.module, execution=options.execution, progress=progress)
    sized = spawn_defaults(module, files, stdin, options.instances, options.device == "cpu")
    chosen = {name: getattr(options, name) for name in ("storage_size", "max_files", "stack_size", "call_depth",
                                                         "memory_pages", "fuel")}
    sized.update({name: value for name, value in chosen.items() if value is not None})
    wasi = wasmgpu.Wasi(args=program, env=dict(options.env), stdin=stdin, files=files,
                        storage_size=sized.pop("storage_size"), max_files=sized.pop("max_files"),
                        preopen="/" if absolute else ".", **({"max_fds": options.max_fds} if options.max_fds else {}))
    spawn = dict(sized, device=options.device, allow_software=options.allow_software,
                 max_resident_bytes=options.max_resident_bytes)
    with module.spawn(options.instances, wasi=wasi, **spawn) as instances:
        trap = None
        try:
            if "_initialize" in module.exports and options.invoke != "_initialize":
                instances.call("_initialize")
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
            reason = trap.traps[0]
            print(f"wasmgpu: instance 0 trapped: {reason}{_trap_hint(reason, sized)}", file=sys.stderr)
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
        # The cpu device counts a precompile's units apart; a Vulkan device's are its pipeline builds.
        made = counters["units_precompiled"] if options.device == "cpu" else counters["units_compiled"]
        where = options.device if options.tier is None else f"{options.device}, {options.tier} tier"
        print(f"wasmgpu: {os.path.basename(options.module)}: {units} units ready for {where} in "
              f"{time.perf_counter() - start:.1f} s ({made} built or loaded now)", file=sys.stderr)
    return 0


def _error_line(error: BaseException) -> str:
    """One line: the message, and the option that sets the argument it names."""
    message = " ".join(str(error).split()) or type(error).__name__
    argument = message.split(":", 1)[0]
    option = OPTION_OF_ARGUMENT.get(argument)
    if option is not None and option not in message:
        message += f" (option {option})"
    return f"wasmgpu: {message}"


def main(argv: Optional[List[str]] = None) -> int:
    try:
        options = _parser().parse_args(argv)
        if options.command == "info":
            return _info()
        if options.command == "compile":
            return _compile(options)
        return _run(options)
    except KeyboardInterrupt:
        print("wasmgpu: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exit_:  # --help, and argparse's own exits
        return exit_.code if isinstance(exit_.code, int) else ERROR_EXIT_STATUS
    except Exception as error:  # noqa: BLE001 - a command line reports every error as one line, never a traceback
        print(_error_line(error), file=sys.stderr)
        return ERROR_EXIT_STATUS


__all__ = ["main"]
