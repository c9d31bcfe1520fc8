#!/usr/bin/env python3
"""Lists the Vulkan devices and runs the smoke dispatch (a vector add checked against NumPy)."""

import numpy as np

from wave_gpu import _cli, _native

_cli.main(["info"])

device = _native.select_device(False)
allow_software = False
if device is None:
    devices = _native.list_devices()
    software = [d for d in devices if d["is_software"]]
    if not software:
        print("No Vulkan device at all: the smoke dispatch cannot run here.")
        raise SystemExit(0)
    # Selection never picks a software adapter by itself; this demo opts in explicitly.
    device, allow_software = software[0], True
    print(f"No hardware GPU: running the smoke dispatch on the software adapter {device['name']} (demo opt-in).")

rng = np.random.default_rng(2026)
n = 1 << 20
a = rng.standard_normal(n, dtype=np.float32)
b = rng.standard_normal(n, dtype=np.float32)
for attempt in ("first run", "second run"):
    report = _native.vector_add_selftest(a, b, device_index=device["index"], allow_software=allow_software)
    out = np.frombuffer(report["out"], dtype=np.float32)
    status = "matches NumPy" if np.array_equal(out, a + b) else "MISMATCH"
    source = "SPIR-V from disk cache" if report["spirv_from_cache"] else "compiled with glslang"
    print(f"{attempt}: vector add of {n} floats on {device['name']}: {status}; compile {report['compile_ms']:.1f} ms "
          f"({source}), upload {report['upload_ms']:.1f} ms, dispatch {report['dispatch_ms']:.1f} ms, "
          f"download {report['download_ms']:.1f} ms")
    if status != "matches NumPy":
        raise SystemExit(1)
