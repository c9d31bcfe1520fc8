"""Each rank contributes a vector that depends on its rank; every rank checks the sum."""

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
local = np.arange(1000, dtype=np.float64) * (rank + 1)
total = np.empty_like(local)
comm.Allreduce(local, total, op=MPI.SUM)
expected = np.arange(1000, dtype=np.float64) * (size * (size + 1) / 2)
if not np.array_equal(total, expected):
    raise SystemExit(f"rank {rank}: allreduce mismatch")
ranks = comm.allgather(rank)
if ranks != list(range(size)):
    raise SystemExit(f"rank {rank}: allgather gave {ranks}")
if rank == 0:
    print(f"allreduce OK on {size} ranks")
