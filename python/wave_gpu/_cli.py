"""Argument parsing and commands of `python -m wave_gpu`: info, selftest, compile."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from wave_gpu import _native


def _format_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _info(_: argparse.Namespace) -> int:
    status = _native.vulkan_status()
    devices = _native.list_devices()
    print(f"wave_gpu {_native.__version__}")
    if not status["available"]:
        print(f"No GPU found: {status['reason']}. Kernels run on the emulator.")
        return 0
    if not devices:
        print("No GPU found: the Vulkan loader reports no devices. Kernels run on the emulator.")
        return 0
    rows = []
    for device in devices:
        memory_gib = device["limits"]["device_local_memory_bytes"] / 2**30
        rows.append([
            str(device["index"]),
            device["vendor"],
            device["name"],
            device["type"] + (" (software)" if device["is_software"] else ""),
            device["api_version"],
            str(device["subgroup_size"]),
            str(device["limits"]["max_workgroup_invocations"]),
            f"{device['limits']['max_shared_memory_bytes'] // 1024} KiB",
            f"{memory_gib:.1f} GiB",
            ",".join(name for name in ("int64", "float64", "float16", "int64_atomics", "float32_atomic_add",
                                       "float32_denorm_preserve", "float32_inf_nan_preserve")
                     if device["features"][name]) or "-",
        ])
    print(_format_table(rows, ["#", "vendor", "name", "type", "vulkan", "subgroup", "max wg", "shared",
                               "memory", "features"]))
    selected = _native.select_device(False)
    if selected is None:
        allowed = _native.software_gpu_allowed_by_environment()
        hint = "" if allowed else " (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        print(f"No hardware GPU found{hint}. Kernels run on the emulator.")
    else:
        print(f"Selected: #{selected['index']} {selected['name']}")
    return 0


def _selftest(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(args.seed)
    a = rng.standard_normal(args.n, dtype=np.float32)
    b = rng.standard_normal(args.n, dtype=np.float32)
    report = _native.vector_add_selftest(a, b, device_index=args.device, allow_software=args.allow_software)
    out = np.frombuffer(report["out"], dtype=np.float32)
    ok = np.array_equal(out, a + b)
    device = report["device"]
    print(f"vector add of {args.n} floats on #{device['index']} {device['name']}: {'OK' if ok else 'MISMATCH'}")
    cached = "SPIR-V from disk cache" if report["spirv_from_cache"] else "compiled with glslang"
    print(f"  compile {report['compile_ms']:.2f} ms ({cached}), upload {report['upload_ms']:.2f} ms, "
          f"dispatch {report['dispatch_ms']:.2f} ms, download {report['download_ms']:.2f} ms")
    return 0 if ok else 1


def _load_kernel(target: str):
    """The kernel NAME of FILE.py, for a target written FILE.py:NAME."""
    import importlib.util
    from pathlib import Path

    from wave_gpu._kernel import Kernel

    path, separator, name = target.rpartition(":")
    if not separator or not path or not name:
        raise ValueError(f"target: expected FILE.py:NAME, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"target: no file {path!r}")
    spec = importlib.util.spec_from_file_location(f"_wave_gpu_target_{file.stem}", file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    kernel = getattr(module, name, None)
    if not isinstance(kernel, Kernel):
        raise ValueError(f"target: {path} has no @wave_gpu.kernel named {name!r}")
    return kernel


def _compile(args: argparse.Namespace) -> int:
    from wave_gpu._errors import CompileError

    kernel = _load_kernel(args.target)
    try:
        text = kernel.ir
        if args.emit in ("glsl", "spirv"):
            text = kernel.glsl(args.device)
    except CompileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except TypeError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if args.emit == "spirv":
        binary = _native.compile_spirv(text)
        if args.output:
            with open(args.output, "wb") as output:
                output.write(binary)
        elif sys.stdout.isatty():
            print("error: SPIR-V is binary; pass -o FILE or redirect the output", file=sys.stderr)
            return 1
        else:
            sys.stdout.flush()
            sys.stdout.buffer.write(binary)
        return 0
    if args.output:
        with open(args.output, "w", encoding="utf-8") as output:
            output.write(text)
    else:
        print(text, end="")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wave_gpu")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("info", help="list the Vulkan devices and the one kernels would use").set_defaults(run=_info)
    selftest = commands.add_parser("selftest", help="run a vector add on a Vulkan device and check it")
    selftest.add_argument("--n", type=int, default=1 << 20, help="number of elements (default 1048576)")
    selftest.add_argument("--seed", type=int, default=0)
    selftest.add_argument("--device", type=int, default=None, help="device index from `info` (default: best)")
    selftest.add_argument("--allow-software", action="store_true", help="allow a software adapter such as lavapipe")
    selftest.set_defaults(run=_selftest)
    compile_ = commands.add_parser("compile", help="compile a kernel and print its WAVE IR, GLSL or SPIR-V")
    compile_.add_argument("target", help="FILE.py:NAME, a @wave_gpu.kernel of that file (parameters annotated)")
    compile_.add_argument("--emit", choices=["ir", "glsl", "spirv"], default="ir",
                          help="what to print (default: ir); spirv is binary")
    compile_.add_argument("--device", default=None,
                          help="GLSL/SPIR-V for this device (name or index); default: every optional feature")
    compile_.add_argument("-o", "--output", default=None, help="write to this file instead of standard output")
    compile_.set_defaults(run=_compile)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (RuntimeError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
