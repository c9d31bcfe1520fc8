"""Rank 0 waits for a message nobody sends: only the harness's timeout can end this run."""

from mpi4py import MPI

comm = MPI.COMM_WORLD
if comm.Get_rank() == 0:
    comm.recv(source=1, tag=99)
