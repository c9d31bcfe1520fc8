"""wasmgpu.mpi on real ranks: one logical spawn over the communicator, checked against Wasmtime
(one store per instance, in this process) and against formulas of the global instance index.

Usage: wasmgpu_mpi_worker.py DEVICE COUNT...   (DEVICE: cpu, or default for wasmgpu.mpi's own choice)
"""

from __future__ import annotations

import sys

import numpy as np
import wasmtime
from mpi4py import MPI

import wasmgpu
import wasmgpu.mpi

comm = MPI.COMM_WORLD
MASK64 = 2**64 - 1

# mix: arithmetic on an i64 and an i32; maybe_trap: unreachable when n % 5 == 3, else 2 n;
# draw: 8 bytes of random_get; speak: writes one letter and a newline to stdout and one digit to stderr, then proc_exit(n % 100)
# when n % 3 == 0.
WAT = r"""
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "mix") (param $x i64) (param $y i32) (result i64)
    (i64.add (i64.mul (local.get $x) (i64.const 6364136223846793005))
             (i64.rotl (i64.extend_i32_u (local.get $y)) (i64.const 17))))
  (func (export "maybe_trap") (param $n i32) (result i32)
    (if (i32.eq (i32.rem_u (local.get $n) (i32.const 5)) (i32.const 3)) (then unreachable))
    (i32.mul (local.get $n) (i32.const 2)))
  (func $write (param $fd i32) (param $byte i32) (param $length i32)
    (i32.store8 (i32.const 16) (local.get $byte))
    (i32.store8 (i32.const 17) (i32.const 10))
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (local.get $length))
    (drop (call $fd_write (local.get $fd) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "draw") (result i64)
    (drop (call $random_get (i32.const 32) (i32.const 8)))
    (i64.load (i32.const 32)))
  (func (export "speak") (param $n i32)
    (call $write (i32.const 1) (i32.add (i32.const 97) (i32.rem_u (local.get $n) (i32.const 26))) (i32.const 2))
    (call $write (i32.const 2) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))) (i32.const 1))
    (if (i32.eqz (i32.rem_u (local.get $n) (i32.const 3)))
      (then (call $proc_exit (i32.rem_u (local.get $n) (i32.const 100))))))
)
"""
BINARY = wasmtime.wat2wasm(WAT)


class Wasmtime:
    """The oracle: one Wasmtime store per instance, WASI stdout/stderr captured to files."""

    def __init__(self, tmp: str):
        self.engine = wasmtime.Engine()
        self.module = wasmtime.Module(self.engine, BINARY)
        self.tmp = tmp

    def speak(self, n: int):
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        store = wasmtime.Store(self.engine)
        config = wasmtime.WasiConfig()
        out, err = f"{self.tmp}/out-{comm.rank}-{n}", f"{self.tmp}/err-{comm.rank}-{n}"
        config.stdout_file, config.stderr_file = out, err
        store.set_wasi(config)
        instance = linker.instantiate(store, self.module)
        code = None
        try:
            instance.exports(store)["speak"](store, n)
        except wasmtime.ExitTrap as exit_trap:
            code = exit_trap.code
        with open(out, "rb") as o, open(err, "rb") as e:
            return o.read(), e.read(), code


def expect(condition, what):
    if not condition:
        raise AssertionError(f"rank {comm.rank}: {what}")


def check_results_and_layout(module, count, device):
    with wasmgpu.mpi.spawn(module, count, device=device) as instances:
        expect(len(instances) == count, "len")
        blocks = wasmgpu.mpi.block_ranges(count, comm.size)
        expect(instances.local_range == blocks[comm.rank], f"local range {instances.local_range}")
        expect(sum(len(b) for b in blocks) == count and blocks[0].start == 0, "blocks cover the instances")
        rows = [(g * 1_000_003 + 7, g ^ 0x5A5A) for g in range(count)] if comm.rank == 0 else None
        results = instances.call("mix", rows)
        expected = [((g * 1_000_003 + 7) * 6364136223846793005 + (((g ^ 0x5A5A) << 17) | ((g ^ 0x5A5A) >> 47)))
                    & MASK64 for g in range(count)]
        got = [r & MASK64 for r in results]
        expect(got == expected, f"mix results differ from the formula: {got[:5]} vs {expected[:5]}")
        # NumPy inputs (a tuple of arrays, one per parameter) scattered from root 1 when there is one.
        root = min(1, comm.size - 1)
        arrays = (np.arange(count, dtype=np.int64), np.full(count, 3, dtype=np.int32)) if comm.rank == root else None
        numpy_results = instances.call("mix", arrays, root=root, results="numpy")
        formula = [(g * 6364136223846793005 + (3 << 17)) & MASK64 for g in range(count)]
        expect(isinstance(numpy_results, np.ndarray) and len(numpy_results) == count, "numpy results")
        expect([int(v) & MASK64 for v in numpy_results] == formula, "numpy mix results")
        devices = instances.devices
        expect(len(devices) == comm.size, f"devices {devices}")
        return devices


def check_against_a_single_process_spawn(module, count, device):
    """The gathered streams, exit codes and traps equal one process's spawn of all instances, and
    Wasmtime's run of each instance."""
    import tempfile

    rows = list(range(count)) if comm.rank == 0 else None
    with wasmgpu.mpi.spawn(module, count, device=device) as instances:
        try:
            instances.call("speak", rows)
            raise AssertionError("speak: expected a Trap (proc_exit on every third instance)")
        except wasmgpu.Trap as trap:
            exits = sorted(trap.traps)
            expect(exits == [g for g in range(count) if g % 3 == 0], f"proc_exit traps at {exits}")
            expect(all(reason == "WASI proc_exit" for reason in trap.traps.values()), "trap reasons")
        stdout, stderr, codes = instances.stdout, instances.stderr, instances.exit_codes
    with wasmgpu.mpi.spawn(module, count, device=device) as instances:
        draws = instances.call("draw")
    with module.spawn(count, device="cpu") as single:
        expect(single.call("draw") == draws, "random_get differs from a single-process spawn")
        expect(len(set(draws)) == count, f"random_get draws repeat: {draws}")
    with module.spawn(count, device="cpu") as single:
        try:
            single.call("speak", list(range(count)))
        except wasmgpu.Trap:
            pass
        expect(single.stdout == stdout, "stdout differs from a single-process spawn")
        expect(single.stderr == stderr, "stderr differs from a single-process spawn")
        expect(single.exit_codes == codes, f"exit codes differ: {single.exit_codes} vs {codes}")
    with tempfile.TemporaryDirectory() as tmp:
        oracle = Wasmtime(tmp)
        for g in range(comm.rank, count, comm.size):  # each rank checks a share against Wasmtime
            out, err, code = oracle.speak(g)
            expect((stdout[g], stderr[g], codes[g]) == (out, err, code),
                   f"instance {g}: {(stdout[g], stderr[g], codes[g])} vs Wasmtime's {(out, err, code)}")


def check_traps_by_global_index(module, count, device):
    with wasmgpu.mpi.spawn(module, count, device=device) as instances:
        rows = list(range(count)) if comm.rank == 0 else None
        try:
            instances.call("maybe_trap", rows)
            trapped = False
        except wasmgpu.Trap as trap:
            trapped = True
            expect(sorted(trap.traps) == [g for g in range(count) if g % 5 == 3], f"traps at {sorted(trap.traps)}")
            expect(set(trap.traps.values()) == {"unreachable"}, "trap reasons")
            expect(trap.results == [None if g % 5 == 3 else 2 * g for g in range(count)], "results beside traps")
            first = min(trap.traps)
            expect(f"instance {first} (rank {instances.owner(first)})" in str(trap), str(trap))
        expect(trapped == any(g % 5 == 3 for g in range(count)), "a Trap on every rank exactly when one trapped")
        # No trap: the gathered results.
        rows = [5 * g for g in range(count)] if comm.rank == 0 else None
        expect(instances.call("maybe_trap", rows) == [10 * g for g in range(count)], "maybe_trap results")


def check_failures_reach_every_rank(module, count, device):
    """An error on one rank (or on root's inputs) is raised on every rank; nothing hangs."""
    with wasmgpu.mpi.spawn(module, count, device=device) as instances:
        wrong = list(range(count + 1)) if comm.rank == 0 else None
        try:
            instances.call("maybe_trap", wrong)
            raise AssertionError("inputs of the wrong length were accepted")
        except ValueError as error:
            expect(f"expected {count} rows" in str(error), str(error))
            expect(any("raised on rank 0" in note for note in error.__notes__), f"notes {error.__notes__}")
        # A root that differs between ranks, or is no rank: refused on every rank, nothing scattered.
        for root, message in ((comm.rank, "every rank must pass the same root"), (comm.size, "expected a rank")):
            if message.startswith("every") and comm.size == 1:
                continue
            try:
                instances.call("maybe_trap", list(range(count)), root=root)
                raise AssertionError(f"root={root} was accepted")
            except ValueError as error:
                expect(str(error).startswith("root: ") and message in str(error), str(error))
        # A memory access out of range on the last instance's rank only.
        last = count - 1
        try:
            instances.read_memory(65536 - 2, 4, instance=last)
            raise AssertionError("an out-of-range read_memory was accepted")
        except IndexError as error:
            owner = instances.owner(last)
            expect(any(f"raised on rank {owner}" in note for note in error.__notes__), f"notes {error.__notes__}")
            expect(any(f"is global instance {last}" in note for note in error.__notes__), f"notes {error.__notes__}")
        # An unknown export: every rank fails locally, every rank raises the lowest rank's error.
        try:
            instances.call("no_such_export")
            raise AssertionError("an unknown export was accepted")
        except KeyError as error:  # what a single-process call raises
            expect(any("raised on rank 0" in note for note in error.__notes__), f"notes {error.__notes__}")
        # Owner reads and writes by global index.
        instances.write_memory(100, bytes([last % 256, 7]), instance=last)
        expect(instances.read_memory(100, 2, instance=last) == bytes([last % 256, 7]), "memory of the last instance")
        expect(instances.read_memory(100, 2, instance=0) == b"\0\0" or last == 0, "memory of instance 0")
    # A bad argument on the last rank only: every rank raises it (the others were spawned, then closed).
    try:
        wasmgpu.mpi.spawn(module if comm.rank != comm.size - 1 else "not a module", count, device=device)
        raise AssertionError("a bad module on one rank was accepted")
    except TypeError as error:
        expect(str(error).startswith("module: expected a wasmgpu.Module"), str(error))
    try:
        wasmgpu.mpi.spawn(module, count + comm.rank, device=device)
        expect(comm.size == 1, "counts that differ between ranks were accepted")
    except ValueError as error:
        expect("every rank must pass the same count" in str(error), str(error))


class Unpicklable(Exception):
    """An exception another rank cannot rebuild: its constructor needs two arguments."""

    def __init__(self, what, where):
        super().__init__(f"{what} at {where}")


def check_agreement_on_an_exception_that_does_not_pickle():
    last = comm.size - 1
    error = Unpicklable("bad state", comm.rank) if comm.rank == last else None
    try:
        wasmgpu.mpi._agree(comm, error)
        raise AssertionError("_agree returned although a rank failed")
    except Unpicklable as raised:
        expect(comm.rank == last and raised is error, "the failing rank raises its own exception object")
    except wasmgpu.mpi.RankError as raised:
        expect(comm.rank != last, "only the other ranks get a RankError")
        expect(raised.rank == last and raised.type_name.endswith("Unpicklable"), f"{raised.rank} {raised.type_name}")
        expect(f"bad state at {last}" in str(raised), str(raised))
    wasmgpu.mpi._agree(comm, None)  # and nothing is raised when no rank failed


def main():
    device_arg = sys.argv[1]
    device = None if device_arg == "default" else device_arg
    counts = [int(c) for c in sys.argv[2:]]
    module = wasmgpu.Module(BINARY)
    check_agreement_on_an_exception_that_does_not_pickle()
    for count in counts:
        devices = check_results_and_layout(module, count, device)
        check_against_a_single_process_spawn(module, count, device)
        check_traps_by_global_index(module, count, device)
        if count > 0:
            check_failures_reach_every_rank(module, count, device)
        if comm.rank == 0:
            print(f"count {count}: devices {devices}")
    if comm.rank == 0:
        print(f"wasmgpu.mpi OK on {comm.size} ranks ({device_arg}; counts {counts})")


main()
