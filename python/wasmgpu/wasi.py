"""``wasmgpu.Wasi``: the configuration of the virtual WASI environment every instance gets.

Names and defaults are the original package's, with ``preopen`` (ours: the name the root
directory is preopened under at fd 3; None preopens nothing, as a runner without ``--dir``). Every argument is checked here, each error naming
it, and every content is copied, so later changes to the caller's objects change nothing.
The device builds each instance's environment from it (src/wasm/wasi/wasi_config.*).
"""

from __future__ import annotations

from typing import Dict, Iterable, Mapping, Optional, Tuple, Union

from wasmgpu.guest_files import MAX_PATH_BYTES, check_files

_U32 = 2**32 - 1
_U64 = 2**64 - 1
QUOTA_RANGE = (4, 2**31 - 1)

Text = Union[str, bytes]


def _as_bytes(name: str, value, what: str) -> bytes:
    if isinstance(value, str):
        data = value.encode("utf-8")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    else:
        raise TypeError(f"{name}: {what} must be str or bytes, got {type(value).__name__}")
    if b"\0" in data:
        raise ValueError(f"{name}: {what} {value!r} contains a NUL character")
    return data


def _check_args(args) -> Tuple[bytes, ...]:
    if isinstance(args, (str, bytes)) or not isinstance(args, Iterable):
        raise TypeError(f"args: expected a sequence of strings, got {type(args).__name__}")
    return tuple(_as_bytes("args", arg, f"argument {k}") for k, arg in enumerate(args))


def _check_env(env) -> Tuple[Tuple[bytes, bytes], ...]:
    if env is None:
        return ()
    if not isinstance(env, Mapping):
        raise TypeError(f"env: expected a mapping of names to values, got {type(env).__name__}")
    entries = []
    for key, value in env.items():
        key_bytes = _as_bytes("env", key, "a name")
        if not key_bytes:
            raise ValueError("env: a variable name must not be empty")
        if b"=" in key_bytes:
            raise ValueError(f"env: the name {key!r} contains '='")
        entries.append((key_bytes, _as_bytes("env", value, f"the value of {key!r}")))
    return tuple(entries)


def _check_quota(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    low, high = QUOTA_RANGE
    if not low <= value <= high:
        raise ValueError(f"{name}: must be between {low} and {high}, got {value}")
    return value


def _check_seed(seed) -> bytes:
    """The 32-byte ChaCha20 key: the bytes given, or a nonzero u32 in key word 0 (little-endian)."""
    if isinstance(seed, (bytes, bytearray, memoryview)):
        key = bytes(seed)
        if len(key) != 32:
            raise ValueError(f"seed: a key must be 32 bytes, got {len(key)}")
        return key
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed: expected a nonzero u32 or 32 bytes, got {type(seed).__name__}")
    if not 1 <= seed <= _U32:
        raise ValueError(f"seed: must be a nonzero u32 (1 to {_U32}) or 32 bytes, got {seed}")
    return seed.to_bytes(4, "little") + bytes(28)


def _check_clock(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: expected an int (nanoseconds), got {type(value).__name__}")
    if not 0 <= value <= _U64:
        raise ValueError(f"{name}: must fit in an unsigned 64-bit count of nanoseconds, got {value}")
    return value


def _check_preopen(preopen) -> Optional[bytes]:
    if preopen is None:  # no directory capability at all (fd 3 is free)
        return None
    if not isinstance(preopen, str):
        raise TypeError(f"preopen: expected a string or None, got {type(preopen).__name__}")
    data = _as_bytes("preopen", preopen, "the name")
    if not data:
        raise ValueError("preopen: the name must not be empty")
    if len(data) > MAX_PATH_BYTES:
        raise ValueError(f"preopen: the name is longer than {MAX_PATH_BYTES} UTF-8 bytes")
    return data


class Wasi:
    """What the WASI imports see: ``args``, ``env``, ``stdin``, embedded ``files`` (which
    override same-named ``Module(files=...)`` entries), quotas (``storage_size`` bytes of
    content including stdin, stdout and stderr; ``max_files`` inodes including directories,
    symlinks and four reserved entries; ``max_fds`` descriptors), the ChaCha20 ``seed`` of
    ``random_get``, and the virtual clock (``clock_epoch_ns`` at the start, advancing
    ``clock_resolution_ns`` per executed instruction).

    Args:
        files: ``{guest path: bytes}`` embedded in every instance.
        args: the command line (``argv``), strings or bytes.
        env: ``{name: value}`` environment, strings or bytes.
        stdin: the bytes standard input reads.
        storage_size: bytes of file content per instance.
        max_files: inodes per instance.
        max_fds: open descriptors per instance.
        seed: the ``random_get`` key: a nonzero u32, or 32 bytes.
        clock_epoch_ns: the clocks' reading at the start.
        clock_resolution_ns: nanoseconds the clocks advance per executed instruction (at least 1).
        preopen: the name fd 3 is preopened under, or None to preopen nothing.

    Raises:
        TypeError: an argument has the wrong type.
        ValueError: a path, quota, seed or clock value is out of range.
    """

    def __init__(self, *, files: Optional[Mapping[str, bytes]] = None, args: Iterable[Text] = (),
                 env: Optional[Mapping[Text, Text]] = None, stdin: bytes = b"", storage_size: int = 65536,
                 max_files: int = 32, max_fds: int = 64, seed: Union[int, bytes] = 1, clock_epoch_ns: int = 0,
                 clock_resolution_ns: int = 1, preopen: Optional[str] = ".") -> None:
        self.files: Dict[str, bytes] = check_files(files)
        self.args: Tuple[bytes, ...] = _check_args(args)
        self.env: Tuple[Tuple[bytes, bytes], ...] = _check_env(env)
        if not isinstance(stdin, (bytes, bytearray, memoryview)):
            raise TypeError(f"stdin: expected bytes, got {type(stdin).__name__}")
        self.stdin = bytes(stdin)
        self.storage_size = _check_quota("storage_size", storage_size)
        self.max_files = _check_quota("max_files", max_files)
        self.max_fds = _check_quota("max_fds", max_fds)
        self.key = _check_seed(seed)
        self.seed = seed if isinstance(seed, int) else self.key
        self.clock_epoch_ns = _check_clock("clock_epoch_ns", clock_epoch_ns)
        self.clock_resolution_ns = _check_clock("clock_resolution_ns", clock_resolution_ns)
        if self.clock_resolution_ns == 0:  # a clock that never advances (the original refuses it too)
            raise ValueError("clock_resolution_ns: must be at least 1 nanosecond per instruction, got 0")
        self.preopen = _check_preopen(preopen)

    def merged_files(self, module_files: Mapping[str, bytes]) -> Dict[str, bytes]:
        """The module's embedded files with this configuration's on top."""
        merged = dict(module_files)
        merged.update(self.files)
        return merged

    def __repr__(self) -> str:
        return (f"<wasmgpu.Wasi: {len(self.args)} args, {len(self.env)} env, {len(self.files)} files, "
                f"storage {self.storage_size} B>")


__all__ = ["Wasi"]
