#!/usr/bin/env python3
"""Draws the performance page's plots from the benchmarks' JSON reports.

Each benchmark that writes a JSON report has a plot here:

- ``wasmgpu.json`` (``bench/wasmgpu.py``): steady ns per instance against the instance count,
  one panel per workload, one line per engine.
- ``wasmgpu_cold.json`` (``bench/wasmgpu_cold.py``): seconds to a program's first result in a
  fresh process, cold and warm cache, ours beside Wasmtime, one group of bars per program.

``make docs`` plots the reports recorded in ``docs/benchmark-data`` (copies of bench/results
files from the runs the performance page quotes). To plot fresh runs, pass
``--results bench/results``; to update the page, copy the new reports into docs/benchmark-data.
A report that is missing or lacks the fields a plot needs is an error (exit status 1), so the
page never shows a stale or empty figure.

    python scripts/plot_benchmarks.py [--results docs/benchmark-data] [--output build/docs-plots]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the non-interactive backend

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS = ROOT / "docs" / "benchmark-data"
DEFAULT_OUTPUT = ROOT / "build" / "docs-plots"


class ReportError(Exception):
    """A report that cannot be plotted: missing, unreadable or without the expected fields."""


def load_report(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ReportError(f"{path}: no such report (run the benchmark, or copy its report there)") from None
    except json.JSONDecodeError as error:
        raise ReportError(f"{path}: not JSON ({error})") from None


def plot_engines(report: dict, output: Path) -> Path:
    """bench/wasmgpu.py: ns per instance (steady calls) against instances, per workload and engine."""
    rows = [row for row in report.get("rows", []) if row.get("status") == "ok"]
    if not rows:
        raise ReportError("wasmgpu.json: no row with status 'ok'")
    workloads = list(dict.fromkeys(row["workload"] for row in rows))
    figure, axes = plt.subplots(1, len(workloads), figsize=(3.6 * len(workloads), 3.8), squeeze=False)
    for axis, workload in zip(axes[0], workloads):
        mine = [row for row in rows if row["workload"] == workload]
        for engine in dict.fromkeys(row["engine"] for row in mine):
            points = sorted((row["instances"], row["ns_per_instance"]) for row in mine if row["engine"] == engine)
            axis.plot(*zip(*points), marker="o", label=engine)
        axis.set(title=workload, xscale="log", yscale="log", xlabel="instances", ylabel="ns per instance")
        axis.grid(True, which="major", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    cores = report.get("hardware", {}).get("cores")
    figure.suptitle(f"bench/wasmgpu.py: steady call time per instance ({cores} cores, lower is better)", fontsize=10)
    figure.tight_layout()
    path = output / "wasmgpu_engines.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


COLD_BARS = ("ours cold", "wasmtime cold", "ours warm", "wasmtime warm")


def plot_first_runs(report: dict, output: Path) -> Path:
    """bench/wasmgpu_cold.py: seconds to the first result, cold and warm, per program."""
    workloads = report.get("workloads") or {}
    if not workloads:
        raise ReportError("wasmgpu_cold.json: no workloads")
    names = list(workloads)
    width = 0.2
    figure, axis = plt.subplots(figsize=(8, 4))
    for offset, bar in enumerate(COLD_BARS):
        try:
            seconds = [workloads[name][bar]["first"] for name in names]
        except KeyError as missing:
            raise ReportError(f"wasmgpu_cold.json: a workload lacks {missing}") from None
        positions = [index + (offset - 1.5) * width for index in range(len(names))]
        axis.bar(positions, seconds, width, label=bar)
    axis.set_xticks(range(len(names)), names)
    axis.set(yscale="log", ylabel="seconds to the first result (log)")
    axis.grid(True, axis="y", which="major", alpha=0.3)
    axis.legend(fontsize=8, ncols=2, loc="upper left")
    cores = report.get("machine", {}).get("cores")
    axis.set_title(f"bench/wasmgpu_cold.py: first runs on the cpu device ({cores} cores, lower is better)", fontsize=10)
    figure.tight_layout()
    path = output / "wasmgpu_first_runs.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


PLOTS = {"wasmgpu.json": plot_engines, "wasmgpu_cold.json": plot_first_runs}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS, help="folder of the JSON reports")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="folder the PNG files are written to")
    options = parser.parse_args(argv)
    options.output.mkdir(parents=True, exist_ok=True)
    failed = False
    for name, draw in PLOTS.items():
        try:
            path = draw(load_report(options.results / name), options.output)
        except ReportError as error:
            print(f"plot_benchmarks: {error}", file=sys.stderr)
            failed = True
            continue
        print(f"plot_benchmarks: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
