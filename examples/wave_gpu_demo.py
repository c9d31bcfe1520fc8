"""wave_gpu demo: the seed's vector_add and a workgroup reduction in shared memory, on the
device wave_gpu selects (the first hardware GPU, else the emulator; WAVE_GPU_DEVICE or
WAVESTACK_ALLOW_SOFTWARE_GPU=1 change the choice) and on the emulator."""

import numpy as np

import wave_gpu
from wave_gpu import barrier, local_id, shared, thread_id, workgroup_id, workgroup_size


@wave_gpu.kernel
def vector_add(a: wave_gpu.f32[:], b: wave_gpu.f32[:], out: wave_gpu.f32[:]):
    tid = thread_id()
    out[tid] = a[tid] + b[tid]


@wave_gpu.kernel
def block_sum(x: wave_gpu.f32[:], sums: wave_gpu.f32[:]):
    tile = shared(256, wave_gpu.f32)
    i = thread_id()
    tile[local_id()] = x[i] if i < len(x) else 0.0
    barrier()
    stride = workgroup_size() // 2
    while stride > 0:
        if local_id() < stride:
            tile[local_id()] += tile[local_id() + stride]
        barrier()
        stride //= 2
    if local_id() == 0:
        sums[workgroup_id()] = tile[0]


def main() -> None:
    targets = ["emulator"] if wave_gpu.device().vendor == "emulator" else [None, "emulator"]
    for target in targets:
        wave_gpu.set_device(target)
        run_on_device()
    wave_gpu.set_device(None)


def run_on_device() -> None:
    print(f"wave_gpu {wave_gpu.__version__} on {wave_gpu.device().name}")

    a = wave_gpu.array([1.0, 2.0, 3.0, 4.0])
    b = wave_gpu.array([5.0, 6.0, 7.0, 8.0])
    out = wave_gpu.zeros(4)
    vector_add(a, b, out, grid=(1, 1, 1), workgroup=(4, 1, 1))
    print("vector_add:", out.to_list())

    x = np.random.default_rng(7).integers(-50, 50, 100_000).astype(np.float32)
    groups = (x.size + 255) // 256
    sums = np.zeros(groups, np.float32)
    block_sum(x, sums, grid=(groups, 1, 1), workgroup=(256, 1, 1))
    status = "OK" if sums.sum() == x.sum() else "MISMATCH"
    print(f"block_sum (shared memory + barriers) over {x.size} values in {groups} workgroups: "
          f"total {sums.sum():.0f}, NumPy {x.sum():.0f}: {status}")
    print("\nWAVE IR of vector_add:\n" + vector_add.ir)


if __name__ == "__main__":
    main()
