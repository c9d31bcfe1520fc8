"""bench/wave_gpu_shader_costs.py runs and reports every figure for both kernels, checked and
unchecked. Its values are not asserted: they describe the generated code, which may change."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "wave_gpu_shader_costs.py"


@pytest.mark.skipif(shutil.which("spirv-opt") is None or shutil.which("spirv-dis") is None,
                    reason="the counter needs spirv-opt and spirv-dis (Debian: spirv-tools)")
def test_the_shader_cost_counter_reports_both_kernels():
    result = subprocess.run([sys.executable, str(BENCH), "--json"], capture_output=True, text=True, check=True,
                            env=dict(os.environ), timeout=600)
    report = json.loads(result.stdout)
    assert report["target"]
    for name, unit in (("vector_add", "per element"), ("sgemm", "per FMA")):
        assert report[name]["unit"] == unit
        for setting in ("checked", "unchecked"):
            figures = report[name][setting]
            assert figures["instructions"] > 0 and figures["buffer loads"] > 0, figures
    assert report["sgemm"]["checked"]["fma"] == pytest.approx(1.0)  # the weights cover the k loop once
