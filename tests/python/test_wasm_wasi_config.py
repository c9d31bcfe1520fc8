"""wasmgpu.Wasi: the original package's names and defaults, and every argument check (each
error names its argument); contents are copied at construction."""

import inspect

import pytest

import wasmgpu


def test_signature_and_defaults_are_the_originals():
    parameters = inspect.signature(wasmgpu.Wasi).parameters
    expected = {"files": None, "args": (), "env": None, "stdin": b"", "storage_size": 65536, "max_files": 32,
                "max_fds": 64, "seed": 1, "clock_epoch_ns": 0, "clock_resolution_ns": 1, "preopen": "."}
    for name, default in expected.items():
        assert parameters[name].kind == inspect.Parameter.KEYWORD_ONLY, name
        assert parameters[name].default == default, name


@pytest.mark.parametrize("kwargs, error, match", [
    ({"args": "prog"}, TypeError, "args: expected a sequence"),
    ({"args": ["a", 3]}, TypeError, "args: argument 1 must be str or bytes"),
    ({"args": ["a\0b"]}, ValueError, "args: argument 0 .* contains a NUL"),
    ({"env": ["A=1"]}, TypeError, "env: expected a mapping"),
    ({"env": {"A=B": "1"}}, ValueError, "env: the name 'A=B' contains '='"),
    ({"env": {"": "1"}}, ValueError, "env: a variable name must not be empty"),
    ({"env": {"A": "x\0"}}, ValueError, "env: the value of 'A' .* contains a NUL"),
    ({"env": {"A": 1}}, TypeError, "env: the value of 'A' must be str or bytes"),
    ({"stdin": "text"}, TypeError, "stdin: expected bytes"),
    ({"files": {"/abs": b""}}, ValueError, "files: path '/abs' must be a non-empty relative path"),
    ({"files": {"a/../../b": b""}}, ValueError, "files: .* leaves the root"),
    ({"files": {"a": "text"}}, TypeError, "files: the content of 'a' must be bytes"),
    ({"storage_size": 3}, ValueError, "storage_size: must be between 4 and 2147483647"),
    ({"storage_size": 2**31}, ValueError, "storage_size"),
    ({"storage_size": 4.0}, TypeError, "storage_size: expected an int"),
    ({"max_files": 3}, ValueError, "max_files"),
    ({"max_fds": 2**31}, ValueError, "max_fds"),
    ({"max_fds": True}, TypeError, "max_fds"),
    ({"seed": 0}, ValueError, "seed: must be a nonzero u32"),
    ({"seed": 2**32}, ValueError, "seed"),
    ({"seed": -1}, ValueError, "seed"),
    ({"seed": b"short"}, ValueError, "seed: a key must be 32 bytes, got 5"),
    ({"seed": 1.5}, TypeError, "seed"),
    ({"clock_epoch_ns": -1}, ValueError, "clock_epoch_ns: must fit in an unsigned 64-bit"),
    ({"clock_epoch_ns": 2**64}, ValueError, "clock_epoch_ns"),
    ({"clock_resolution_ns": 2**64}, ValueError, "clock_resolution_ns"),
    ({"clock_resolution_ns": "1"}, TypeError, "clock_resolution_ns"),
    ({"preopen": ""}, ValueError, "preopen: the name must not be empty"),
    ({"preopen": 3}, TypeError, "preopen"),
    ({"preopen": "x" * 256}, ValueError, "preopen: the name is longer than 255"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        wasmgpu.Wasi(**kwargs)


def test_bounds_are_accepted():
    for seed in (1, 2**32 - 1, bytes(32)):
        assert len(wasmgpu.Wasi(seed=seed).key) == 32
    wasi = wasmgpu.Wasi(storage_size=4, max_files=4, max_fds=2**31 - 1, clock_epoch_ns=2**64 - 1,
                        clock_resolution_ns=2**64 - 1, preopen=None)
    assert (wasi.storage_size, wasi.max_files, wasi.preopen) == (4, 4, None)


def test_contents_are_copied_at_construction():
    args, env, content = ["prog", "one"], {"A": "1"}, bytearray(b"data")
    files = {"in.txt": content}
    wasi = wasmgpu.Wasi(args=args, env=env, files=files, stdin=bytearray(b"in"))
    args.append("two")
    env["B"] = "2"
    content[:] = b"changed"
    files["other"] = b""
    assert wasi.args == (b"prog", b"one")
    assert wasi.env == ((b"A", b"1"),)
    assert wasi.files == {"in.txt": b"data"}
    assert wasi.stdin == b"in"


def test_wasi_files_override_module_files():
    module = wasmgpu.Module(b"\0asm\x01\0\0\0", files={"a.txt": b"module", "b.txt": b"module"})
    wasi = wasmgpu.Wasi(files={"./a.txt": b"wasi"})
    assert wasi.merged_files(module.files) == {"a.txt": b"wasi", "b.txt": b"module"}


def test_spawn_rejects_a_non_wasi_object():
    module = wasmgpu.Module(b"\0asm\x01\0\0\0")
    with pytest.raises(TypeError, match="wasi: expected a wasmgpu.Wasi"):
        module.spawn(1, wasi={"args": []}, device="cpu")
