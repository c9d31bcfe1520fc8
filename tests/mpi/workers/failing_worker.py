"""Rank 1 fails on purpose: the harness must report the run as failed, not hang."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.Get_rank() == 1:
    raise SystemExit("rank 1 fails on purpose")
comm.Barrier()
