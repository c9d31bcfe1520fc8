#!/usr/bin/env python3
"""wasmgpu's engines side by side with wasmtime, wasm3 and native C, on six workloads.

Every workload is written once in C (bench/workloads/*.c) and built at run time twice: to
wasm32 with clang (one module for every WebAssembly engine) and natively with cc -O2 (a shared
library called through ctypes). Each instance runs the exported `work` with its instance index
as the argument (plus one workload parameter), so the instances compute different results;
every engine's results are checked against the native build's, and a difference stops the run.

Engines, all measured in one run (`--skip` takes names or patterns such as '*gpu'):

- ours-interpreter-cpu, ours-compiled-cpu: `wasmgpu.Module(..., execution=...)` spawned on the
  cpu device, NumPy arguments in and `results="numpy"` out. The cpu device runs on the runtime's
  thread pool, WAVESTACK_THREADS threads (the core count when unset); `--threads 1`, the
  default, makes its numbers per core like the peers', `--threads 0` uses every core.
  Compiled mode on the cpu device builds every unit at the optimising tier during setup
  (`module.precompile("cpu")`, as `python -m wasmgpu compile` would), so that the steady calls
  time optimised code, not the baseline code a cold call starts in; `--lazy` leaves the units
  to be built as calls reach them (the default plan: baseline first, hot units rebuilt
  optimised in the background).
- ours-interpreter-gpu, ours-compiled-gpu: the same on the selected Vulkan device
  (`--device-gpu`); a software adapter such as lavapipe only with `--allow-software`, and only
  up to `--software-gpu-max-instances` instances because it is slow.
- wasmtime-per-call: the `wasmtime` package, one Python call per instance.
- wasmtime-loop: one WebAssembly loop over all instances in the guest (`batch`) that stores
  every result in linear memory, then the results read into a Python list.
- wasm3: the `pywasm3` interpreter, one Python call per instance.
- native: the C loop over all instances, timed inside the library with the monotonic clock.

An engine that cannot run here (compiled mode not built yet, no GPU, a missing package, a
spawn over the memory budget) gets a row saying why instead of failing the run. Each row has
the first call after setup (which includes any lazy compilation) apart from the median of
`--repeat` later calls, made in rounds of one call per engine so that every engine sees the
same load, and ratios: "vs X" is X's steady time over the row's, so above 1 means
the row's engine is faster than X.

    python bench/wasmgpu.py [--instances 1,100,10000] [--repeat 5] [--skip wasm3] [--plot out.png]
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import fnmatch
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Callable, Dict, List, Optional

# NumPy only makes the inputs; its OpenBLAS threads would otherwise spin on the other cores
# after its first call, beside the engines measured (seen in perf on a 2-core machine).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402 (after the thread setting above)

BENCH_DIR = Path(__file__).resolve().parent
WORKLOADS_DIR = BENCH_DIR / "workloads"
DEFAULT_OUTPUT = BENCH_DIR / "results" / "wasmgpu.json"
MIB = 1024 * 1024

# Run as `python bench/wasmgpu.py`, this folder comes first on sys.path, where `import
# wasmgpu` would find this script instead of the package.
if sys.path and Path(sys.path[0] or ".").resolve() == BENCH_DIR:
    del sys.path[0]

ENGINES = ("ours-interpreter-cpu", "ours-compiled-cpu", "ours-interpreter-gpu", "ours-compiled-gpu",
           "wasmtime-per-call", "wasmtime-loop", "wasm3", "native")
# The peers the ratio columns divide by.
RATIO_BASELINES = {"vs wasm3": "wasm3", "vs native": "native", "vs wt loop": "wasmtime-loop"}


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    source: str           # file in bench/workloads
    result: str           # "i32" or "f64": the type of work's one result
    param_option: Optional[str]  # the argparse destination of the parameter (None: work(x) only)
    uses_memory: bool     # whether work touches linear memory (the others get a zero-page memory)
    description: str


WORKLOADS = (
    Workload("worker", "worker.c", "i32", None, False, "the seed's worker shape, i32 -> i32"),
    Workload("int_loop", "int_loop.c", "i32", "int_rounds", False, "xorshift32 mixing, N rounds"),
    Workload("f64_loop", "f64_loop.c", "f64", "f64_steps", False, "leapfrog steps with div and sqrt, N steps"),
    Workload("sieve", "sieve.c", "i32", "sieve_limit", True, "byte sieve over N bytes of linear memory"),
    Workload("fib", "fib.c", "i32", "fib_base", False, "recursive fib(N + x % 4)"),
    Workload("nbody", "nbody.c", "f64", "nbody_steps", True, "5 bodies in linear memory, N steps (sqrt, division)"),
)
SIEVE_CAPACITY = 60000  # kCapacity in sieve.c


class EngineUnavailable(Exception):
    """The engine cannot run this case here; the message says why and lands in its row."""


class ResultMismatch(Exception):
    """An engine computed something other than the native build: its timings would be worthless."""


# -- building the workloads ------------------------------------------------------------------

def run_tool(command: List[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"build failed: {' '.join(command)}\n{done.stdout}{done.stderr}")


def require_tool(name: str, hint: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"{name} not found: {hint}")
    return path


def wasm_link_flags(workload: Workload) -> List[str]:
    if workload.uses_memory:
        # A 1 KiB stack below the data, so the sieve's array and stack fit one page.
        return ["-Wl,--stack-first", "-Wl,-z,stack-size=1024"]
    # No data and no stack: the module's memory starts with zero pages, so no engine
    # reserves 64 KiB per instance for memory the workload never touches. (`batch`, the
    # wasmtime loop, grows it for its outputs.)
    return ["-Wl,--global-base=0", "-Wl,-z,stack-size=0"]


def source_define(workload: Workload) -> str:
    return f'-DWORKLOAD_SOURCE="{WORKLOADS_DIR / workload.source}"'


def build_wasm(workload: Workload, folder: Path, wasm_dir: Optional[Path] = None) -> bytes:
    """The workload's module; with `wasm_dir`, the one saved there by an earlier run (a machine
    without clang, such as a bare GPU machine, runs modules built elsewhere), else built and saved."""
    if wasm_dir is not None and (wasm_dir / f"{workload.name}.wasm").is_file():
        return (wasm_dir / f"{workload.name}.wasm").read_bytes()
    clang = require_tool("clang", "install clang and lld (apt-get install -y clang lld)")
    require_tool("wasm-ld", "install lld (apt-get install -y lld)")
    output = folder / f"{workload.name}.wasm"
    # -ffp-contract=off in both builds: no fused multiply-add, so f64 results agree bit for bit.
    run_tool([clang, "--target=wasm32", "-nostdlib", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
              f"-I{WORKLOADS_DIR}", source_define(workload), "-Wl,--no-entry", *wasm_link_flags(workload),
              str(WORKLOADS_DIR / "wasm_driver.c"), "-o", str(output)])
    if wasm_dir is not None:
        wasm_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(output, wasm_dir / output.name)
    return output.read_bytes()


def build_native(workload: Workload, folder: Path):
    compiler = require_tool("cc", "install a C compiler (apt-get install -y build-essential)")
    output = folder / f"lib{workload.name}.so"
    run_tool([compiler, "-O2", "-ffp-contract=off", "-fno-math-errno", "-Wall", "-Wextra", "-Werror", "-shared",
              "-fPIC", f"-I{WORKLOADS_DIR}", source_define(workload), str(WORKLOADS_DIR / "native_driver.c"),
              "-o", str(output)])
    batch = ctypes.CDLL(str(output)).bench_batch
    batch.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p]
    batch.restype = ctypes.c_double
    return batch


def read_leb128(data: bytes, at: int):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def declared_memory_pages(binary: bytes) -> int:
    """The minimum of the module's memory (0 without one): what each of our instances must
    reserve, since `spawn`'s default reserves at least 16 pages."""
    at = 8  # magic and version
    while at < len(binary):
        section, at = binary[at], at + 1
        size, at = read_leb128(binary, at)
        if section == 5:  # memory section: count, then limits (flags, minimum, ...)
            count, limits = read_leb128(binary, at)
            return read_leb128(binary, limits + 1)[0] if count else 0
        at += size
    return 0


@dataclasses.dataclass
class BuiltWorkload:
    workload: Workload
    param: int
    wasm: bytes
    memory_pages: int
    native_batch: Callable
    build_seconds: float


def build_workload(workload: Workload, param: int, folder: Path, wasm_dir: Optional[Path] = None) -> BuiltWorkload:
    start = time.perf_counter()
    wasm = build_wasm(workload, folder, wasm_dir)
    native_batch = build_native(workload, folder)
    return BuiltWorkload(workload, param, wasm, declared_memory_pages(wasm), native_batch,
                         time.perf_counter() - start)


# -- results ---------------------------------------------------------------------------------

def comparable(values, kind: str) -> np.ndarray:
    """Results as unsigned bit patterns: engines return i32 signed or unsigned, and f64 must
    agree bit for bit (NaN included), not merely compare equal."""
    if kind == "f64":
        return np.asarray(values, dtype=np.float64).view(np.uint64)
    return (np.asarray(values, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32)


def check_results(engine: str, built: BuiltWorkload, count: int, got: np.ndarray, expected: np.ndarray,
                  which: str) -> None:
    if got.shape == expected.shape and np.array_equal(got, expected):
        return
    if got.shape != expected.shape:
        raise ResultMismatch(f"{engine}, {built.workload.name}, {count} instances, {which}: "
                             f"{got.shape[0]} results, expected {expected.shape[0]}")
    first = int(np.flatnonzero(got != expected)[0])
    view = (lambda bits: float(np.asarray(bits, np.uint64).view(np.float64))) if built.workload.result == "f64" \
        else int
    raise ResultMismatch(f"{engine}, {built.workload.name}, {count} instances, {which}: instance {first} "
                         f"returned {view(got[first])}, native C {view(expected[first])} "
                         f"({int(np.count_nonzero(got != expected))} instances differ)")


def call_stats_as_dict(stats) -> Optional[dict]:
    """`Instances.last_call` as plain data, with whichever timing properties it has
    (compiled mode adds codegen_seconds, compile_seconds and execute_seconds)."""
    if stats is None:
        return None
    if isinstance(stats, Mapping):
        record = dict(stats)
    elif dataclasses.is_dataclass(stats):
        record = dataclasses.asdict(stats)
    else:
        record = dict(vars(stats))
    for name in ("codegen_seconds", "compile_seconds", "execute_seconds", "host_seconds", "total_seconds"):
        if name not in record and hasattr(stats, name):
            record[name] = getattr(stats, name)
    return record


# -- engines -----------------------------------------------------------------------------------
# An engine's start(built, count) returns a session: call() runs `work` on every instance and
# returns the raw results; own_seconds, when set by call(), replaces the wall time around it
# (native times itself); call_stats() and close() are optional.

class Session:
    own_seconds: Optional[float] = None

    def call_stats(self) -> Optional[dict]:
        return None

    def close(self) -> None:
        pass


def instance_arguments(built: BuiltWorkload, count: int) -> list:
    if built.workload.param_option is None:
        return [(i,) for i in range(count)]
    return [(i, built.param) for i in range(count)]


class NativeSession(Session):
    def __init__(self, built: BuiltWorkload, count: int):
        self.built, self.count = built, count
        self.out = np.empty(count, dtype=np.float64 if built.workload.result == "f64" else np.uint32)

    def call(self):
        self.own_seconds = self.built.native_batch(self.count, self.built.param, self.out.ctypes.data)
        return self.out.copy()


class NativeEngine:
    name = "native"

    def start(self, built: BuiltWorkload, count: int) -> Session:
        return NativeSession(built, count)


class WasmtimeSession(Session):
    def __init__(self, built: BuiltWorkload, count: int, per_call: bool):
        import wasmtime

        self.store = wasmtime.Store()
        instance = wasmtime.Instance(self.store, wasmtime.Module(self.store.engine, built.wasm), [])
        exports = instance.exports(self.store)
        self.work, self.batch, self.memory = exports["work"], exports["batch"], exports["memory"]
        self.built, self.count, self.per_call = built, count, per_call
        self.arguments = instance_arguments(built, count)
        self.dtype = np.float64 if built.workload.result == "f64" else np.uint32

    def call(self):
        if self.per_call:
            return [self.work(self.store, *arguments) for arguments in self.arguments]
        address = self.batch(self.store, self.count, self.built.param)
        if address == 0:
            raise EngineUnavailable("batch: memory.grow failed for the outputs")
        size = self.count * np.dtype(self.dtype).itemsize
        return np.frombuffer(self.memory.read(self.store, address, address + size), dtype=self.dtype).tolist()


class WasmtimeEngine:
    def __init__(self, per_call: bool):
        self.per_call = per_call
        self.name = "wasmtime-per-call" if per_call else "wasmtime-loop"

    def start(self, built: BuiltWorkload, count: int) -> Session:
        try:
            import wasmtime  # noqa: F401
        except ImportError as error:
            raise EngineUnavailable(f"the wasmtime package is not installed ({error})") from None
        return WasmtimeSession(built, count, self.per_call)


class Wasm3Session(Session):
    STACK_BYTES = 64 * 1024

    def __init__(self, built: BuiltWorkload, count: int):
        import wasm3

        environment = wasm3.Environment()
        self.runtime = environment.new_runtime(self.STACK_BYTES)
        self.runtime.load(environment.parse_module(built.wasm))
        self.work = self.runtime.find_function("work")
        self.arguments = instance_arguments(built, count)

    def call(self):
        return [self.work(*arguments) for arguments in self.arguments]


class Wasm3Engine:
    name = "wasm3"

    def start(self, built: BuiltWorkload, count: int) -> Session:
        try:
            import wasm3  # noqa: F401
        except ImportError as error:
            raise EngineUnavailable(f"the pywasm3 package is not installed ({error})") from None
        return Wasm3Session(built, count)


class OursSession(Session):
    def __init__(self, instances, inputs):
        self.instances, self.inputs = instances, inputs

    def call(self):
        return self.instances.call("work", self.inputs, results="numpy")

    def call_stats(self):
        return call_stats_as_dict(self.instances.last_call)

    def close(self):
        self.instances.close()


class OursEngine:
    """wasmgpu with one execution mode on one device ("cpu", or a Vulkan device: "gpu" for
    the selected one, or part of a device's name)."""

    def __init__(self, execution: str, device: str, options: argparse.Namespace):
        self.execution, self.device, self.options = execution, device, options
        self.name = f"ours-{execution}-{'cpu' if device == 'cpu' else 'gpu'}"
        self.adapter: Optional[dict] = None
        self.adapter_error: Optional[str] = None
        if device != "cpu":
            self._resolve_adapter()

    def _resolve_adapter(self) -> None:
        try:
            import wasmgpu
            from wasmgpu.spawn import resolve_device
        except ImportError as error:
            self.adapter_error = f"wasmgpu does not import ({error})"
            return
        try:
            self.adapter = resolve_device(self.device, self.options.allow_software)
        except wasmgpu.GPUUnavailableError as error:
            hint = "" if self.options.allow_software else "(lavapipe needs --allow-software) "
            self.adapter_error = f"GPUUnavailableError {hint}{error}"

    def describe_device(self) -> str:
        if self.device == "cpu":
            return f"cpu device, {self.options.cpu_device_threads} thread(s)"
        if not self.adapter:
            return "no Vulkan device"
        return f"{self.adapter['name']} ({self.adapter.get('driver_info', 'driver unknown')})"

    def _check_count(self, count: int) -> None:
        if self.adapter_error:
            raise EngineUnavailable(self.adapter_error)
        limit = self.options.software_gpu_max_instances
        if self.adapter and self.adapter.get("is_software") and count > limit:
            raise EngineUnavailable(f"skipped: {self.adapter['name']} is a software adapter; it runs up to "
                                    f"--software-gpu-max-instances {limit}")

    def start(self, built: BuiltWorkload, count: int) -> Session:
        self._check_count(count)
        try:
            import wasmgpu
        except ImportError as error:
            raise EngineUnavailable(f"wasmgpu does not import ({error})") from None
        try:
            module = wasmgpu.Module(built.wasm, execution=self.execution)
            if self.execution == "compiled" and self.device == "cpu" and not self.options.lazy:
                module.precompile("cpu")
            instances = module.spawn(count, device="cpu" if self.device == "cpu" else self.adapter["name"],
                                     allow_software=self.options.allow_software, memory_pages=built.memory_pages,
                                     fuel=None, stack_size=self.options.stack_slots,
                                     max_resident_bytes=self.options.max_resident_mib * MIB)
        except (wasmgpu.UnsupportedFeatureError, wasmgpu.GPUUnavailableError, wasmgpu.ResourceLimitError) as error:
            raise EngineUnavailable(f"{type(error).__name__}: {error}") from None
        return OursSession(instances, self._inputs(built, count))

    @staticmethod
    def _inputs(built: BuiltWorkload, count: int) -> np.ndarray:
        indices = np.arange(count, dtype=np.int32)
        if built.workload.param_option is None:
            return indices
        return np.column_stack([indices, np.full(count, built.param, dtype=np.int32)])


def make_engines(options: argparse.Namespace) -> list:
    engines = [NativeEngine(), WasmtimeEngine(per_call=False), WasmtimeEngine(per_call=True), Wasm3Engine()]
    devices = ["cpu"] + ([] if options.device_gpu == "off" else ["gpu" if options.device_gpu == "auto"
                                                                  else options.device_gpu])
    for device in devices:
        for execution in ("interpreter", "compiled"):
            engines.append(OursEngine(execution, device, options))
    return [engine for engine in engines if not any(fnmatch.fnmatch(engine.name, pattern)
                                                   for pattern in options.skip)]


# -- measuring ----------------------------------------------------------------------------------

def timed_call(session: Session):
    session.own_seconds = None
    start = time.perf_counter()
    results = session.call()
    elapsed = time.perf_counter() - start
    return (elapsed if session.own_seconds is None else session.own_seconds), results


def start_session(engine, built: BuiltWorkload, count: int, expected: np.ndarray):
    """Sets the engine up and makes its first call (lazy compilation included), checked.
    Returns the row so far and the open session, or the row of an unavailable engine and None."""
    row = {"workload": built.workload.name, "instances": count, "engine": engine.name}
    start = time.perf_counter()
    try:
        session = engine.start(built, count)
    except EngineUnavailable as why:
        return {**row, "status": "unavailable", "message": str(why)}, None
    row["setup_seconds"] = time.perf_counter() - start
    try:
        row["first_call_seconds"], results = timed_call(session)
        check_results(engine.name, built, count, comparable(results, built.workload.result), expected, "first call")
        row["first_call_stats"] = session.call_stats()
    except EngineUnavailable as why:
        session.close()
        return {**row, "status": "unavailable", "message": str(why)}, None
    except BaseException:
        session.close()
        raise
    return row, session


def measure(engines: list, built: BuiltWorkload, count: int, expected: np.ndarray, repeat: int) -> List[dict]:
    """Every engine's steady calls, interleaved: all sessions stay open and each round makes
    one timed call of every engine (in an order that rotates from round to round), so a change
    of the machine's load during the run falls on all engines alike instead of on whichever
    engine happened to be running. Each row keeps its own first call and the median of its
    `repeat` steady calls; results are checked after the first and the last call."""
    rows, live = [], []
    try:
        for engine in engines:
            row, session = start_session(engine, built, count, expected)
            rows.append(row)
            if session is not None:
                live.append((engine, row, session, []))
        for round_index in range(repeat):
            shift = round_index % max(len(live), 1)
            for engine, row, session, steady in live[shift:] + live[:shift]:
                if row.get("status") == "unavailable":
                    continue
                try:
                    seconds, results = timed_call(session)
                except EngineUnavailable as why:
                    row.update(status="unavailable", message=str(why))
                    continue
                steady.append(seconds)
                if len(steady) == repeat:
                    check_results(engine.name, built, count, comparable(results, built.workload.result), expected,
                                  "last steady call")
                    row["steady_call_stats"] = session.call_stats()
    finally:
        for _, _, session, _ in live:
            session.close()
    for _, row, _, steady in live:
        if row.get("status") == "unavailable":
            continue
        median = statistics.median(steady)
        row.update(status="ok", steady_seconds=steady, steady_median_seconds=median,
                   ns_per_instance=median / count * 1e9)
    return rows


def reference_results(built: BuiltWorkload, count: int) -> np.ndarray:
    return comparable(NativeSession(built, count).call(), built.workload.result)


def add_ratios(rows: List[dict]) -> None:
    """Per workload and count: each baseline's steady median over each row's."""
    medians = {(r["workload"], r["instances"], r["engine"]): r["steady_median_seconds"]
               for r in rows if r["status"] == "ok"}
    for row in rows:
        if row["status"] != "ok":
            continue
        row["ratios"] = {}
        for label, baseline in RATIO_BASELINES.items():
            theirs = medians.get((row["workload"], row["instances"], baseline))
            row["ratios"][label] = theirs / row["steady_median_seconds"] if theirs else None


def instructions_per_instance(rows: List[dict]) -> Dict[tuple, float]:
    """Executed instructions per instance, as our interpreter counts them, per workload and count."""
    counted = {}
    for row in rows:
        stats = row.get("steady_call_stats") or {}
        if stats.get("instructions"):
            counted.setdefault((row["workload"], row["instances"]), stats["instructions"] / row["instances"])
    return counted


# -- reporting ------------------------------------------------------------------------------------

def format_ratio(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:.3g}x"


def print_header(report: dict) -> None:
    machine, versions_used = report["hardware"], report["versions"]
    print(f"{machine['cpu_model']}, {machine['cores']} cores, load {machine['load_average_at_start'][0]:.1f}; "
          f"Python {versions_used['python']}, wasmtime {versions_used['wasmtime']}, pywasm3 {versions_used['pywasm3']}, "
          f"{versions_used['cc']}, {versions_used['clang']}")
    for engine, device in machine["our_devices"].items():
        print(f"{engine}: {device}")


def print_table(rows: List[dict], built: Dict[str, BuiltWorkload]) -> None:
    counted = instructions_per_instance(rows)
    header = (f"  {'instances':>9}  {'engine':22} {'setup ms':>9} {'first ms':>10} {'steady ms':>10} {'ns/inst':>10} " +
              " ".join(f"{label:>10}" for label in RATIO_BASELINES))
    for name, workload_build in built.items():
        workload = workload_build.workload
        param = f", N = {workload_build.param}" if workload.param_option else ""
        print(f"\n{name}: {workload.description}{param}")
        print(header)
        for count in sorted({r["instances"] for r in rows if r["workload"] == name}):
            instructions = counted.get((name, count))
            label = f"{count:>9}" if instructions is None else f"{count:>9}  ({instructions:.0f} instructions/instance)"
            print(f"  {label}")
            for row in (r for r in rows if r["workload"] == name and r["instances"] == count):
                print(format_row(row))
    print("\nvs X = X's steady time / this engine's: above 1, this engine is faster than X.")


def format_row(row: dict) -> str:
    if row["status"] != "ok":
        message = row["message"]
        return f"  {'':>9}  {row['engine']:22} {message[:110]}{'...' if len(message) > 110 else ''}"
    return (f"  {'':>9}  {row['engine']:22} {row['setup_seconds'] * 1e3:9.4g} {row['first_call_seconds'] * 1e3:10.4g} "
            f"{row['steady_median_seconds'] * 1e3:10.4g} {row['ns_per_instance']:10.4g} " +
            " ".join(f"{format_ratio(row['ratios'][label]):>10}" for label in RATIO_BASELINES))


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def first_line_of(command: List[str]) -> Optional[str]:
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError:
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else None


def package_version(name: str) -> Optional[str]:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict:
    try:
        import wasmgpu

        ours = wasmgpu.__version__
    except ImportError as error:
        ours = f"not importable: {error}"
    return {"python": platform.python_version(), "numpy": np.__version__, "wasmgpu": ours,
            "wasmtime": package_version("wasmtime"), "pywasm3": package_version("pywasm3"),
            "cc": first_line_of(["cc", "--version"]), "clang": first_line_of(["clang", "--version"]),
            "wasm-ld": first_line_of(["wasm-ld", "--version"])}


def hardware(engines: list) -> dict:
    gpus = {engine.name: engine.describe_device() for engine in engines if isinstance(engine, OursEngine)}
    return {"platform": platform.platform(), "machine": platform.machine(), "cpu_model": cpu_model(),
            "cores": os.cpu_count(), "cores_usable": len(os.sched_getaffinity(0)),
            "load_average_at_start": os.getloadavg(), "our_devices": gpus}


def write_report(path: Path, report: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(f"report: {path}")


def plot(rows: List[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"--plot {path}: matplotlib is not installed (pip install matplotlib); no plot drawn")
        return
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    figure, axes = plt.subplots(1, len(workloads), figsize=(4.2 * len(workloads), 4), squeeze=False)
    for axis, workload in zip(axes[0], workloads):
        mine = [r for r in rows if r["workload"] == workload and r["status"] == "ok"]
        for engine in dict.fromkeys(r["engine"] for r in mine):
            points = sorted((r["instances"], r["ns_per_instance"]) for r in mine if r["engine"] == engine)
            axis.plot(*zip(*points), marker="o", label=engine)
        axis.set(title=workload, xscale="log", yscale="log", xlabel="instances", ylabel="ns per instance (steady)")
    axes[0][0].legend(fontsize=7)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    print(f"plot: {path}")


# -- arguments and the run ------------------------------------------------------------------------

def comma_list(text: str) -> List[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def instance_counts(text: str) -> List[int]:
    counts = [int(item.replace("_", "")) for item in comma_list(text)]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("instance counts must be positive integers")
    return counts


def parse_arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog=f"engines: {', '.join(ENGINES)}; workloads: "
                                            f"{', '.join(w.name for w in WORKLOADS)}")
    parser.add_argument("--instances", type=instance_counts, default=instance_counts("1,100,10000"),
                        help="comma-separated instance counts (default 1,100,10000; the full set is "
                             "1,100,10000,100000)")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls after the first; the median is reported")
    parser.add_argument("--workloads", type=comma_list, default=[w.name for w in WORKLOADS])
    parser.add_argument("--skip", type=comma_list, default=[], help="engines to leave out: names or patterns")
    parser.add_argument("--int-rounds", type=int, default=100, help="int_loop's N")
    parser.add_argument("--f64-steps", type=int, default=30, help="f64_loop's N")
    parser.add_argument("--sieve-limit", type=int, default=500, help=f"sieve's N (at most {SIEVE_CAPACITY})")
    parser.add_argument("--fib-base", type=int, default=8, help="fib's N (fib(N) to fib(N + 3))")
    parser.add_argument("--nbody-steps", type=int, default=10, help="nbody's N")
    parser.add_argument("--lazy", action="store_true",
                        help="compiled mode on the cpu device: build units as calls reach them, not at setup")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads of our cpu device (WAVESTACK_THREADS); 0: every core. Default 1, per core "
                             "like the peers")
    parser.add_argument("--device-gpu", default="auto",
                        help="our Vulkan device: auto (the selected one when there is one), off, or part of a name")
    parser.add_argument("--allow-software", action="store_true", help="let the Vulkan device be lavapipe")
    parser.add_argument("--software-gpu-max-instances", type=int, default=100,
                        help="largest count run on a software Vulkan adapter (default 100: lavapipe is slow)")
    parser.add_argument("--max-resident-mib", type=int, default=4096,
                        help="our spawns' max_resident_bytes, in MiB (the sieve reserves 64 KiB per instance)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="the JSON report")
    parser.add_argument("--wasm-dir", type=Path,
                        help="use the workloads' modules saved in this folder; build and save missing ones")
    parser.add_argument("--plot", type=Path, help="also draw ns per instance against instances (matplotlib)")
    options = parser.parse_args(argv)
    check_arguments(parser, options)
    return options


def check_arguments(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    unknown = set(options.workloads) - {w.name for w in WORKLOADS}
    if unknown:
        parser.error(f"--workloads: unknown {', '.join(sorted(unknown))}")
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")
    if not 256 <= options.sieve_limit <= SIEVE_CAPACITY:
        parser.error(f"--sieve-limit must be between 256 and {SIEVE_CAPACITY}")
    if not 0 <= options.fib_base <= 40:
        parser.error("--fib-base must be between 0 and 40")
    if options.nbody_steps < 0:
        parser.error("--nbody-steps must be 0 or more")
    if options.threads < 0:
        parser.error("--threads must be 0 (every core) or more")
    options.cpu_device_threads = options.threads or os.cpu_count()
    # Our value stack per instance, in slots: fib recurses N + 3 deep, its frames take well
    # under 16 slots; the other workloads need one frame. More than needed costs memory.
    options.stack_slots = max(256, 16 * (options.fib_base + 8))


def workload_param(workload: Workload, options: argparse.Namespace) -> int:
    return getattr(options, workload.param_option) if workload.param_option else 0


def run(options: argparse.Namespace, engines: list, folder: Path):
    rows, built = [], {}
    for workload in (w for w in WORKLOADS if w.name in options.workloads):
        built[workload.name] = workload_build = build_workload(workload, workload_param(workload, options), folder,
                                                                    options.wasm_dir)
        for count in options.instances:
            expected = reference_results(workload_build, count)
            start = time.perf_counter()
            rows.extend(measure(engines, workload_build, count, expected, options.repeat))
            print(f"measured {workload.name}, {count} instances ({time.perf_counter() - start:.1f} s)",
                  file=sys.stderr, flush=True)
    add_ratios(rows)
    return rows, built


def main(argv=None) -> int:
    options = parse_arguments(argv)
    # The runtime's thread pool reads WAVESTACK_THREADS once, when first used: set it before
    # anything from wasmgpu runs.
    if options.threads:
        os.environ["WAVESTACK_THREADS"] = str(options.threads)
    else:
        os.environ.pop("WAVESTACK_THREADS", None)
    engines = make_engines(options)
    with tempfile.TemporaryDirectory(prefix="wasmgpu-bench-") as folder:
        try:
            rows, built = run(options, engines, Path(folder))
        except ResultMismatch as mismatch:
            print(f"RESULTS DIFFER: {mismatch}", file=sys.stderr)
            return 1
    report = {
        "benchmark": "bench/wasmgpu.py",
        "hardware": hardware(engines),
        "versions": versions(),
        "arguments": {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(options).items()},
        "cpu_device_threads": options.cpu_device_threads,
        "workloads": {name: {"source": f"bench/workloads/{b.workload.source}", "description": b.workload.description,
                             "result": b.workload.result, "param": b.param, "wasm_bytes": len(b.wasm),
                             "memory_pages": b.memory_pages, "build_seconds": b.build_seconds}
                      for name, b in built.items()},
        "rows": rows,
    }
    print_header(report)
    print_table(rows, built)
    write_report(options.output, report)
    if options.plot:
        plot(rows, options.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
