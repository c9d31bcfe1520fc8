"""wasmgpu's virtual WASI semantics, one property at a time, on the cpu device and on the
selected Vulkan device: proc_exit and proc_raise per instance, the virtual clock's exact
values, ChaCha20 random streams against an independent ChaCha20 written here (RFC 8439),
capability escapes compared with wasmtime, quotas, reset, and 100,003 printing instances.
The modules are small WAT programs so that each test names what it checks."""

from __future__ import annotations

import struct

import pytest
import wasmtime

import oracles
import wasmgpu

ERRNO_SUCCESS, ERRNO_MFILE, ERRNO_NFILE, ERRNO_NOSPC, ERRNO_NOTCAPABLE = 0, 33, 41, 51, 76


@pytest.fixture(params=["cpu", "gpu"])
def where(request):
    """spawn() keywords of the device under test."""
    if request.param == "cpu":
        return {"device": "cpu"}
    if wasmgpu._native.select_device(False) is None:
        import device_support

        reason = "no usable Vulkan device (software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)"
        if device_support.gpu_required():
            pytest.fail(reason)
        pytest.skip(reason)
    return {}


def module(body: str) -> wasmgpu.Module:
    return wasmgpu.Module(wasmtime.wat2wasm(f"(module {body})"))


IMPORTS = """
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "proc_raise" (func $proc_raise (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_res_get" (func $clock_res_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (memory (export "memory") 1)
"""


# -- proc_exit / proc_raise -------------------------------------------------------------------

def test_proc_exit_ends_only_that_instances_call(where):
    m = module(IMPORTS + """
      (func (export "run") (param i32) (result i32)
        (if (local.get 0) (then (call $proc_exit (local.get 0))))
        (i32.const 42))""")
    with m.spawn(4, **where) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("run", [0, 3, 0, 255])
        assert raised.value.traps == {1: "WASI proc_exit", 3: "WASI proc_exit"}
        assert raised.value.results == [42, None, 42, None]
        assert instances.exit_codes == [None, 3, None, 255]
        instances.reset()
        assert instances.exit_codes == [None] * 4
        assert instances.call("run", [0] * 4) == [42] * 4


def test_proc_raise_terminates_and_signal_zero_does_nothing(where):
    m = module(IMPORTS + """(func (export "raise") (param i32) (result i32) (call $proc_raise (local.get 0)))""")
    with m.spawn(3, **where) as instances:
        with pytest.raises(wasmgpu.Trap) as raised:
            instances.call("raise", [0, 6, 31])
        assert raised.value.traps == {1: "WASI proc_raise"}
        assert raised.value.results[0] == 0 and raised.value.results[2] == 28  # 31 > SIGSYS: INVAL


# -- the virtual clock -----------------------------------------------------------------------------

CLOCK = IMPORTS + """
  (func (export "now") (param i32) (result i64)
    (drop (call $clock_time_get (local.get 0) (i64.const 0) (i32.const 0)))
    (i64.load (i32.const 0)))
  (func (export "res") (param i32) (result i32 i64)
    (call $clock_res_get (local.get 0) (i32.const 8)) (i64.load (i32.const 8)))
  (func (export "spin") (param i32)
    (loop $l (local.set 0 (i32.sub (local.get 0) (i32.const 1))) (br_if $l (local.get 0))))
"""
# Instructions `now` executes up to and including its clock_time_get call: 3 constants, the call.
NOW_INSTRUCTIONS = 4


def test_clocks_count_executed_instructions_exactly(where):
    epoch, resolution = 1_700_000_000_000_000_000, 7
    wasi = wasmgpu.Wasi(clock_epoch_ns=epoch, clock_resolution_ns=resolution)
    with module(CLOCK).spawn(2, wasi=wasi, **where) as instances:
        first = instances.call("now", [0, 1])  # realtime and monotonic read the same counter
        assert first == [epoch + resolution * NOW_INSTRUCTIONS] * 2
        instances.call("spin", [1000, 10])
        second = instances.call("now", [1, 1])
        # Each instance's clock advanced by its own instructions: instance 0 spun longer.
        assert second[0] > second[1] > first[1]
        assert (second[0] - epoch) % resolution == 0 and (second[1] - epoch) % resolution == 0
        assert instances.call("res", [0, 3]) == [(0, resolution), (0, resolution)]
        assert instances.call("res", [4, 4])[0][0] == 28  # no such clock: INVAL
        instances.reset()
        assert instances.call("now", [0, 0]) == first  # reset restarts the clock


def test_clock_advances_one_resolution_per_instruction(where):
    wasi = wasmgpu.Wasi(clock_epoch_ns=1000, clock_resolution_ns=3)
    with module(CLOCK).spawn(1, wasi=wasi, **where) as instances:
        t0 = instances.call("now", [1])[0]
        call1 = instances.last_call.instructions
        instances.call("spin", [50])
        spin = instances.last_call.instructions
        t1 = instances.call("now", [1])[0]
        # Between the two reads: the rest of the first `now` (its load and return), the spin
        # call, and the second `now` up to its clock call.
        assert t1 - t0 == 3 * ((call1 - NOW_INSTRUCTIONS) + spin + NOW_INSTRUCTIONS)


# -- random_get: ChaCha20 ----------------------------------------------------------------------------

def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """RFC 8439, section 2.3, written here independently of the device code."""
    def rotl(x, n):
        return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF

    def quarter(s, a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = rotl(s[b] ^ s[c], 7)

    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *struct.unpack("<8I", key), counter,
             *struct.unpack("<3I", nonce)]
    working = list(state)
    for _ in range(10):
        for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                           (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            quarter(working, a, b, c, d)
    return struct.pack("<16I", *((w + s) & 0xFFFFFFFF for w, s in zip(working, state)))


def test_our_chacha20_matches_rfc8439():
    key = bytes(range(32))
    block = chacha20_block(key, 1, bytes.fromhex("000000090000004a00000000"))
    assert block[:16].hex() == "10f1e7e4d13b5915500fdd1fa32071c4"  # RFC 8439, 2.3.2


def stream(key: bytes, instance: int, length: int) -> bytes:
    nonce = struct.pack("<3I", instance, 0, 0)
    return b"".join(chacha20_block(key, c, nonce) for c in range((length + 63) // 64))[:length]


RANDOM = IMPORTS + """(func (export "rand") (param i32 i32) (result i32) (call $random_get (local.get 0) (local.get 1)))"""


@pytest.mark.parametrize("seed", [1, 0xDEADBEEF, bytes(range(100, 132))])
def test_random_streams_are_chacha20_by_instance(where, seed):
    key = seed if isinstance(seed, bytes) else struct.pack("<I", seed) + bytes(28)
    wasi = wasmgpu.Wasi(seed=seed)
    with module(RANDOM).spawn(5, wasi=wasi, **where) as instances:
        assert instances.call("rand", [(0, 16)] * 5) == [0] * 5
        assert instances.call("rand", [(16, 100)] * 5) == [0] * 5  # the stream continues
        for i in range(5):
            assert instances.read_memory(0, 116, instance=i) == stream(key, i, 116)


def test_random_streams_do_not_depend_on_count_or_batching(where):
    wasi = wasmgpu.Wasi(seed=77)
    got = []
    for count, batch in [(7, None), (3, None), (7, 2)]:
        with module(RANDOM).spawn(count, wasi=wasi, batch_size=batch, **where) as instances:
            instances.call("rand", [(0, 40)] * count)
            got.append([instances.read_memory(0, 40, instance=i) for i in range(count)])
    assert got[0][:3] == got[1] and got[0] == got[2]


# -- capabilities: the same answers as wasmtime -----------------------------------------------------

OPEN = IMPORTS + """
  (func (export "open") (param i32 i32 i32) (result i32)
    ;; path at 1024 (length from the host), dirflags, oflags; the fd goes to 16. Rights: the
    ;; directory's inheriting rights, as wasi-libc asks for (fdstat at 32, inheriting at 48).
    (drop (call $fd_fdstat_get (i32.const 3) (i32.const 32)))
    (call $path_open (i32.const 3) (local.get 1) (i32.const 1024) (local.get 0) (local.get 2)
      (i64.load (i32.const 48)) (i64.load (i32.const 48)) (i32.const 0) (i32.const 16)))
  (func (export "_start"))
"""


def wasmtime_open_errno(path: bytes, dirflags: int, oflags: int, tmp_path) -> int:
    """path_open's errno under wasmtime with a preopened directory holding data/a.txt."""
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "a.txt").write_bytes(b"x")
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    config = wasmtime.WasiConfig()
    config.preopen_dir(str(tmp_path), ".")
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, wasmtime.Module(engine, wasmtime.wat2wasm(f"(module {OPEN})")))
    memory = instance.exports(store)["memory"]
    memory.write(store, path, 1024)
    return instance.exports(store)["open"](store, len(path), dirflags, oflags)


@pytest.mark.parametrize("path, dirflags, oflags", [
    (b"data/a.txt", 0, 0), (b"../x", 0, 0), (b"data/../../x", 0, 0), (b"/etc/passwd", 0, 0),
    (b"data", 0, 2), (b"data/a.txt", 0, 2), (b"missing/x", 0, 1), (b"data/new.txt", 0, 1 | 4),
    (b"data/a.txt", 0, 1 | 4), (b"", 0, 0), (b"data/a.txt/x", 0, 0), (b"a\x00b", 0, 1), (b"data/\xff", 0, 1),
    (b"data//a.txt", 0, 0), (b"./data/./a.txt", 0, 0), (b"data/a.txt", 0, 8),
])
def test_path_open_errnos_match_wasmtime(where, tmp_path, path, dirflags, oflags):
    expected = wasmtime_open_errno(path, dirflags, oflags, tmp_path)
    wasi = wasmgpu.Wasi(files={"data/a.txt": b"x"})
    with module(OPEN).spawn(1, wasi=wasi, **where) as instances:
        instances.write_memory(1024, path)
        assert instances.call("open", [(len(path), dirflags, oflags)]) == [expected]


OPEN_WITH_RIGHTS = IMPORTS + """
  ;; open(fd, path length, oflags, rights, inheriting) -> errno; the new fd goes to 16, its
  ;; fdstat to 32 (base rights at 40, inheriting at 48). The path is at 1024.
  (func (export "open") (param i32 i32 i32 i64 i64) (result i32) (local $errno i32)
    (local.set $errno (call $path_open (local.get 0) (i32.const 1) (i32.const 1024) (local.get 1) (local.get 2)
      (local.get 3) (local.get 4) (i32.const 0) (i32.const 16)))
    (if (i32.eqz (local.get $errno)) (then (drop (call $fd_fdstat_get (i32.load (i32.const 16)) (i32.const 32)))))
    (local.get $errno))
  (func (export "_start"))
"""
ALL_RIGHTS = 2**30 - 1  # every right of the witx, sockets' included
# The rights of the witx that apply to each type (wasi_layout.glsl), written out here.
RIGHT_FD_READ, RIGHT_FD_WRITE, RIGHT_PATH_OPEN = 0x2, 0x40, 0x2000
RIGHT_SOCK_SHUTDOWN, RIGHT_SOCK_ACCEPT = 0x10000000, 0x20000000
RIGHTS_REGULAR, RIGHTS_DIRECTORY = 0x08E001FF, 0x07BFFE19


def wasmtime_open_with_rights(tmp_path, path: bytes, oflags: int, rights: int, inheriting: int) -> int:
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "a.txt").write_bytes(b"x")
    engine = wasmtime.Engine()
    store = wasmtime.Store(engine)
    config = wasmtime.WasiConfig()
    config.preopen_dir(str(tmp_path), ".")
    store.set_wasi(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    instance = linker.instantiate(store, wasmtime.Module(engine, wasmtime.wat2wasm(f"(module {OPEN_WITH_RIGHTS})")))
    instance.exports(store)["memory"].write(store, path, 1024)
    return instance.exports(store)["open"](store, 3, len(path), oflags, rights, inheriting)


@pytest.mark.parametrize("path, oflags, rights", [
    (b"data/a.txt", 0, ALL_RIGHTS), (b"data/new.txt", 1, ALL_RIGHTS),
    (b"data", 2, ALL_RIGHTS),  # fd_write asked of a directory: ISDIR, as wasmtime
    (b"data", 2, ALL_RIGHTS & ~RIGHT_FD_WRITE),
])
def test_path_open_drops_rights_that_do_not_apply_as_wasmtime(where, tmp_path, path, oflags, rights):
    # 2**30 - 1 asks for the socket rights too, which apply to no file: the original package and
    # wasmtime 51 open the file; so do we, keeping only the rights of its type.
    expected = wasmtime_open_with_rights(tmp_path, path, oflags, rights, rights)
    with module(OPEN_WITH_RIGHTS).spawn(1, wasi=wasmgpu.Wasi(files={"data/a.txt": b"x"}), **where) as instances:
        instances.write_memory(1024, path)
        assert instances.call("open", [(3, len(path), oflags, rights, rights)]) == [expected]
        if expected == ERRNO_SUCCESS:
            base = struct.unpack("<Q", instances.read_memory(40, 8))[0]
            applicable = RIGHTS_DIRECTORY if oflags == 2 else RIGHTS_REGULAR
            assert base == rights & applicable
            assert base & (RIGHT_SOCK_SHUTDOWN | RIGHT_SOCK_ACCEPT) == 0


def test_path_open_refuses_applicable_rights_beyond_the_directorys_inheriting(where):
    # A directory opened with inheriting rights of reading only: a file under it may be opened
    # for reading (and with rights that do not apply to a file), never for writing.
    with module(OPEN_WITH_RIGHTS).spawn(1, wasi=wasmgpu.Wasi(files={"data/a.txt": b"x"}), **where) as instances:
        instances.write_memory(1024, b"data")
        assert instances.call("open", [(3, 4, 2, RIGHTS_DIRECTORY, RIGHT_FD_READ)]) == [ERRNO_SUCCESS]
        directory = struct.unpack("<I", instances.read_memory(16, 4))[0]
        instances.write_memory(1024, b"a.txt")
        assert instances.call("open", [(directory, 5, 0, RIGHT_FD_READ | RIGHT_PATH_OPEN, 0)]) == [ERRNO_SUCCESS]
        assert struct.unpack("<Q", instances.read_memory(40, 8))[0] == RIGHT_FD_READ
        assert instances.call("open", [(directory, 5, 0, RIGHT_FD_READ | RIGHT_FD_WRITE, 0)]) == [ERRNO_NOTCAPABLE]
        assert instances.call("open", [(directory, 5, 0, ALL_RIGHTS, 0)]) == [ERRNO_NOTCAPABLE]
        # A directory under it may not pass on more than the directory holds either.
        instances.write_memory(1024, b".")
        assert instances.call("open", [(directory, 1, 2, 0, RIGHT_FD_WRITE)]) == [ERRNO_NOTCAPABLE]
        assert instances.call("open", [(directory, 1, 2, 0, RIGHT_FD_READ)]) == [ERRNO_SUCCESS]


READ_INPUT = """
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
""" + IMPORTS + """
  ;; read(path length) -> errno: opens the path at 1024 and reads up to 64 bytes to 2048 (the
  ;; count to 8).
  (func (export "read") (param i32) (result i32) (local $errno i32)
    (local.set $errno (call $path_open (i32.const 3) (i32.const 1) (i32.const 1024) (local.get 0) (i32.const 0)
      (i64.const 2) (i64.const 0) (i32.const 0) (i32.const 16)))
    (if (local.get $errno) (then (return (local.get $errno))))
    (i32.store (i32.const 0) (i32.const 2048)) (i32.store (i32.const 4) (i32.const 64))
    (call $fd_read (i32.load (i32.const 16)) (i32.const 0) (i32.const 1) (i32.const 8)))
"""


def test_write_file_gives_each_instance_its_own_input(where):
    with module(READ_INPUT).spawn(3, wasi=wasmgpu.Wasi(files={"data/shared.txt": b"same"}), **where) as instances:
        for i in range(3):
            instances.write_file("data/own/input.txt", f"instance {i}".encode(), instance=i)
        for i in range(3):
            instances.write_memory(1024, b"data/own/input.txt", instance=i)
        assert instances.call("read", [18] * 3) == [ERRNO_SUCCESS] * 3
        for i in range(3):
            count = struct.unpack("<I", instances.read_memory(8, 4, instance=i))[0]
            assert instances.read_memory(2048, count, instance=i) == f"instance {i}".encode()
            assert instances.read_file("data/own/input.txt", instance=i) == f"instance {i}".encode()
            assert instances.read_file("data/shared.txt", instance=i) == b"same"
        with pytest.raises(FileExistsError):
            instances.write_file("data/shared.txt", b"x")
        with pytest.raises(FileExistsError):
            instances.write_file("data/own", b"x")  # a directory
        with pytest.raises(ValueError, match="path"):
            instances.write_file("../outside", b"x")
        with pytest.raises(wasmgpu.ResourceLimitError, match="storage_size"):
            instances.write_file("big", bytes(70_000))  # more than the default storage_size left
        instances.reset()  # the files written are gone with the rest of the state
        with pytest.raises(FileNotFoundError):
            instances.read_file("data/own/input.txt", instance=1)


# -- quotas ----------------------------------------------------------------------------------------

WRITE = IMPORTS + """
  (func (export "create") (param i32) (result i32)  ;; opens path 1024 (length given) with O_CREAT
    (drop (call $fd_fdstat_get (i32.const 3) (i32.const 32)))
    (call $path_open (i32.const 3) (i32.const 0) (i32.const 1024) (local.get 0) (i32.const 1)
      (i64.load (i32.const 48)) (i64.load (i32.const 48)) (i32.const 0) (i32.const 16)))
  (func (export "fd") (result i32) (i32.load (i32.const 16)))
  (func (export "write") (param i32 i32) (result i32)  ;; writes n bytes of 2048.. to fd
    (i32.store (i32.const 0) (i32.const 2048)) (i32.store (i32.const 4) (local.get 1))
    (call $fd_write (local.get 0) (i32.const 0) (i32.const 1) (i32.const 8)))
"""


def test_descriptor_quota_gives_mfile_and_changes_nothing(where):
    wasi = wasmgpu.Wasi(files={"f": b"abc"}, max_fds=6)
    with module(WRITE).spawn(1, **where, wasi=wasi) as instances:
        instances.write_memory(1024, b"f")
        assert instances.call("create", [1]) == [ERRNO_SUCCESS]  # fd 4
        assert instances.call("create", [1]) == [ERRNO_SUCCESS]  # fd 5
        assert instances.call("create", [1]) == [ERRNO_MFILE]
        assert instances.read_file("f") == b"abc"


def test_file_quota_gives_nfile_and_storage_quota_nospc(where):
    wasi = wasmgpu.Wasi(max_files=6, storage_size=64)
    with module(WRITE).spawn(1, wasi=wasi, **where) as instances:
        for name in (b"a", b"b"):
            instances.write_memory(1024, name)
            assert instances.call("create", [1]) == [ERRNO_SUCCESS]
        instances.write_memory(1024, b"c")
        assert instances.call("create", [1]) == [ERRNO_NFILE]
        fd = instances.call("fd")[0]
        instances.write_memory(2048, b"z" * 64)
        assert instances.call("write", [(fd, 40)]) == [ERRNO_SUCCESS]
        assert instances.call("write", [(fd, 40)]) == [ERRNO_NOSPC]  # 80 > 64: nothing written
        assert instances.read_file("b") == b"z" * 40
        assert instances.files() == {"a": b"", "b": b"z" * 40}


def test_files_returns_every_byte_at_block_boundaries(where):
    # files() reads a file's content block by block (64 bytes): sizes around a block's end and
    # a word's end, and a tree of more than one level, come back byte for byte (read_file is
    # the independent path, byte by byte through the guest's view).
    sizes = [1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 4095, 4097, 70_001]
    contents = {f"d/f{size}": bytes((k * 7 + size) % 251 for k in range(size)) for size in sizes}
    wasi = wasmgpu.Wasi(files=contents, storage_size=1 << 20)
    with module(WRITE).spawn(1, wasi=wasi, **where) as instances:
        assert instances.files() == contents
        assert all(instances.read_file(path) == data for path, data in contents.items())


# -- reset and stdio -----------------------------------------------------------------------------------

PRINT = IMPORTS + """
  (data (i32.const 2000) "instance ")
  ;; run(i): writes "instance <i>\\n" to stdout: the prefix, then the decimal digits built
  ;; backwards from 1100, in one fd_write of two iovecs.
  (func (export "run") (param $i i32) (result i32) (local $p i32)
    (local.set $p (i32.const 1100))
    (i32.store8 (local.get $p) (i32.const 10))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $i) (i32.const 10))))
      (local.set $i (i32.div_u (local.get $i) (i32.const 10)))
      (br_if $digit (local.get $i)))
    (i32.store (i32.const 0) (i32.const 2000))
    (i32.store (i32.const 4) (i32.const 9))
    (i32.store (i32.const 8) (local.get $p))
    (i32.store (i32.const 12) (i32.sub (i32.const 1101) (local.get $p)))
    (call $fd_write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 24)))
"""


# chatter(n): n fd_writes of "ab" to stdout, then returns n (each write stops the run for the
# WASI service).
CHATTER = IMPORTS + """
  (data (i32.const 16) "ab")
  (func (export "chatter") (param $n i32) (result i32) (local $i i32)
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const 2))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $n))
"""


@pytest.mark.parametrize("execution", ["interpreter", "compiled"])
def test_wasi_calls_on_vulkan_read_a_summary_between_steps(where, execution):
    # Each fd_write stops an instance for the WASI service, so every step waits on the host; it
    # reads the group's summary (running instances, the WASI functions waiting, the next blocks:
    # 64 words), not every instance's outcome, until the group has finished.
    count, writes = 64, 12
    binary = wasmtime.wat2wasm(f"(module {CHATTER})")
    with wasmgpu.Module(binary, execution=execution).spawn(count, **where) as instances:
        assert instances.call("chatter", [writes + i % 3 for i in range(count)]) == [writes + i % 3
                                                                                      for i in range(count)]
        assert instances.stdout == [b"ab" * (writes + i % 3) for i in range(count)]
        stats = instances.last_call
        if "device" in where:
            assert stats.bytes_downloaded == 0  # the cpu device: host memory
            return
        outcomes = count * 4 * (11 + 2)  # the outcome words and one result
        # More than `writes` steps, each of which read every outcome before (at least one
        # for the run and one for the service); now a summary per dispatch and the outcomes once.
        assert stats.dispatches > writes
        assert outcomes <= stats.bytes_downloaded < outcomes + 4 * 64 * 3 * stats.dispatches
        assert stats.bytes_downloaded < writes * outcomes / 2


def test_reset_clears_streams_files_and_exit_codes(where):
    wasi = wasmgpu.Wasi(files={"keep.txt": b"original"})
    with module(PRINT + WRITE.replace(IMPORTS, "")).spawn(2, wasi=wasi, **where) as instances:
        instances.call("run", [5, 17])
        assert instances.stdout == [b"instance 5\n", b"instance 17\n"]
        for i in range(2):
            instances.write_memory(1024, b"new.txt", instance=i)
        instances.call("create", [7, 7])
        assert set(instances.files(instance=1)) == {"keep.txt", "new.txt"}
        instances.reset()
        assert instances.stdout == [b"", b""]
        assert instances.files(instance=1) == {"keep.txt": b"original"}
        with pytest.raises(FileNotFoundError):
            instances.read_file("new.txt", instance=1)


def _print_many(count: int, **where) -> None:
    wasi = wasmgpu.Wasi(storage_size=256, max_files=8, max_fds=8)
    with module(PRINT).spawn(count, wasi=wasi, memory_pages=1, max_resident_bytes=None, **where) as instances:
        assert instances.call("run", list(range(count))) == [0] * count
        assert instances.stdout == [f"instance {i}\n".encode() for i in range(count)]


def test_100003_instances_print_a_line_each_on_the_cpu_device():
    _print_many(100_003, device="cpu")


def test_10000_instances_print_a_line_each_on_vulkan(where):
    if where.get("device") == "cpu":
        _print_many(10_000, device="cpu")  # the same check at the size lavapipe runs
        return
    _print_many(10_000, **where)


def test_read_file_errors(where):
    wasi = wasmgpu.Wasi(files={"dir/a.txt": b"A"})
    with module(IMPORTS).spawn(1, wasi=wasi, **where) as instances:
        assert instances.read_file("dir/a.txt") == b"A"
        assert instances.read_file("./dir//a.txt") == b"A"
        with pytest.raises(IsADirectoryError):
            instances.read_file("dir")
        with pytest.raises(FileNotFoundError):
            instances.read_file("dir/b.txt")
        with pytest.raises(ValueError, match="leaves the root"):
            instances.read_file("../x")


POLL = IMPORTS.replace('(memory (export "memory") 1)', "") + """
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  ;; sleep(ns): one relative clock subscription (monotonic) at 64, its event at 128, nevents at 8;
  ;; returns (errno, the event's userdata, the event's type, monotonic time after).
  (func (export "sleep") (param i64) (result i32 i64 i32 i64)
    (i64.store (i32.const 64) (i64.const 0x1234))   ;; userdata
    (i32.store8 (i32.const 72) (i32.const 0))       ;; tag: clock
    (i32.store (i32.const 80) (i32.const 1))        ;; clock id: monotonic
    (i64.store (i32.const 88) (local.get 0))        ;; timeout
    (i64.store (i32.const 96) (i64.const 0))        ;; precision
    (i32.store16 (i32.const 104) (i32.const 0))     ;; flags: relative
    (call $poll_oneoff (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 8))
    (i64.load (i32.const 128))
    (i32.load8_u (i32.const 138))
    (drop (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 0)))
    (i64.load (i32.const 0)))
  (func (export "now") (result i64)
    (drop (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 0))) (i64.load (i32.const 0)))
  (func (export "bad_write") (param i32) (result i32)  ;; an iovec array at the given address
    (call $fd_write (i32.const 1) (local.get 0) (i32.const 1) (i32.const 8)))
"""


def test_poll_oneoff_advances_the_virtual_clock_to_the_deadline(where):
    with module(POLL).spawn(2, **where) as instances:
        before = instances.call("now")
        results = instances.call("sleep", [10_000_000, 5])
        for (errno, userdata, kind, after), start in zip(results, before):
            assert (errno, userdata, kind) == (0, 0x1234, 0)  # one clock event
        # The clock jumped to the deadline: at least start + timeout, plus the instructions run.
        assert results[0][3] >= before[0] + 10_000_000 and results[0][3] < before[0] + 10_000_000 + 200
        assert results[1][3] < before[1] + 200


def test_guest_pointers_out_of_bounds_are_fault(where):
    with module(POLL).spawn(1, **where) as instances:
        assert instances.call("bad_write", [65536 - 4]) == [21]  # the iovec runs past the memory
        assert instances.call("bad_write", [0xFFFFFFF8]) == [21]
        assert instances.stdout == [b""]
