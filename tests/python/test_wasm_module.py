"""wasmgpu.Module: arguments, exports and imports, the three load errors with offset and
reason, and one test per feature outside the profile."""

import pytest

import wasmgpu
from wasmgpu import _native

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime.wat2wasm assembles the test modules")


def wat(text: str) -> bytes:
    return wasmtime.wat2wasm(text)


ADD = wat("""
(module
  (memory (export "mem") 1)
  (table (export "tab") 2 funcref)
  (global (export "g") (mut i32) (i32.const 7))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "none")))
""")


def test_module_from_bytes_lists_exports_in_order_with_kinds():
    module = wasmgpu.Module(ADD)
    # The original's mapping {name: kind}, in export order; ours: the Export tuples.
    assert module.exports == {"mem": "memory", "tab": "table", "g": "global", "add": "function", "none": "function"}
    assert list(module.exports) == ["mem", "tab", "g", "add", "none"]
    assert module.export_list == [("mem", "memory"), ("tab", "table"), ("g", "global"), ("add", "function"),
                                  ("none", "function")]
    assert module.export_list[3].name == "add" and module.export_list[3].kind == "function"
    assert module.imports == []


def test_module_from_path_and_from_pathlike(tmp_path):
    path = tmp_path / "add.wasm"
    path.write_bytes(ADD)
    assert wasmgpu.Module(str(path)).exports == wasmgpu.Module(path).exports == wasmgpu.Module(ADD).exports


def test_bytearray_and_memoryview_are_accepted():
    assert wasmgpu.Module(bytearray(ADD)).exports == wasmgpu.Module(memoryview(ADD)).exports


def test_imports_are_listed_with_module_name_and_kind():
    module = wasmgpu.Module(wat("""(module (import "wasi_snapshot_preview1" "fd_write"
                                      (func (param i32 i32 i32 i32) (result i32))))"""))
    assert module.imports == [("wasi_snapshot_preview1", "fd_write", "function")]


@pytest.mark.parametrize("bad, argument, error", [
    (123, "source", TypeError),
    (None, "source", TypeError),
    (["a.wasm"], "source", TypeError),
])
def test_bad_path_or_bytes_is_named(bad, argument, error):
    with pytest.raises(error, match=argument):
        wasmgpu.Module(bad)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="source"):
        wasmgpu.Module(tmp_path / "missing.wasm")


def test_other_arguments_are_checked_before_the_file_is_read(tmp_path):
    with pytest.raises(ValueError, match="execution"):
        wasmgpu.Module(tmp_path / "missing.wasm", execution="jit")


def test_execution_modes():
    assert wasmgpu.Module(ADD).execution == "auto"
    assert wasmgpu.Module(ADD, execution="interpreter").execution == "interpreter"
    compiled = wasmgpu.Module(ADD, execution="compiled")
    assert compiled.execution == "compiled"
    defined = compiled._native.function_count - compiled._native.imported_function_count
    assert compiled.compiled["complete"] and compiled.compiled["functions"] == defined > 0
    assert wasmgpu.Module(ADD, execution="interpreter").compiled is None
    with pytest.raises(ValueError, match="execution"):
        wasmgpu.Module(ADD, execution="jit")
    with pytest.raises(TypeError, match="execution"):
        wasmgpu.Module(ADD, execution=1)


def test_arguments_are_checked_before_the_binary_is_decoded():
    # A malformed binary with a bad argument reports the argument, not the binary.
    with pytest.raises(ValueError, match="compile_limit"):
        wasmgpu.Module(b"junk", compile_limit=0)


@pytest.mark.parametrize("files, error", [
    ("data.txt", TypeError),
    ({1: b"x"}, TypeError),
    ({"a.txt": "text"}, TypeError),
    ({"": b"x"}, ValueError),
    ({"/abs": b"x"}, ValueError),
    ({"a/../../b": b"x"}, ValueError),
    ({"x" * 256: b"x"}, ValueError),
    ({".": b"x"}, ValueError),
    ({"a": b"x", "a/b": b"y"}, ValueError),  # a file cannot also be a directory
    ({"a/b": b"x", "./a//b": b"y"}, ValueError),  # the same file twice
    ({"a\0b": b"x"}, ValueError),
])
def test_bad_files_are_named(files, error):
    """Paths are relative, '/'-separated, at most 255 UTF-8 bytes after resolution."""
    with pytest.raises(error, match="files"):
        wasmgpu.Module(ADD, files=files)


def test_files_are_copied():
    content = bytearray(b"1.25\n")
    module = wasmgpu.Module(ADD, files={"data/input.txt": content})
    content[0] = ord("9")
    assert module.files == {"data/input.txt": b"1.25\n"}


@pytest.mark.parametrize("limit, error", [(0, ValueError), (257, ValueError), (1.5, TypeError), (True, TypeError)])
def test_bad_compile_limit_is_named(limit, error):
    with pytest.raises(error, match="compile_limit"):
        wasmgpu.Module(ADD, compile_limit=limit)


def test_compile_limit_bounds_are_accepted():
    assert wasmgpu.Module(ADD, compile_limit=1).compile_limit == 1
    assert wasmgpu.Module(ADD, compile_limit=256).compile_limit == 256


@pytest.mark.parametrize("functions, error", [(5, TypeError), (["0"], TypeError), ([-1], ValueError),
                                              ([2], ValueError)])
def test_bad_compile_functions_are_named(functions, error):
    with pytest.raises(error, match="compile_functions"):
        wasmgpu.Module(ADD, compile_functions=functions)


def test_compile_functions_in_range_are_kept():
    assert wasmgpu.Module(ADD, compile_functions=(1, 0)).compile_functions == [1, 0]


def test_bad_host_modules_are_named():
    with pytest.raises(ValueError, match="host_modules"):
        wasmgpu.Module(ADD, host_modules=["env"])
    with pytest.raises(TypeError, match="host_modules"):
        wasmgpu.Module(ADD, host_modules="spectest")


def test_spawn_on_the_default_device_uses_a_gpu_or_says_how_to_choose():
    # Without device= the best Vulkan GPU is used; without one, the error names
    # allow_software and device='cpu'. Never a silent fallback to the cpu device.
    gpu = wasmgpu._native.select_device(False)
    if gpu is None:
        with pytest.raises(RuntimeError, match="device='cpu'"):
            wasmgpu.Module(ADD).spawn(4)
    else:
        with wasmgpu.Module(ADD).spawn(4) as instances:
            assert instances.device == gpu["name"] and instances.adapter_info["index"] == gpu["index"]
    with wasmgpu.Module(ADD).spawn(4, device="cpu") as instances:
        assert instances.device == "cpu"


# --- load errors


def test_malformed_module_has_offset_and_reason():
    with pytest.raises(wasmgpu.MalformedModule) as raised:
        wasmgpu.Module(b"\0asm\x02\0\0\0")
    assert raised.value.offset == 4
    assert raised.value.reason == "unknown binary version"
    assert isinstance(raised.value, ValueError)
    assert not isinstance(raised.value, wasmgpu.InvalidModule)


def test_truncated_module_is_malformed():
    # The last section (code) declares more bytes than remain: the spec's wording.
    with pytest.raises(wasmgpu.MalformedModule) as raised:
        wasmgpu.Module(ADD[:-3])
    assert raised.value.reason == "length out of bounds"
    assert raised.value.offset < len(ADD) - 3


def test_invalid_module_has_offset_of_the_offending_instruction():
    binary = wat("(module (func (result i32) (i64.const 1)))")
    with pytest.raises(wasmgpu.InvalidModule) as raised:
        wasmgpu.Module(binary)
    assert raised.value.reason.startswith("type mismatch")
    # The error points at the function's closing `end`, where i64 is found instead of i32.
    assert binary[raised.value.offset] == 0x0B
    assert not isinstance(raised.value, wasmgpu.MalformedModule)


def test_unknown_local_is_invalid():
    with pytest.raises(wasmgpu.InvalidModule, match="unknown local"):
        wasmgpu.Module(bytes.fromhex("0061736d01000000010401600000030201000a0601040020050b"))


UNSUPPORTED = {
    "SIMD": "(module (func (result v128) (v128.const i32x4 0 0 0 0)))",
    "threads": "(module (memory 1) (func (drop (i32.atomic.load (i32.const 0)))))",
    "exception handling": "(module (tag))",
    "tail calls": "(module (func return_call 0))",
    "GC": "(module (type (struct)))",
    "typed function references": "(module (func (param (ref func))))",
    "memory64": "(module (memory i64 1))",
    "custom page sizes": "(module (memory 1 (pagesize 1)))",
}


@pytest.mark.parametrize("feature", sorted(UNSUPPORTED))
def test_unsupported_feature_is_named(feature):
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(wat(UNSUPPORTED[feature]))
    assert raised.value.feature == feature
    assert feature in str(raised.value)
    assert raised.value.offset > 8


def test_exception_instructions_are_unsupported():
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(wat("(module (func (try_table)))"))
    assert raised.value.feature == "exception handling"


def test_shared_memory_is_unsupported_threads_and_malformed_in_2_0():
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(wat("(module (memory 1 1 shared))"))
    assert raised.value.feature == "threads"
    assert isinstance(raised.value, wasmgpu.MalformedModule)  # WebAssembly 2.0's verdict
    assert raised.value.reason.startswith("integer too large")


def test_two_memories_are_unsupported_and_invalid_in_2_0():
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(wat("(module (memory 1) (memory 1))"))
    assert raised.value.feature == "multiple memories"
    assert isinstance(raised.value, wasmgpu.InvalidModule)
    assert raised.value.reason.startswith("multiple memories")


def test_memory_index_in_a_load_is_multiple_memories():
    binary = wat("(module (memory 1) (memory $m 1) (func (drop (i32.load $m (i32.const 0)))))")
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(binary)
    assert raised.value.feature == "multiple memories"


@pytest.mark.parametrize("kind, feature", [
    ("(memory 1)", "imported memories"),
    ("(table 1 funcref)", "imported tables"),
    ("(global i32)", "imported globals"),
    ("(global (mut i32))", "imported globals"),
    ("(func)", "module linking"),
])
def test_imports_from_other_modules_are_unsupported(kind, feature):
    binary = wat(f'(module (import "env" "x" {kind}))')
    with pytest.raises(wasmgpu.UnsupportedFeature) as raised:
        wasmgpu.Module(binary)
    assert raised.value.feature == feature
    assert '"env"."x"' in raised.value.reason


@pytest.mark.parametrize("kind", ["(memory 1)", "(table 1 funcref)", "(global i32)", "(func)"])
def test_imports_from_a_host_module_load(kind):
    binary = wat(f'(module (import "spectest" "x" {kind}))')
    module = wasmgpu.Module(binary, host_modules=["spectest"])
    assert module.imports[0][:2] == ("spectest", "x")
    with pytest.raises(wasmgpu.UnsupportedFeature):
        wasmgpu.Module(binary)  # spectest is not a host module by default


# --- the executable form


def test_lowered_code_resolves_branches_and_drops_structure():
    module = wasmgpu.Module(wat("""
      (module (func (export "f") (param i32) (result i32)
        (block (result i32)
          (i32.const 1)
          (br_if 0 (local.get 0))
          (drop)
          (i32.const 2))))"""))
    code = module._native.lowered_code(0)
    record = module._native.function_record(0)
    opcodes = [entry[0] for entry in code]
    # block and end disappear; the function ends in return with one result.
    assert 0x02 not in opcodes and 0x0B not in opcodes
    assert opcodes == [0x41, 0x20, 0x0D, 0x1A, 0x41, 0x0F]
    br_if = code[2]
    assert br_if[1] == record["code_begin"] + 5  # the block's end: the final return
    assert br_if[2] == 1  # carries one value
    assert br_if[3] == 0  # cuts the operand stack back to the block's base
    assert code[5][1] == 1
    assert record["max_stack"] == 2 and record["param_count"] == 1 and record["result_count"] == 1


def test_lowered_if_else_and_loop():
    module = wasmgpu.Module(wat("""
      (module (func (param i32) (result i32)
        (if (result i32) (local.get 0)
          (then (i32.const 1))
          (else (loop (result i32) (br_if 0 (i32.const 0)) (i32.const 2))))))"""))
    code = module._native.lowered_code(0)
    begin = module._native.function_record(0)["code_begin"]
    opcodes = [entry[0] for entry in code]
    assert opcodes == [0x20, _native.OP_JUMP_IF_ZERO, 0x41, _native.OP_JUMP, 0x41, 0x0D, 0x41, 0x0F]
    assert code[1][1] == begin + 4  # a false condition goes to the else branch
    assert code[3][1] == begin + 7  # the then branch jumps over it to the end
    assert code[5][1] == begin + 4  # br_if 0 inside the loop goes back to the loop start
    assert code[5][2] == 0  # a loop label carries its parameters: none


def test_lowered_br_table_has_one_entry_per_label():
    module = wasmgpu.Module(wat("""
      (module (func (param i32)
        (block (block (br_table 0 1 0 (local.get 0))))))"""))
    code = module._native.lowered_code(0)
    begin = module._native.function_record(0)["code_begin"]
    assert code[1][0] == 0x0E and code[1][1] == 2
    entries = code[2:5]
    assert all(entry[0] == _native.OP_BR_TABLE_ENTRY for entry in entries)
    assert [entry[1] for entry in entries] == [begin + 5, begin + 5, begin + 5]


def test_file_paths_are_resolved():
    module = wasmgpu.Module(ADD, files={"./data//in.txt": b"1", "out/../b.txt": bytearray(b"2"), "x" * 255: b""})
    assert module.files == {"data/in.txt": b"1", "b.txt": b"2", "x" * 255: b""}


@pytest.mark.parametrize("count", ["0", "-3", "many"])
def test_the_cli_refuses_an_instance_count_below_one_naming_the_option(tmp_path, capsys, count):
    from wasmgpu import cli

    module = tmp_path / "add.wasm"
    module.write_bytes(ADD)
    # Every error of the command is one line with exit status 1 (argparse's usage and 2 too).
    assert cli.main(["run", "--device", "cpu", "--instances", count, str(module)]) == 1
    error = capsys.readouterr().err
    assert "--instances" in error and ("positive integer" in error or "integer" in error)
    assert "Traceback" not in error and len(error.splitlines()) == 1


def test_the_cli_reports_a_bad_module_in_one_line(tmp_path, capsys):
    from wasmgpu import cli

    bad = tmp_path / "bad.wasm"
    bad.write_bytes(b"\0asm\x02\0\0\0")  # version 2: not a module of the spec's binary format
    assert cli.main(["run", "--device", "cpu", str(bad)]) == 1
    error = capsys.readouterr().err
    assert error.startswith("wasmgpu: ") and "Traceback" not in error and len(error.splitlines()) == 1
