"""The three packages import, agree on one version, and stay independent of each other."""

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def project_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)


def test_every_package_imports_with_the_project_version():
    import cudecomp
    import wasmgpu
    import wave_gpu

    for package in (wave_gpu, wasmgpu):
        assert package.__version__ == project_version()
    # cudecomp's host build carries the local label upstream's CPU-only build reports.
    assert cudecomp.__version__ == project_version() + "+cpu"


def test_importing_cudecomp_never_opens_vulkan():
    # /proc/self/maps lists every shared object the process has mapped.
    result = run_python("import cudecomp; print(open('/proc/self/maps').read())")
    assert result.returncode == 0, result.stderr
    assert "libvulkan" not in result.stdout


def test_importing_wave_gpu_never_loads_mpi():
    result = run_python("import wave_gpu, wasmgpu; print(open('/proc/self/maps').read())")
    assert result.returncode == 0, result.stderr
    assert "libmpi" not in result.stdout


def test_info_lists_devices_as_a_table(vulkan_device):
    result = subprocess.run([sys.executable, "-m", "wave_gpu", "info"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("#"))
    for column in ("vendor", "name", "type", "subgroup", "memory"):
        assert column in header
    assert any(vulkan_device["name"] in line for line in lines)
    assert f"Selected: #{vulkan_device['index']} {vulkan_device['name']}" in result.stdout


def test_without_a_vulkan_loader_packages_import_and_info_says_no_gpu():
    env = {"WAVESTACK_VULKAN_LIBRARY": "/nonexistent/libvulkan.so.1"}
    imported = run_python("import wave_gpu, wasmgpu, cudecomp; from wave_gpu import _native; "
                          "print(_native.list_devices(), _native.vulkan_status()['available'])", **env)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "[] False"
    info = subprocess.run([sys.executable, "-m", "wave_gpu", "info"], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=120)
    assert info.returncode == 0, info.stderr
    assert "No GPU found" in info.stdout


def test_without_a_driver_the_device_list_is_empty():
    # The loader exists but finds no driver manifest: an answer, never a crash.
    result = run_python("from wave_gpu import _native; print(_native.list_devices())",
                        VK_ICD_FILENAMES="/nonexistent.json", VK_DRIVER_FILES="/nonexistent.json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_selftest_vector_add_matches_numpy(vulkan_device, tmp_path):
    from wave_gpu import _native

    rng = np.random.default_rng(1234)
    a = rng.standard_normal(100_003, dtype=np.float32)
    b = rng.standard_normal(100_003, dtype=np.float32)
    report = _native.vector_add_selftest(a, b, device_index=vulkan_device["index"], allow_software=True)
    np.testing.assert_array_equal(np.frombuffer(report["out"], dtype=np.float32), a + b)
    for phase in ("compile_ms", "upload_ms", "dispatch_ms", "download_ms"):
        assert report[phase] >= 0.0


def test_selftest_rejects_mismatched_inputs_before_any_work():
    from wave_gpu import _native

    try:
        _native.vector_add_selftest(np.zeros(3, np.float32), np.zeros(4, np.float32), allow_software=True)
    except ValueError as error:
        assert str(error).startswith("b:")
    else:
        raise AssertionError("expected ValueError")


def test_second_process_reads_spirv_from_the_disk_cache(vulkan_device, tmp_path):
    code = ("import numpy as np; from wave_gpu import _native; "
            f"r = _native.vector_add_selftest(np.ones(8, np.float32), np.ones(8, np.float32), "
            f"device_index={vulkan_device['index']}, allow_software=True); print(r['spirv_from_cache'])")
    first = run_python(code, WAVESTACK_CACHE_DIR=str(tmp_path))
    second = run_python(code, WAVESTACK_CACHE_DIR=str(tmp_path))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.strip() == "False"
    assert second.stdout.strip() == "True"
