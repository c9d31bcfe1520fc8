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
streams, exit codes and traps come back on every rank in global instance order. When anything
fails on any rank (a bad argument, a trap, a device error), every rank raises: a trap is one
``wasmgpu.Trap`` whose ``traps`` and ``results`` are keyed by global index; any other error is
the lowest failing rank's exception, re-raised on every rank with a note naming the rank. No
rank is left waiting in a collective: each step first agrees on success with an allgather.

mpi4py is imported when a function here is first called; without it they raise ImportError
saying how to install it.
"""

from __future__ import annotations

import pickle
from typing import Any, Callable, List, Optional, Sequence

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
    payloads = comm.allgather(None if error is None else _portable(error))
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
        self.comm = comm
        self.local = local
        self.local_range = local_range
        self._count = count
        self._ranges = block_ranges(count, comm.size)

    # -- lifetime ----------------------------------------------------------------------------
    def close(self) -> None:
        """Releases this rank's instances (not collective)."""
        self.local.close()

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
             results: str = "list"):
        """Collective ``Instances.call`` over every instance.

        Args:
            name: the exported function.
            inputs: one row per global instance, or NumPy arrays, as ``Instances.call`` takes
                them; read on rank ``root`` only and scattered (other ranks may pass None).
            root: the rank whose ``inputs`` count, the same on every rank.
            fuel: each instance's budget (None: the spawn's).
            results: "list" or "numpy", as ``Instances.call``.

        Returns:
            Every instance's result in global order, on every rank.

        Raises:
            wasmgpu.Trap: some instances trapped, on any rank: ``traps`` and ``results`` by
                global index, raised on every rank.
            ValueError: ``root`` is not a rank or differs between ranks, or ``inputs`` has not
                one row per instance; any other error of a rank's call, on every rank.
        """
        valid = not isinstance(root, bool) and isinstance(root, int) and 0 <= root < self.comm.size
        roots = self.comm.allgather(root if valid else None)
        error = None
        if not valid:
            error = ValueError(f"root: expected a rank of the communicator (0 to {self.comm.size - 1}), got {root!r}")
        elif len(set(roots)) != 1:
            error = ValueError(f"root: every rank must pass the same root, got {roots} (by rank)")
        _agree(self.comm, error)
        rows = self._scatter_inputs(inputs, root)
        outcome, error = _attempt(lambda: self.local.call(name, rows, fuel=fuel, results=results))
        trap = error if isinstance(error, Trap) else None
        _agree(self.comm, None if trap is not None else error)
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
