"""Stopping a wasmgpu.mpi call from one rank: its cancel returning true, a SIGINT to it, or its
cancel raising. Every rank must raise the same exception, soon (a rank that never stops spins
until the harness's timeout), and the next call must give one process's results.

Usage: wasmgpu_mpi_stop_worker.py COUNT...
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import wasmtime
from mpi4py import MPI

import wasmgpu
import wasmgpu.mpi

comm = MPI.COMM_WORLD
LAST = comm.size - 1
FOREVER = 2**62  # iterations of spin: far beyond the harness's timeout
# What a deferred SIGINT says; on one rank it raises where it lands, a plain KeyboardInterrupt.
SIGINT_WORDS = ["interrupted by SIGINT", f"rank {LAST}"] if comm.size > 1 else []

# spin(n): n iterations of a multiply-add; returns the accumulator.
WAT = r"""
(module
  (func (export "spin") (param $n i64) (result i64) (local $i i64) (local $a i64)
    (block $done
      (loop $top
        (br_if $done (i64.ge_u (local.get $i) (local.get $n)))
        (local.set $a (i64.add (i64.mul (local.get $a) (i64.const 31)) (local.get $i)))
        (local.set $i (i64.add (local.get $i) (i64.const 1)))
        (br $top)))
    (local.get $a)))
"""
BINARY = wasmtime.wat2wasm(WAT)


def expect(condition, what):
    if not condition:
        raise AssertionError(f"rank {comm.rank}: {what}")


def spin_formula(n: int) -> int:
    a = 0
    for i in range(n):
        a = (a * 31 + i) % 2**64
    return a - 2**64 if a >= 2**63 else a


def after_calls(calls: int, then):
    """A cancel callback that returns False for its first ``calls`` consultations, then then()."""
    seen = [0]

    def cancel():
        seen[0] += 1
        return then() if seen[0] > calls else False
    return cancel


def stopped(instances, count, rows, cancel, kind, words, what, waiter_words=None, origin=LAST):
    """Runs a call that must stop on every rank with ``kind``, the same exception as rank
    ``origin``'s on every rank; checks how, and that it was quick."""
    began = time.monotonic()
    try:
        instances.call("spin", rows if comm.rank == 0 else None, cancel=cancel)
        raise AssertionError(f"rank {comm.rank}: {what}: the call returned")
    except kind as error:
        elapsed = time.monotonic() - began
        message = str(error)
        expect(all(word in message for word in words), f"{what}: {error!r}")
        if waiter_words is not None:
            expect(all(word in message for word in waiter_words), f"{what}: {error!r}")
        notes = getattr(error, "__notes__", [])
        expect(any(f"raised on rank {origin} of {comm.size}" in note for note in notes), f"{what}: notes {notes}")
        everywhere = comm.allgather((type(error).__name__, message))
        expect(len(set(everywhere)) == 1, f"{what}: the ranks raised {everywhere}")
        expect(elapsed < 60, f"{what}: took {elapsed:.1f} s")
        return error, notes
    finally:
        expect(signal.getsignal(signal.SIGINT) is signal.default_int_handler, f"{what}: SIGINT handler not restored")


def next_call_works(instances, count, reference):
    rows = [(g * 37) % 200 for g in range(count)]
    got = instances.call("spin", rows if comm.rank == 0 else None)
    expect(got == reference, f"the call after a stop: {got} vs one process's {reference}")
    expect(got == [spin_formula(n) for n in rows], "spin formula")


def check_stops(module, count):
    with module.spawn(count, device="cpu") as single:
        reference = single.call("spin", [(g * 37) % 200 for g in range(count)])
    forever = [FOREVER] * count
    # The last rank's instances finish at once, the others' never: the last rank is waiting for
    # the others when it stops the call (on one rank it stops its own instances).
    last_quick = [3 if comm.size > 1 and wasmgpu.mpi.block_ranges(count, comm.size)[LAST].start <= g else FOREVER
                  for g in range(count)]
    quick_waiter = ["while other ranks ran"] if comm.size > 1 else None
    # fuel=None: no limit, only a stop ends spin.
    with wasmgpu.mpi.spawn(module, count, device="cpu", fuel=None) as instances:
        next_call_works(instances, count, reference)

        # 1. The last rank's cancel returns True after a few dispatches; no other rank passes one.
        cancel = after_calls(4, lambda: True) if comm.rank == LAST else None
        stopped(instances, count, forever, cancel, InterruptedError, ["cancelled", "spin"], "cancel on the last rank")
        expect(instances.last_call.cancelled or not instances.local_range, "its instances ran on after the stop")
        next_call_works(instances, count, reference)

        # 2. Every rank cancels at once: every rank sends a stop; none may leak into the next call.
        stopped(instances, count, forever, after_calls(2, lambda: True), InterruptedError, ["cancelled"],
                "cancel on every rank", origin=0)
        next_call_works(instances, count, reference)

        # 3. The last rank cancels while it waits for the others: its instances (3 iterations) end
        # in their first dispatch, so cancel is consulted once before it, next while it waits.
        cancel = after_calls(1, lambda: True) if comm.rank == LAST else None
        stopped(instances, count, last_quick, cancel, InterruptedError, ["cancelled"], "cancel while waiting",
                quick_waiter)
        next_call_works(instances, count, reference)

        # 4. SIGINT to the last rank, sent from its own cancel callback during its dispatches.
        def interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            return False
        cancel = after_calls(3, interrupt) if comm.rank == LAST else None
        stopped(instances, count, forever, cancel, KeyboardInterrupt, SIGINT_WORDS,
                "SIGINT during the last rank's dispatches")
        next_call_works(instances, count, reference)

        # 5. SIGINT to the last rank from another thread while it waits for the others (the timer
        # starts at cancel's second consultation, when the last rank already waits).
        timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))

        def start_timer():
            if timer.ident is None:  # not started yet
                timer.start()
            return False
        cancel = after_calls(1, start_timer) if comm.rank == LAST else None
        stopped(instances, count, last_quick, cancel, KeyboardInterrupt, SIGINT_WORDS,
                "SIGINT while the last rank waits", quick_waiter)
        if comm.rank == LAST:
            timer.join()
        next_call_works(instances, count, reference)

        # 6. The last rank's cancel raises KeyboardInterrupt itself, or another exception.
        def raise_interrupt():
            raise KeyboardInterrupt("raised by the last rank's cancel")
        cancel = after_calls(2, raise_interrupt) if comm.rank == LAST else None
        stopped(instances, count, forever, cancel, KeyboardInterrupt, ["raised by the last rank's cancel"],
                "KeyboardInterrupt raised in cancel")
        next_call_works(instances, count, reference)

        def raise_error():
            raise LookupError("the last rank's cancel failed")
        cancel = after_calls(2, raise_error) if comm.rank == LAST else None
        stopped(instances, count, forever, cancel, LookupError, ["the last rank's cancel failed"], "cancel raising")
        next_call_works(instances, count, reference)

        # A cancel that is not callable: refused on every rank before anything runs.
        try:
            instances.call("spin", forever if comm.rank == 0 else None, cancel=True if comm.rank == LAST else None)
            raise AssertionError("cancel=True was accepted")
        except TypeError as error:
            expect(str(error).startswith("cancel: expected a callable or None, got bool"), str(error))
        next_call_works(instances, count, reference)


def main():
    module = wasmgpu.Module(BINARY)
    counts = [int(c) for c in sys.argv[1:]]
    for count in counts:
        check_stops(module, count)
    if comm.rank == 0:
        print(f"wasmgpu.mpi stops OK on {comm.size} ranks (counts {counts})")


main()
