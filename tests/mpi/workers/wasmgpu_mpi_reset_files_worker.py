"""wasmgpu.mpi's reset and files on real ranks, checked against one process's spawn of every
instance (the same module, the same calls) and against formulas of the global instance index.

Usage: wasmgpu_mpi_reset_files_worker.py COUNT...
"""

from __future__ import annotations

import sys

import wasmtime
from mpi4py import MPI

import wasmgpu
import wasmgpu.mpi

comm = MPI.COMM_WORLD

# start: stores 77 at 2048. bump(n): adds n to that word and counts calls in a global; returns
# word * 100 + calls. save(n): creates note-<n % 10>.txt (its name is data at 1024, patched in
# memory) holding n as 4 bytes little-endian; returns the errno. quit(n): proc_exit(n).
WAT = r"""
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (data (i32.const 1024) "note-0.txt")
  (global $calls (mut i32) (i32.const 0))
  (func $start (i32.store (i32.const 2048) (i32.const 77)))
  (start $start)
  (func (export "bump") (param $n i32) (result i32)
    (i32.store (i32.const 2048) (i32.add (i32.load (i32.const 2048)) (local.get $n)))
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (i32.add (i32.mul (i32.load (i32.const 2048)) (i32.const 100)) (global.get $calls)))
  (func (export "save") (param $n i32) (result i32) (local $errno i32)
    (i32.store8 (i32.const 1029) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10))))
    ;; the new file's rights: the preopened directory's inheriting rights (its fdstat at 32)
    (drop (call $fd_fdstat_get (i32.const 3) (i32.const 32)))
    (local.set $errno (call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (i32.const 10) (i32.const 1)
      (i64.load (i32.const 48)) (i64.load (i32.const 48)) (i32.const 0) (i32.const 16)))
    (if (local.get $errno) (then (return (local.get $errno))))
    (i32.store (i32.const 3000) (local.get $n))
    (i32.store (i32.const 0) (i32.const 3000))
    (i32.store (i32.const 4) (i32.const 4))
    (local.set $errno (call $fd_write (i32.load (i32.const 16)) (i32.const 0) (i32.const 1) (i32.const 8)))
    (drop (call $fd_close (i32.load (i32.const 16))))
    (local.get $errno))
  (func (export "quit") (param $n i32) (call $proc_exit (local.get $n))))
"""
BINARY = wasmtime.wat2wasm(WAT)
SEED_FILES = {"data/seed.txt": b"seed"}


def expect(condition, what):
    if not condition:
        raise AssertionError(f"rank {comm.rank}: {what}")


def expect_raises(kind, words, action, what):
    """action() raises kind on this rank, its message holding words (the argument's name)."""
    try:
        action()
    except kind as error:
        expect(all(word in str(error) for word in words), f"{what}: {error!r}")
        return error
    raise AssertionError(f"rank {comm.rank}: {what}: no {kind.__name__}")


def script(instances, count):
    """The same calls on wasmgpu.mpi's instances (inputs on rank 0 only) and on one process's
    spawn; what they give, in global order."""
    distributed = isinstance(instances, wasmgpu.mpi.MpiInstances)

    def rows(values):
        return values if not distributed or comm.rank == 0 else None

    seen = {"first": instances.call("bump", rows([g + 1 for g in range(count)])),
            "second": instances.call("bump", rows([3] * count)),
            "saved": instances.call("save", rows([7 * g for g in range(count)]))}
    try:
        instances.call("quit", rows([g % 7 for g in range(count)]))
        raise AssertionError("quit: expected a Trap (proc_exit on every instance)")
    except wasmgpu.Trap as trap:
        seen["quit traps"] = sorted(trap.traps)
    seen["exit codes"] = list(instances.exit_codes)
    seen["files before"] = [instances.files(instance=g) for g in range(count)]
    instances.reset()
    seen["exit codes after reset"] = list(instances.exit_codes)
    seen["files after reset"] = [instances.files(instance=g) for g in range(count)]
    seen["memory after reset"] = [instances.read_memory(1024, 10, instance=g) + instances.read_memory(2048, 4, g)
                                  for g in range(count)]
    seen["after reset"] = instances.call("bump", rows([g + 1 for g in range(count)]))
    return seen


def check_against_one_process(module, count):
    wasi = wasmgpu.Wasi(files=SEED_FILES)
    with wasmgpu.mpi.spawn(module, count, device="cpu", wasi=wasi) as instances:
        distributed = script(instances, count)
    with module.spawn(count, device="cpu", wasi=wasi) as single:
        reference = script(single, count)
    for key, value in reference.items():
        expect(distributed[key] == value, f"{key}: {distributed[key]} vs one process's {value}")
    # And the formulas, so that a change both sides share cannot pass unseen.
    first = [(77 + g + 1) * 100 + 1 for g in range(count)]
    expect(distributed["first"] == first and distributed["after reset"] == first, "bump after reset")
    expect(distributed["second"] == [(77 + g + 4) * 100 + 2 for g in range(count)], "second bump")
    expect(distributed["saved"] == [0] * count, f"save errnos {distributed['saved']}")
    expect(distributed["exit codes"] == [g % 7 for g in range(count)], "exit codes")
    expect(distributed["exit codes after reset"] == [None] * count, "exit codes after reset")
    expect(distributed["files before"] == [{**SEED_FILES, f"note-{7 * g % 10}.txt": (7 * g).to_bytes(4, "little")}
                                           for g in range(count)], "files written by the instances")
    expect(distributed["files after reset"] == [SEED_FILES] * count, "files after reset")
    expect(distributed["memory after reset"] == [b"note-0.txt" + (77).to_bytes(4, "little")] * count,
           "memory after reset")


def check_bad_arguments_change_nothing(module, count):
    with wasmgpu.mpi.spawn(module, count, device="cpu", wasi=wasmgpu.Wasi(files=SEED_FILES)) as instances:
        last = count - 1
        for bad, kind, words in ((count, IndexError, ["instance: ", f"{count} is out of range"]),
                                 (-1, ValueError, ["instance: must be non-negative"]),
                                 ("0", TypeError, ["instance: expected an int"])):
            error = expect_raises(kind, words, lambda: instances.files(instance=bad), f"files(instance={bad!r})")
            expect(any("raised on rank 0" in note for note in error.__notes__), f"notes {error.__notes__}")
            expect_raises(kind, words, lambda: instances.write_file("new.txt", b"x", instance=bad),
                          f"write_file(instance={bad!r})")
        if comm.size > 1 and count > 1:
            # A different index on each rank: refused on every rank, nothing written anywhere.
            mine = min(comm.rank, last)
            expect_raises(ValueError, ["instance: every rank must pass the same instance"],
                          lambda: instances.write_file("new.txt", b"x", instance=mine), "differing instance")
            expect_raises(ValueError, ["instance: every rank must pass the same instance"],
                          lambda: instances.files(instance=mine), "differing instance (files)")
        expect(all(instances.files(instance=g) == SEED_FILES for g in range(count)), "a refused write wrote")
        # Owner writes, then files and read_file see them by global index.
        instances.write_file("in/last.txt", bytes([last % 256]), instance=last)
        expect(instances.files(instance=last) == {**SEED_FILES, "in/last.txt": bytes([last % 256])}, "files(last)")
        expect(count == 1 or instances.files(instance=0) == SEED_FILES, "files(0) after writing the last instance")
        # Closed on one rank: reset is refused on every rank and no rank resets anything.
        instances.call("bump", [1] * count if comm.rank == 0 else None)
        closer = comm.size - 1
        if comm.rank == closer:
            instances.close()
        expect_raises(RuntimeError, ["these instances are closed"], instances.reset, "reset with a closed rank")
        if comm.rank != closer and len(instances.local_range):
            word = instances.local.read_memory(2048, 4, instance=0)
            expect(word == (78).to_bytes(4, "little"), f"a rank reset although another was closed: {word}")


def main():
    module = wasmgpu.Module(BINARY)
    counts = [int(c) for c in sys.argv[1:]]
    for count in counts:
        check_against_one_process(module, count)
        check_bad_arguments_change_nothing(module, count)
    if comm.rank == 0:
        print(f"wasmgpu.mpi reset/files OK on {comm.size} ranks (counts {counts})")


main()
