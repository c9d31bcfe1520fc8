"""wasmgpu over MPI: one logical spawn of N instances spread over the ranks of a communicator::

    from mpi4py import MPI
    import wasmgpu, wasmgpu.mpi

    module = wasmgpu.Module("worker.wasm")
    with wasmgpu.mpi.spawn(module, 10_000, comm=MPI.COMM_WORLD) as instances:
        results = instances.call("process", rows)   # rows read on rank 0; results on every rank

Instance ``g`` (global index) lives on the rank whose block holds it: blocks of consecutive
instances, the remainder to the lowest ranks (as cudecomp splits a dimension). Each rank runs its
block on its own device: with ``device=None`` its machine's hardware Vulkan GPU number ``local
rank mod GPUs`` (lavapipe counts only where software adapters are allowed), else the ``cpu``
device; any other ``device=`` is passed to every rank's ``Module.spawn`` as it is.

Every method is collective: every rank of the communicator calls it, in the same order. Results,
streams, exit codes, files and traps come back on every rank in global instance order. When
anything fails on any rank (a bad argument, a trap, a device error), every rank raises: a trap is
one ``wasmgpu.Trap`` whose ``traps`` and ``results`` are keyed by global index; any other error is
the lowest failing rank's exception, re-raised on every rank with a note naming the rank. No
rank is left waiting in a collective: each step first agrees on success with an allgather.

A call stops on every rank when one rank stops it: its ``cancel`` returns true (every rank raises
that rank's ``InterruptedError``), a SIGINT reaches it (every rank raises ``KeyboardInterrupt``)
or its part fails. That rank tells the others with non-blocking messages on a duplicate of the
communicator, which they probe between their dispatches and while they wait for the slowest rank.

mpi4py is imported when a function here is first called; without it they raise ImportError
saying how to install it.
"""

from __future__ import annotations

import pickle
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from wasmgpu.errors import Trap, WasmGPUError


class RankError(WasmGPUError, RuntimeError):
    """Another rank's exception that could not be rebuilt here (its class could not be pickled or
    constructed): ``rank`` and ``type_name`` say where and what it was."""

    def __init__(self, message: str, rank: int = -1, type_name: str = "") -> None:
        super().__init__(message)
        self.rank = rank
        self.type_name = type_name


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError("wasmgpu.mpi needs mpi4py (pip install mpi4py, built against the MPI that mpirun "
                          "belongs to)") from error
    return MPI


def block_ranges(count: int, size: int) -> List[range]:
    """The global instance indices of each rank: consecutive blocks, remainders to the lowest ranks."""
    base, extra = divmod(count, size)
    ranges, start = [], 0
    for rank in range(size):
        stop = start + base + (1 if rank < extra else 0)
        ranges.append(range(start, stop))
        start = stop
    return ranges


def local_rank(comm) -> int:
    """Collective: this rank's index among the ranks of ``comm`` on its machine."""
    node = comm.Split_type(_mpi().COMM_TYPE_SHARED)
    try:
        return node.rank
    finally:
        node.Free()


def rank_device(local_rank: int, allow_software: bool = False):
    """The device of the rank ``local_rank`` on its machine: the Vulkan GPU ``local_rank mod GPUs``
    (by index), else "cpu". Software adapters count only where allowed."""
    import os

    from wasmgpu import _native

    allowed = allow_software or os.environ.get("WAVESTACK_ALLOW_SOFTWARE_GPU") == "1"
    gpus = [d["index"] for d in _native.list_devices() if allowed or not d["is_software"]]
    return gpus[local_rank % len(gpus)] if gpus else "cpu"


# ---- agreeing on failure --------------------------------------------------------------------

def _portable(error: BaseException):
    """What another rank needs to raise the same exception: its pickle when that round-trips,
    else its class name and message."""
    try:
        data = pickle.dumps(error)
        pickle.loads(data)
        return ("pickle", data)
    except Exception:  # noqa: BLE001 - any exception class may refuse pickling
        return ("text", f"{type(error).__module__}.{type(error).__qualname__}", str(error))


def _rebuild(payload, rank: int) -> BaseException:
    if payload[0] == "pickle":
        return pickle.loads(payload[1])
    return RankError(f"{payload[1]} on rank {rank}: {payload[2]}", rank, payload[1])


def _agree(comm, error: Optional[BaseException]) -> None:
    """Collective: returns when no rank failed; otherwise raises, on every rank, the lowest failing
    rank's exception (the original object on that rank)."""
    _raise_first(comm, error, comm.allgather(None if error is None else _portable(error)))


def _raise_first(comm, error: Optional[BaseException], payloads: List) -> None:
    """``_agree`` once every rank's ``_portable`` failure (or None) has been gathered."""
    failed = [rank for rank, payload in enumerate(payloads) if payload is not None]
    if not failed:
        return
    first = failed[0]
    raised = error if first == comm.rank else _rebuild(payloads[first], first)
    others = f"; ranks that failed: {failed}" if len(failed) > 1 else ""
    raised.add_note(f"wasmgpu.mpi: raised on rank {first} of {comm.size}{others}")
    if error is not None and raised is not error:
        raise raised from error  # this rank's own failure stays visible as the cause
    raise raised


def _attempt(action: Callable[[], Any]):
    """(value, None) or (None, the exception), so that a failure still reaches the next collective."""
    try:
        return action(), None
    except Exception as error:  # noqa: BLE001 - every failure is agreed on, then re-raised
        return None, error


# ---- stopping a call on every rank ----------------------------------------------------------

_MAX_QUANTA_PER_STEP = 65536  # as Instances.call without a cancel (the device bounds a step by time)
_STOP_TAG = 34  # on the spawn's own duplicate communicator, so no message of the program's can match
_POLL_FIRST_S, _POLL_MAX_S = 20e-6, 2e-3  # waiting for the slowest rank: short sleeps, growing
# Probing makes MPI progress its requests, several microseconds each time; once a millisecond is
# often enough for a stop and keeps it off a call whose dispatches take microseconds.
_PROBE_INTERVAL_S = 1e-3


class _DeferredInterrupt:
    """While a call runs, a SIGINT (Ctrl-C) on this rank is recorded instead of raising
    KeyboardInterrupt wherever Python happens to be: raised inside a collective or between two of
    them, it would leave the other ranks waiting forever. The call's checks turn it into a stop
    that every rank agrees on. Installed only on the main thread (the only one Python delivers
    signals to) and only over Python's default handler: a handler of the program's own is kept."""

    def __init__(self, enabled: bool) -> None:
        self.pending = False
        self._enabled = enabled
        self._previous = None

    def __enter__(self) -> "_DeferredInterrupt":
        import signal
        import threading

        if (self._enabled and threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._record)
        return self

    def _record(self, signum, frame) -> None:
        self.pending = True

    def take(self) -> bool:
        """Whether a SIGINT arrived that nothing has acted on yet (it is acted on now)."""
        pending, self.pending = self.pending, False
        return pending

    def __exit__(self, *exc) -> None:
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        if self.take():
            # It came after this rank had handed in its part of the outcome: too late for the
            # others to agree on, so it is raised here only, as it would be just after any call.
            raise KeyboardInterrupt


class _CallStop:
    """One call's stop messages. A rank whose part fails, is cancelled or is interrupted sends
    this call's sequence number to every other rank (non-blocking); the others see it with a
    non-blocking probe. Every message is received before the call returns or raises (``drain``),
    so none can stop a later call."""

    def __init__(self, comm, sequence: int) -> None:
        self.comm = comm
        self.sequence = sequence
        self.posted = False
        self.received: set = set()
        self._sends: List = []
        self._next_probe = 0.0

    def post(self) -> None:
        if not self.posted:
            self.posted = True
            self._sends = [self.comm.isend(self.sequence, dest=rank, tag=_STOP_TAG)
                           for rank in range(self.comm.size) if rank != self.comm.rank]

    def seen(self) -> bool:
        """Whether another rank has stopped this call (probing at most once per _PROBE_INTERVAL_S)."""
        now = time.perf_counter()
        if now < self._next_probe or self.comm.size == 1:
            return bool(self.received)
        self._next_probe = now + _PROBE_INTERVAL_S
        MPI = _mpi()
        status = MPI.Status()
        while self.comm.iprobe(source=MPI.ANY_SOURCE, tag=_STOP_TAG, status=status):
            source = status.Get_source()
            if self.comm.recv(source=source, tag=_STOP_TAG) == self.sequence:
                self.received.add(source)
            # An earlier call's stop cannot still be pending (each call drains its own); were one
            # there, it must not stop this call.
        return bool(self.received)

    def drain(self, posters: List[int]) -> None:
        """Receives every stop of this call not yet received (``posters``: the ranks that sent
        one, as the agreement reported them) and completes this rank's own sends."""
        for source in posters:
            if source != self.comm.rank and source not in self.received:
                self.comm.recv(source=source, tag=_STOP_TAG)
                self.received.add(source)
        _mpi().Request.waitall(self._sends)
        self._sends = []


# ---- spawn and the instances ----------------------------------------------------------------

def spawn(module, count: int, *, comm=None, device=None, allow_software: bool = False, **options) -> "MpiInstances":
    """Collective: ``count`` instances of ``module`` over the ranks of ``comm``.

    Args:
        module: a ``wasmgpu.Module`` (the same module on every rank).
        count: instances in all, the same on every rank; rank r holds ``block_ranges(count, size)[r]``.
        comm: an mpi4py communicator (default ``MPI.COMM_WORLD``).
        device: None for each rank's own GPU (``local rank mod GPUs``), else the cpu device;
            anything else is passed to every rank's ``Module.spawn``.
        allow_software: whether software Vulkan adapters (lavapipe) count as GPUs.
        **options: ``Module.spawn``'s other arguments (``wasi=``, ``fuel=``, ``memory_pages=``, ...).

    Returns:
        An ``MpiInstances`` (a context manager).

    Raises:
        ImportError: mpi4py is missing.
        TypeError: ``comm`` is not a communicator (before any communication).
        Exception: whatever ``Module.spawn`` raises on any rank, raised on every rank; a
            ``ValueError`` when the ranks pass different counts.
    """
    MPI = _mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
        raise TypeError(f"comm: expected an mpi4py communicator, got {type(comm).__name__}")
    on_machine = local_rank(comm)  # collective, so every rank runs it before anything can fail

    def local_spawn():
        from wasmgpu.module import Module
        from wasmgpu.spawn import check_int

        if not isinstance(module, Module):
            raise TypeError(f"module: expected a wasmgpu.Module, got {type(module).__name__}")
        check_int("count", count, 0, 2**32 - 1)
        where = rank_device(on_machine, allow_software) if device is None else device
        block = block_ranges(count, comm.size)[comm.rank]
        # first_instance: WASI random streams keyed by global index, as in one whole spawn.
        return module.spawn(len(block), device=where, allow_software=allow_software, first_instance=block.start,
                            **options), block

    spawned, error = _attempt(local_spawn)
    # A count that differs between ranks would split the instances inconsistently: refuse it.
    counts = comm.allgather(count if isinstance(count, int) else None)
    if error is None and len(set(counts)) != 1:
        error = ValueError(f"count: every rank must pass the same count, got {counts} (by rank)")
    try:
        _agree(comm, error)
    except BaseException:
        if spawned is not None:
            spawned[0].close()
        raise
    return MpiInstances(comm, spawned[0], spawned[1], count)


class MpiInstances:
    """The instances of one ``wasmgpu.mpi.spawn``: this rank's ``local`` block (a
    ``wasmgpu.Instances``, global indices ``local_range``) and collective methods over all."""

    def __init__(self, comm, local, local_range: range, count: int) -> None:
        """Collective (it duplicates ``comm``); ``spawn`` makes these."""
        self.comm = comm
        self.local = local
        # Stops and cancels are checked between the cpu device's steps of several dispatches (a
        # few milliseconds each), not after every dispatch: one dispatch per step made calls on
        # several ranks 1.7 times slower.
        local._quanta_with_cancel = _MAX_QUANTA_PER_STEP
        self.local_range = local_range
        self._count = count
        self._ranges = block_ranges(count, comm.size)
        # Stop messages travel on a communicator of their own, so that they can match neither the
        # program's messages on comm nor its probes.
        self._stop_comm = comm.Dup()
        self._calls = 0  # calls so far, the same on every rank: each call's stop messages carry it

    # -- lifetime ----------------------------------------------------------------------------
    def close(self) -> None:
        """Releases this rank's instances (not collective: it waits for no other rank)."""
        self.local.close()
        stop_comm, self._stop_comm = self._stop_comm, None
        # MPI_Comm_free is collective in the standard, but neither Open MPI nor MPICH waits in it
        # for the other ranks; every call drained its own stop messages, so none is pending.
        if stop_comm is not None and not _mpi().Is_finalized():
            stop_comm.Free()

    def _check_open(self) -> None:
        if self._stop_comm is None:
            raise RuntimeError("these instances are closed")
        self.local._live()

    def __enter__(self) -> "MpiInstances":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        """Instances in all, over every rank."""
        return self._count

    @property
    def count(self) -> int:
        """Instances in all, over every rank."""
        return self._count

    @property
    def last_call(self):
        """This rank's ``CallStats`` of the latest call (its own instances only)."""
        return self.local.last_call

    @property
    def devices(self) -> List[str]:
        """Collective: each rank's device name, by rank."""
        return self.comm.allgather(self.local.device)

    def owner(self, instance: int) -> int:
        """The rank that holds global instance ``instance``."""
        from wasmgpu.instances import _check_index

        instance = _check_index("instance", instance, self._count)
        return next(rank for rank, block in enumerate(self._ranges) if instance in block)

    # -- calls -------------------------------------------------------------------------------
    def _scatter_inputs(self, inputs, root: int):
        """This rank's rows of ``inputs`` as root holds them (None stays None everywhere)."""
        chunks, error = None, None
        if self.comm.rank == root:
            chunks, error = _attempt(lambda: _split_inputs(inputs, self._ranges))
        _agree(self.comm, error)
        return self.comm.scatter(chunks, root=root)

    def call(self, name: str, inputs: Optional[Sequence] = None, *, root: int = 0, fuel: Optional[int] = None,
             cancel: Optional[Callable[[], bool]] = None, results: str = "list"):
        """Collective ``Instances.call`` over every instance.

        Args:
            name: the exported function.
            inputs: one row per global instance, or NumPy arrays, as ``Instances.call`` takes
                them; read on rank ``root`` only and scattered (other ranks may pass None).
            root: the rank whose ``inputs`` count, the same on every rank.
            fuel: each instance's budget (None: the spawn's).
            cancel: this rank's callable (each rank may pass its own, or None), checked before its
                first dispatch, between its dispatches and, once its instances have finished,
                while it waits for the other ranks. When it returns true on any rank, the call
                stops on every rank.
            results: "list" or "numpy", as ``Instances.call``.

        Returns:
            Every instance's result in global order, on every rank.

        Raises:
            wasmgpu.Trap: some instances trapped, on any rank: ``traps`` and ``results`` by
                global index, raised on every rank.
            InterruptedError: ``cancel()`` returned true on some rank: that rank's exception, on
                every rank (effects so far persist, as in one process).
            KeyboardInterrupt: a SIGINT reached some rank during the call (on the main thread,
                over Python's default handler), or a rank's ``cancel`` raised it: on every rank.
            ValueError: ``root`` is not a rank or differs between ranks, or ``inputs`` has not
                one row per instance; any other error of a rank's call, on every rank.
            TypeError: ``cancel`` is neither callable nor None (on any rank).
        """
        # One rank leaves no other waiting: a SIGINT raises where it lands, as in one process.
        with _DeferredInterrupt(enabled=self.comm.size > 1) as interrupt:
            valid = not isinstance(root, bool) and isinstance(root, int) and 0 <= root < self.comm.size
            roots = self.comm.allgather(root if valid else None)
            error = None
            if not valid:
                error = ValueError(f"root: expected a rank of the communicator (0 to {self.comm.size - 1}), "
                                   f"got {root!r}")
            elif len(set(roots)) != 1:
                error = ValueError(f"root: every rank must pass the same root, got {roots} (by rank)")
            elif cancel is not None and not callable(cancel):
                error = TypeError(f"cancel: expected a callable or None, got {type(cancel).__name__}")
            else:
                error = _attempt(self._check_open)[1]
            _agree(self.comm, error)
            rows = self._scatter_inputs(inputs, root)
            self._calls += 1
            outcome, trap = self._call_everywhere(name, rows, fuel, cancel, results, interrupt)
            start = self.local_range.start
            local_traps = {start + i: reason for i, reason in trap.traps.items()} if trap is not None else {}
            gathered = self.comm.allgather((trap.results if trap is not None else outcome, local_traps))
            values = _concatenate([part for part, _ in gathered], results)
            traps = {index: reason for _, part in gathered for index, reason in part.items()}
            if traps:
                first = min(traps)
                hint = self.local._limit_hint(traps[first], self.local.fuel if fuel is None else fuel)
                raise Trap(f"{len(traps)} of {self._count} instances trapped in {name!r} on {self.comm.size} ranks; "
                           f"instance {first} (rank {self.owner(first)}): {traps[first]}{hint}", traps, values)
            return values

    def _call_everywhere(self, name, rows, fuel, cancel, results, interrupt: _DeferredInterrupt):
        """Runs this rank's part of the call, stopping it when another rank stops the call, waits
        for every rank's part, and agrees on the outcome: (this rank's results, its Trap or None),
        or the stopping rank's exception raised on every rank."""
        stop = _CallStop(self._stop_comm, self._calls)
        rank = self.comm.rank
        why: List[str] = []  # what ended this rank's part early: "cancel", "interrupt" or "stop"

        def stopped_by() -> Optional[str]:
            # The user's callback first: it is consulted as often as in one process.
            if cancel is not None and cancel():
                return "cancel"
            if interrupt.take():
                return "interrupt"
            return "stop" if stop.seen() else None

        def check() -> bool:
            reason = stopped_by()
            if reason is not None:
                why.append(reason)
            return reason is not None

        # The check is consulted between native steps, each up to a few milliseconds of several
        # dispatches on the cpu device (MpiInstances.__init__); one rank alone without a cancel of
        # its own does not need one.
        local_cancel = check if self.comm.size > 1 or cancel is not None else None
        try:
            outcome, error = self.local.call(name, rows, fuel=fuel, cancel=local_cancel, results=results), None
        except BaseException as raised:  # KeyboardInterrupt too: it must reach the agreement like any failure
            outcome, error = None, raised
        trap = error if isinstance(error, Trap) else None
        halted = False  # another rank stopped the call
        if isinstance(error, InterruptedError) and why and why[-1] != "cancel":
            halted = why[-1] == "stop"
            if halted:
                error = None  # the rank that stopped the call reports why
            else:
                dispatches = self.local.last_call.dispatches
                error = KeyboardInterrupt(f"call {name!r} interrupted by SIGINT on rank {rank} after {dispatches} "
                                          "of its dispatches; effects so far persist")
        elif trap is not None:
            error = None  # a trap is gathered with the results, as one process returns them beside it
        if error is not None:
            stop.post()

        # Wait for every rank's part without blocking: until the slowest rank is done, this one
        # still answers to its own cancel and Ctrl-C (and so can stop the others).
        waiting = error is None and not halted
        barrier = self._stop_comm.Ibarrier()
        pause = _POLL_FIRST_S
        while True:
            try:
                if barrier.Test():
                    break
                reason = stopped_by() if waiting else None
                if reason == "cancel":
                    error = InterruptedError(f"call {name!r} cancelled on rank {rank} while other ranks ran (its "
                                             "own instances had finished); effects so far persist")
                elif reason == "interrupt":
                    error = KeyboardInterrupt(f"call {name!r} interrupted by SIGINT on rank {rank} while other "
                                              "ranks ran (its own instances had finished); effects so far persist")
                if reason is not None:
                    waiting = False
                time.sleep(pause)
                pause = min(2 * pause, _POLL_MAX_S)
            except _mpi().Exception:
                raise  # MPI itself failed: no agreement can follow
            except BaseException as raised:  # the program's own SIGINT handler, or its cancel, raised
                waiting, error = False, raised
            if error is not None:
                stop.post()
        if error is None and interrupt.take():
            # A Ctrl-C that came while the barrier completed still counts for this call.
            error = KeyboardInterrupt(f"call {name!r} interrupted by SIGINT on rank {rank} as the ranks finished")
            stop.post()
        reports = self.comm.allgather((None if error is None else _portable(error), stop.posted))
        stop.drain([source for source, (_, posted) in enumerate(reports) if posted])
        _raise_first(self.comm, error, [payload for payload, _ in reports])
        return outcome, trap

    # -- gathered state --------------------------------------------------------------------
    def _allgather_local(self, read: Callable[[], List]) -> List:
        value, error = _attempt(read)
        _agree(self.comm, error)
        return [item for part in self.comm.allgather(value) for item in part]

    @property
    def stdout(self) -> List[bytes]:
        """Collective: every instance's captured standard output, in global order."""
        return self._allgather_local(lambda: self.local.stdout)

    @property
    def stderr(self) -> List[bytes]:
        """Collective: every instance's captured standard error, in global order."""
        return self._allgather_local(lambda: self.local.stderr)

    @property
    def exit_codes(self) -> List[Optional[int]]:
        """Collective: every instance's proc_exit code (None while it has not exited), in global order."""
        return self._allgather_local(lambda: list(self.local.exit_codes))

    def _on_owner(self, instance, action: Callable[[int], Any]):
        """Runs action(local index) on the rank that owns global ``instance``; its value on every rank."""
        owner, error = _attempt(lambda: self.owner(instance))
        # Ranks passing different indices would broadcast from different owners: refuse it first.
        passed = self.comm.allgather(instance if error is None else None)
        if error is None and len(set(passed)) != 1:
            error = ValueError(f"instance: every rank must pass the same instance, got {passed} (by rank)")
        if error is None:
            error = _attempt(self._check_open)[1]
        _agree(self.comm, error)
        value, error = (None, None)
        if self.comm.rank == owner:
            local = instance - self.local_range.start
            value, error = _attempt(lambda: action(local))
            if error is not None:  # its message counts instances on this rank
                error.add_note(f"wasmgpu.mpi: instance {local} of rank {owner} is global instance {instance}")
        _agree(self.comm, error)
        return self.comm.bcast(value, root=owner)

    def read_memory(self, address: int, length: int, instance: int) -> bytes:
        """Collective: ``length`` bytes at ``address`` of global instance ``instance``, on every rank."""
        return self._on_owner(instance, lambda local: self.local.read_memory(address, length, instance=local))

    def write_memory(self, address: int, data: bytes, instance: int) -> None:
        """Collective: writes ``data`` (as passed on the owning rank) into global instance ``instance``."""
        self._on_owner(instance, lambda local: self.local.write_memory(address, data, instance=local))

    def read_file(self, path: str, *, instance: int = 0) -> bytes:
        """Collective: a file of global instance ``instance``'s WASI file system, on every rank."""
        return self._on_owner(instance, lambda local: self.local.read_file(path, instance=local))

    def write_file(self, path: str, data: bytes, *, instance: int = 0) -> None:
        """Collective: writes a file into global instance ``instance`` (``data`` as the owner passes it)."""
        self._on_owner(instance, lambda local: self.local.write_file(path, data, instance=local))

    def files(self, *, instance: int = 0) -> Dict[str, bytes]:
        """Collective: every regular file of global instance ``instance``'s WASI file system,
        {path: bytes} as ``Instances.files`` gives it, on every rank. Every rank raises the same
        exception, before any rank reads anything.

        Raises:
            IndexError: ``instance`` is not below ``count``.
            ValueError: ``instance`` is negative or differs between ranks.
            TypeError: ``instance`` is not an int.
        """
        return self._on_owner(instance, lambda local: self.local.files(instance=local))

    def reset(self) -> None:
        """Collective ``Instances.reset`` of every instance on every rank: memory, globals and
        tables back to the module's initial state, the start function rerun (within the spawn's
        fuel), ``exit_codes`` None again. Every rank raises the same exception.

        Raises:
            Trap: the start function trapped; ``traps`` by global index, ``results`` None for
                every instance.
            RuntimeError: the instances are closed on some rank (then no rank resets anything).
        """
        _agree(self.comm, _attempt(self._check_open)[1])
        _, error = _attempt(self.local.reset)
        trap = error if isinstance(error, Trap) else None
        _agree(self.comm, None if trap is not None else error)
        start = self.local_range.start
        local_traps = {start + i: reason for i, reason in trap.traps.items()} if trap is not None else {}
        traps = {index: reason for part in self.comm.allgather(local_traps) for index, reason in part.items()}
        if traps:
            first = min(traps)
            raise Trap(f"the start function trapped during reset in {len(traps)} of {self._count} instances on "
                       f"{self.comm.size} ranks; instance {first} (rank {self.owner(first)}): {traps[first]}",
                       traps, [None] * self._count)

    def __repr__(self) -> str:
        return (f"<wasmgpu.mpi.MpiInstances: {self._count} instances over {self.comm.size} ranks; this rank "
                f"holds {self.local_range.start}..{self.local_range.stop - 1} on {self.local.device}>")


def _split_inputs(inputs, ranges: List[range]):
    """Per rank, its rows of ``inputs`` (None for None): a sequence of rows, a NumPy array (rows
    along its first axis) or a tuple of NumPy arrays (one per parameter)."""
    import numpy as np

    if inputs is None:
        return [None] * len(ranges)
    count = ranges[-1].stop
    per_parameter = isinstance(inputs, tuple) and inputs and all(isinstance(a, np.ndarray) for a in inputs)
    arrays = inputs if per_parameter else None
    if per_parameter:
        lengths = {len(a) for a in arrays}
        if lengths != {count}:
            raise ValueError(f"inputs: expected arrays of {count} rows (one per instance), got lengths {sorted(lengths)}")
        return [tuple(a[block.start:block.stop] for a in arrays) for block in ranges]
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__") or not hasattr(inputs, "__getitem__"):
        raise TypeError(f"inputs: expected one row per instance (a sequence or NumPy array), got {type(inputs).__name__}")
    if len(inputs) != count:
        raise ValueError(f"inputs: expected {count} rows (one per instance), got {len(inputs)}")
    return [inputs[block.start:block.stop] for block in ranges]


def _concatenate(parts: List, results: str):
    """Per-rank results joined in rank order: lists, or with results="numpy" arrays (a tuple of
    arrays for several results; None for none)."""
    if results != "numpy":
        return [value for part in parts for value in (part or [])]
    import numpy as np

    present = [part for part in parts if part is not None]
    if not present:
        return None
    if isinstance(present[0], tuple):
        return tuple(np.concatenate([part[k] for part in present]) for k in range(len(present[0])))
    return np.concatenate(present)


__all__ = ["spawn", "MpiInstances", "RankError", "block_ranges", "local_rank", "rank_device"]
