// Whether every rank of a communicator sees a CUDA device. Where ranks disagree (a GPU hidden
// from some of them by CUDA_VISIBLE_DEVICES, a node without a driver) their per-rank choices
// would differ: the autotuner would time different candidate lists on differently placed
// buffers, so its collective trials would mismatch or hang, and cudecompMalloc would hand out
// device memory on some ranks and host memory on others, whose transposes take different
// communication paths. Deciding once, collectively, keeps every rank on the same side.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace wavestack::decomp {

struct DeviceCensus {
  int ranks = 0;        // of the communicator
  int with_device = 0;  // of them, the ranks that see a CUDA device
  bool every_rank() const { return with_device == ranks; }
  bool ranks_disagree() const { return with_device != 0 && with_device != ranks; }
};

// Counts, over `comm` (collective: one MPI_Allreduce), the ranks whose `local_device` is true.
// Every rank gets the same census.
DeviceCensus take_device_census(MPI_Comm comm, bool local_device);

// Whether two ranks of `comm` use one device. NCCL refuses a communicator that has two ranks on
// one GPU ("duplicate GPU"), which an oversubscribed run (more ranks than GPUs) has, so the
// autotuner leaves the NCCL backends out there. `identity` names this rank's device
// (current_device_identity(): "" for none); ranks compare it together with their host's name.
// Collective (one MPI_Allgather); every rank gets the same answer.
bool ranks_share_a_device(MPI_Comm comm, const std::string& identity);

// The pure part of it: whether a non-empty name appears twice.
bool any_name_repeated(std::vector<std::string> names);

// The warning rank 0 prints when the ranks disagree: what was seen and what the library does.
std::string device_disagreement_warning(const DeviceCensus& census);

}  // namespace wavestack::decomp
