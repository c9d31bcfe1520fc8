"""Module.spawn(first_instance=F): the spawn is instances F.. of a larger logical set, so WASI's
random_get streams (ChaCha20, nonce = instance index) equal those of the same instances of one
whole spawn. wasmgpu.mpi passes each rank's first global index."""

import pytest

import wasmgpu

wasmtime = pytest.importorskip("wasmtime", reason="wasmtime.wat2wasm assembles the test module")

DRAW = wasmtime.wat2wasm("""
(module
  (import "wasi_snapshot_preview1" "random_get" (func $random_get (param i32 i32) (result i32)))
  (memory 1)
  (func (export "draw") (result i64)
    (drop (call $random_get (i32.const 0) (i32.const 8)))
    (i64.load (i32.const 0))))
""")


@pytest.mark.parametrize("execution", ["interpreter", "compiled"])
def test_a_block_draws_what_the_same_instances_of_the_whole_spawn_draw(execution):
    module = wasmgpu.Module(DRAW, execution=execution)
    with module.spawn(7, device="cpu") as whole:
        expected = whole.call("draw")
    assert len(set(expected)) == 7  # one stream per instance
    for first, count in ((0, 3), (3, 2), (5, 2)):
        with module.spawn(count, device="cpu", first_instance=first) as block:
            assert block.call("draw") == expected[first:first + count]
            block.reset()
            assert block.call("draw") == expected[first:first + count]  # instantiated again, same streams


def test_first_instance_is_checked_before_any_work():
    module = wasmgpu.Module(DRAW)
    with pytest.raises(TypeError, match="^first_instance: expected an int"):
        module.spawn(1, device="cpu", first_instance=True)
    with pytest.raises(ValueError, match="^first_instance: must be between 0 and"):
        module.spawn(1, device="cpu", first_instance=-1)
    with pytest.raises(ValueError, match="^first_instance: must be between 0 and 4294967293"):
        module.spawn(2, device="cpu", first_instance=2**32 - 2)  # the last index must fit 32 bits
