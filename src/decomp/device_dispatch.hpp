// The seam between the core and the CUDA library: operations run where their buffers live.
// A CUDA build defines these functions in cuda/device_dispatch.cpp; a CPU-only build in
// device_dispatch_none.cpp, where no buffer is device memory. Host memory keeps the host path
// in both builds, so the CPU-only behaviour (and CI, which builds with CUDA but has no GPU) is
// unchanged.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "cudecomp.h"

namespace wavestack::decomp {

class BlockMover;
struct HaloArgs;
struct HaloFaces;
struct PencilLayout;
struct TransposeArgs;
struct TransposePlan;

// Whether the library was built with its CUDA backend.
bool device_backend_built();

// Whether `buffer` is CUDA device or managed memory (always false in a CPU-only build).
bool is_device_buffer(const void* buffer);

// The mover of an operation on device buffers, on `stream`; null when `buffer` is host memory.
std::unique_ptr<BlockMover> device_mover_for(const void* buffer, cudaStream_t stream);

// cudecompMalloc's memory: device memory where the CUDA build sees a CUDA device, as cuDecomp
// allocates; null where it sees none (the CPU-only build, or a CUDA build on a machine without
// a GPU, as in CI), and the caller then allocates host memory, on which every operation runs.
void* allocate_caller_device_memory(size_t bytes);
// cudecompFree: releases `buffer` and returns true when it is device memory; false otherwise.
bool release_caller_device_memory(void* buffer);

// `bytes` of device memory, freed when the last owner lets go (CUDA build only).
std::shared_ptr<void> allocate_device(size_t bytes);

// NCCL (pipelined: NCCL_PL) transpose of device buffers; args.mover must be a device mover.
// `comm_cache` holds the NCCL communicator of `group`, created on first use (collective).
void run_nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                        const TransposeArgs& args, size_t element_bytes, MPI_Comm group,
                        std::shared_ptr<void>& comm_cache, bool pipelined);

// NCCL halo update of device buffers along one split dimension; `minus`/`plus` are the
// neighbours' indices in `group` (-1: none). `comm_cache` as for run_nccl_transpose.
void run_nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
                   MPI_Comm group, std::shared_ptr<void>& comm_cache, size_t element_bytes);

}  // namespace wavestack::decomp
