"""cuDecomp's performance report (CUDECOMP_ENABLE_PERFORMANCE_REPORT and its settings, upstream
since 0.5.1) on 2 ranks through the Python API: which configurations get rows, how many samples
each keeps (warmup calls left out, the latest SAMPLES kept), the per-sample lines of every rank,
the CSV files (upstream's names and columns) agreeing with the printed tables, the bytes behind
the bandwidth columns (from the pencil geometry), and the warnings for invalid settings."""

import csv
import re

import pytest

from mpi_harness import run_mpi

# decomp_perf_report_worker.py on 2 ranks: gdims (8, 6, 4), pdims (2, 1).
# X->Y: each rank sends the other the part of its X-pencil (8 x 3 x 4) that the other's Y-pencil
# (4 x 6 x 4) holds: 4 x 3 x 4 = 48 elements.
XY_BYTES = {"D": 48 * 8, "S": 48 * 4}
# X-pencil halo update along Y, periodic on 2 ranks: a face of 8 x 4 doubles to each neighbour.
HALO_BYTES = 2 * 8 * 4 * 8
ALL_SETTINGS = ("CUDECOMP_ENABLE_PERFORMANCE_REPORT", "CUDECOMP_PERFORMANCE_REPORT_DETAIL",
                "CUDECOMP_PERFORMANCE_REPORT_SAMPLES", "CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES",
                "CUDECOMP_PERFORMANCE_REPORT_WRITE_DIR")
GRID_SUFFIX = "tcomm_1-hcomm_1-pdims_2x1-gdims_8x6x4-memorder_012012012.csv"


def run_worker(monkeypatch, settings, xy=7, yz=1, halo=4, in_place=3):
    for name in ALL_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in settings.items():
        monkeypatch.setenv(name, str(value))
    return run_mpi(2, "decomp_perf_report_worker.py", str(xy), str(yz), str(halo), str(in_place), timeout=120).output


def table_rows(output, title):
    """The rows of one printed table: {(operation, dtype, ...configuration): [samples, total, comm, local, bw]}."""
    lines = output.splitlines()
    start = lines.index(f"CUDECOMP: {title} Performance Data:")
    rows = {}
    for line in lines[start + 5:]:
        fields = line[len("CUDECOMP: "):].split()
        if not fields or not fields[0].startswith(("Transpose", "Halo")):
            break
        rows[tuple(fields[:-5])] = [int(fields[-5])] + [float(value) for value in fields[-4:]]
    return rows


def read_csv(path):
    with open(path) as file:
        lines = [line for line in file if not line.startswith("#")]
    return list(csv.DictReader(lines))


def check_split(total, comm, local, bandwidth, sent_bytes):
    # Printed with 3 decimals: local = total - comm, and bandwidth = bytes / comm time.
    assert abs(local - (total - comm)) <= 0.0015
    assert total >= comm >= 0
    if comm >= 0.002:
        assert abs(bandwidth * comm - sent_bytes * 1e-6) <= 0.0005 * (bandwidth + comm) + 1e-6


def test_report_rows_samples_files_and_bytes(monkeypatch, tmp_path):
    output = run_worker(monkeypatch, {"CUDECOMP_ENABLE_PERFORMANCE_REPORT": 1,
                                      "CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES": 2,
                                      "CUDECOMP_PERFORMANCE_REPORT_SAMPLES": 3,
                                      "CUDECOMP_PERFORMANCE_REPORT_DETAIL": 2,
                                      "CUDECOMP_PERFORMANCE_REPORT_WRITE_DIR": tmp_path})
    assert output.count("===== Performance Summary =====") == 1, output  # rank 0 only
    for line in ("CUDECOMP:\tTranspose backend: MPI_P2P", "CUDECOMP:\tHalo backend: MPI",
                 "CUDECOMP:\tProcess grid: [2, 1]", "CUDECOMP:\tGlobal dimensions: [8, 6, 4]",
                 "CUDECOMP:\tMemory order: [0,1,2]; [0,1,2]; [0,1,2]"):
        assert line in output.splitlines(), output

    transposes = table_rows(output, "Transpose")
    # 7 out-of-place double calls: 2 warmup, then the latest 3 of 5; 3 in-place float calls: 1
    # left; the single Y->Z call is all warmup, so it has no row. Upstream's order: S before D.
    no_halos = ("[0,0,0]/[0,0,0]", "[0,0,0]/[0,0,0]")
    assert list(transposes) == [("TransposeXY", "S", *no_halos, "T", "F"), ("TransposeXY", "D", *no_halos, "F", "F")]
    assert [row[0] for row in transposes.values()] == [1, 3]
    halos = table_rows(output, "Halo")
    assert list(halos) == [("HaloX", "D", "1", "[0,1,0]", "[0,1,0]", "[0,0,0]", "F")]
    assert halos[("HaloX", "D", "1", "[0,1,0]", "[0,1,0]", "[0,0,0]", "F")][0] == 2

    # The aggregated CSV files: upstream's names, the printed numbers.
    aggregated = read_csv(tmp_path / f"cudecomp-perf-report-transpose-aggregated-{GRID_SUFFIX}")
    assert [(row["operation"], row["dtype"], row["inplace"], int(row["samples"])) for row in aggregated] == \
        [("TransposeXY", "S", "T", 1), ("TransposeXY", "D", "F", 3)]
    for row, printed in zip(aggregated, transposes.values()):
        assert [float(row[key]) for key in ("total_ms", "A2A_ms", "local_ms", "A2A_BW_GBps")] == printed[1:]
        assert row["input_halo_extents"] == row["output_padding"] == "[0,0,0]"
    halo_rows = read_csv(tmp_path / f"cudecomp-perf-report-halo-aggregated-{GRID_SUFFIX}")
    assert [(row["operation"], row["dim"], row["periods"], int(row["samples"])) for row in halo_rows] == \
        [("HaloX", "1", "[0,1,0]", 2)]

    # Detail 2: every rank's samples, printed and in the per-sample files.
    samples = read_csv(tmp_path / f"cudecomp-perf-report-transpose-samples-{GRID_SUFFIX}")
    assert [(row["dtype"], row["rank"], row["sample"]) for row in samples] == \
        [("S", "0", "0"), ("S", "1", "0")] + [("D", r, s) for r in "01" for s in "012"]
    for row in samples:
        check_split(*(float(row[key]) for key in ("total_ms", "A2A_ms", "local_ms", "A2A_BW_GBps")),
                    XY_BYTES[row["dtype"]])
        assert float(row["A2A_ms"]) > 0  # every X->Y here sends to the other rank
    halo_samples = read_csv(tmp_path / f"cudecomp-perf-report-halo-samples-{GRID_SUFFIX}")
    assert [(row["rank"], row["sample"]) for row in halo_samples] == [("0", "0"), ("0", "1"), ("1", "0"), ("1", "1")]
    for row in halo_samples:
        check_split(*(float(row[key]) for key in ("total_ms", "SR_ms", "local_ms", "SR_BW_GBps")), HALO_BYTES)
    printed_samples = re.findall(r"^CUDECOMP: (\d+) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) *$", output,
                                 re.MULTILINE)
    assert len(printed_samples) == len(samples) + len(halo_samples)


def test_detail_one_prints_rank_zero_samples_only(monkeypatch):
    output = run_worker(monkeypatch, {"CUDECOMP_ENABLE_PERFORMANCE_REPORT": 1,
                                      "CUDECOMP_PERFORMANCE_REPORT_DETAIL": 1}, xy=5, yz=4, halo=0, in_place=0)
    # The default warmup (3) and capacity (20): 2 X->Y samples, 1 Y->Z sample, on rank 0.
    assert [row[0] for row in table_rows(output, "Transpose").values()] == [2, 1]
    assert "Halo Performance Data" not in output
    printed_samples = re.findall(r"^CUDECOMP: (\d+) +(\d+) +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ *$", output, re.MULTILINE)
    assert printed_samples == [("0", "0"), ("0", "1"), ("0", "0")]


def test_disabled_report_prints_and_writes_nothing(monkeypatch, tmp_path):
    output = run_worker(monkeypatch, {"CUDECOMP_PERFORMANCE_REPORT_WRITE_DIR": tmp_path})
    assert "CUDECOMP:" not in output
    assert list(tmp_path.iterdir()) == []
    output = run_worker(monkeypatch, {"CUDECOMP_ENABLE_PERFORMANCE_REPORT": 0})
    assert "CUDECOMP:" not in output


def test_invalid_settings_warn_and_keep_defaults(monkeypatch):
    output = run_worker(monkeypatch, {"CUDECOMP_ENABLE_PERFORMANCE_REPORT": 1,
                                      "CUDECOMP_PERFORMANCE_REPORT_DETAIL": 5,
                                      "CUDECOMP_PERFORMANCE_REPORT_SAMPLES": 0,
                                      "CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES": -1}, xy=25)
    for warning in ("CUDECOMP:WARN: Invalid CUDECOMP_PERFORMANCE_REPORT_DETAIL value (5). Using default (0).",
                    "CUDECOMP:WARN: Invalid CUDECOMP_PERFORMANCE_REPORT_SAMPLES value (0). Using default (20).",
                    "CUDECOMP:WARN: Invalid CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES value (-1). Using default (3)."):
        assert output.count(warning) == 1, output  # rank 0 only
    # Defaults: 25 calls - 3 warmup = 22, of which the latest 20 are kept; detail 0.
    assert table_rows(output, "Transpose")[("TransposeXY", "D", "[0,0,0]/[0,0,0]", "[0,0,0]/[0,0,0]", "F", "F")][0] == 20
    assert "Per-Sample Details" not in output


@pytest.mark.parametrize("value", ["1", "yes"])
def test_enable_flag_is_an_integer_as_upstream_reads_it(monkeypatch, value):
    # Upstream reads the flag with strtol: "1" enables it, a word is 0 and leaves it off.
    output = run_worker(monkeypatch, {"CUDECOMP_ENABLE_PERFORMANCE_REPORT": value}, xy=4, yz=0, halo=0, in_place=0)
    assert ("===== Performance Summary =====" in output) == (value == "1")
