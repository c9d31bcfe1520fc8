"""python -m cudecomp bench --gdims X Y Z --pdims PR PC ...: the transpose benchmark for one
configuration, run under mpirun (cuDecomp's benchmark). --device host (NumPy memory, the
default), gpu (CuPy arrays, GPU build) or both: one run times the same cycle on each side and
reports the host/GPU ratio."""

from __future__ import annotations

import argparse
import sys

NCCL_BACKENDS = ("NCCL", "NCCL_PL")


def _report(args, comm, result) -> None:
    names = ("XToY", "YToZ", "ZToY", "YToX")
    print(f"cudecomp bench: gdims {' x '.join(map(str, args.gdims))} {args.dtype}, {comm.size} ranks, "
          f"grid {result['pdims'][0]} x {result['pdims'][1]}, backend {result['backend']}, "
          f"{'in place' if args.in_place else 'out of place'}, axis_contiguous={args.axis_contiguous}, "
          f"{result['device']} arrays")
    for name, seconds in zip(names, result["op_seconds"]):
        print(f"  {name}: {seconds * 1e3:.3f} ms")
    print(f"  cycle: median {result['cycle_seconds'] * 1e3:.3f} ms, min {result['cycle_min_seconds'] * 1e3:.3f} ms,"
          f" {result['gbps']:.2f} GB/s")


def _bench(args) -> int:
    import cudecomp
    from cudecomp import _bench_arrays

    devices = ["host", "gpu"] if args.device == "both" else [args.device]
    try:  # before any MPI work, so a wrong build fails with one line
        for device in devices:
            _bench_arrays.check_device(device)
    except RuntimeError as error:
        print(f"python -m cudecomp bench: {error}", file=sys.stderr)
        return 2

    from mpi4py import MPI

    from cudecomp._bench import time_cycle

    comm = MPI.COMM_WORLD
    dtype = {"float": cudecomp.DataType.FLOAT, "double": cudecomp.DataType.DOUBLE,
             "complex64": cudecomp.DataType.FLOAT_COMPLEX, "complex128": cudecomp.DataType.DOUBLE_COMPLEX}[args.dtype]
    backend = None if args.backend == "autotune" else cudecomp.TransposeCommBackend[args.backend]
    results = {}
    for device in devices:
        results[device] = time_cycle(comm, tuple(args.gdims), tuple(args.pdims), backend=backend, dtype=dtype,
                                     iterations=args.iterations, warmup=args.warmup, in_place=args.in_place,
                                     axis_contiguous=(args.axis_contiguous,) * 3, autotune_backend=backend is None,
                                     device=device)
    if comm.rank == 0:
        for result in results.values():
            _report(args, comm, result)
        if len(results) == 2:
            host, gpu = results["host"]["cycle_seconds"], results["gpu"]["cycle_seconds"]
            print(f"  host / gpu cycle time: {host / gpu:.2f} (gpu {results['gpu']['gbps']:.2f} GB/s, "
                  f"host {results['host']['gbps']:.2f} GB/s)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cudecomp")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="time the X->Y->Z->Y->X transpose cycle (run under mpirun)")
    bench.add_argument("--gdims", type=int, nargs=3, required=True, metavar=("X", "Y", "Z"))
    bench.add_argument("--pdims", type=int, nargs=2, default=(0, 0), metavar=("PR", "PC"),
                       help="process grid; 0 0 autotunes it (default)")
    bench.add_argument("--backend", default="autotune",
                       choices=["autotune", "MPI_P2P", "MPI_P2P_PL", "MPI_A2A", *NCCL_BACKENDS])
    bench.add_argument("--device", default="host", choices=["host", "gpu", "both"],
                       help="where the buffers live: host (NumPy memory), gpu (CuPy arrays; needs the GPU build) "
                            "or both, reported side by side (default host)")
    bench.add_argument("--dtype", default="double", choices=["float", "double", "complex64", "complex128"])
    bench.add_argument("--iterations", type=int, default=10)
    bench.add_argument("--warmup", type=int, default=3)
    bench.add_argument("--in-place", action="store_true")
    bench.add_argument("--axis-contiguous", action="store_true")
    args = parser.parse_args(argv)
    for value in args.gdims:
        if value <= 0:
            parser.error("--gdims: values must be positive")
    if args.iterations < 1 or args.warmup < 0:
        parser.error("--iterations must be >= 1 and --warmup >= 0")
    if args.backend in NCCL_BACKENDS and args.device != "gpu":
        parser.error(f"--backend {args.backend}: NCCL runs on GPU arrays only (--device gpu); "
                     "--device both needs an MPI backend or autotune")
    return _bench(args)


if __name__ == "__main__":
    sys.exit(main())
