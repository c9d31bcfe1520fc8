// The NCCL and NCCL_PL transposes on device buffers: pack kernels, NCCL sends and receives,
// unpack kernels, all enqueued on the operation's stream (NCCL orders itself on the stream, so
// unlike CUDA-aware MPI no host synchronization is needed between the steps).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "decomp/grid_desc.hpp"
#include "decomp/pencil_layout.hpp"
#include "decomp/transpose_plan.hpp"

namespace wavestack::decomp::cuda {

class NcclComm;

// `comm` spans the plan's exchange group with NCCL ranks equal to group indices. `work` holds
// the send area (plan.send_total elements) then the receive area. pipelined: NCCL_PL, one
// pairwise exchange (to self+s, from self-s) per NCCL group, its block unpacked before the next.
void nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                    const TransposeArgs& args, size_t element_bytes, const NcclComm& comm, bool pipelined,
                    cudaStream_t stream);

}  // namespace wavestack::decomp::cuda
