// The seam between the core and the CUDA library: operations run where their buffers live.
// A CUDA build defines these functions in cuda/device_dispatch.cpp; a CPU-only build in
// device_dispatch_none.cpp, where no buffer is device memory. Host memory keeps the host path
// in both builds, so the CPU-only behaviour (and CI, which builds with CUDA but has no GPU) is
// unchanged.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

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

// Whether the CUDA build sees a CUDA device (always false in a CPU-only build): the autotuner
// then times its trials on device buffers.
bool device_available();

// The current CUDA device's name across the machine, its PCI bus id ("0000:41:00.0"), so that
// ranks seeing different devices through CUDA_VISIBLE_DEVICES still compare right; "" without
// a device (always in a CPU-only build).
std::string current_device_identity();

// Enqueues `operations` on `stream` one after another with a CUDA event before, between and
// after them, waits for the last event, and returns the seconds between consecutive events: one
// time per operation, measured back to back as upstream's trials are. Host clocks would time
// only the launches of asynchronous kernels and NCCL calls. CUDA build only (NOT_SUPPORTED
// otherwise).
std::vector<double> time_each_on_stream(cudaStream_t stream, std::span<const std::function<void()>> operations);

// Waits for the work on `stream` (cudaStreamSynchronize), so that a host clock read afterwards
// covers it. CUDA build only (NOT_SUPPORTED otherwise).
void wait_for_stream(cudaStream_t stream);

// Whether `buffer` is CUDA device or managed memory (always false in a CPU-only build).
bool is_device_buffer(const void* buffer);
// Whether `buffer` is CUDA managed (unified) memory: the performance report's "managed" column.
bool is_managed_buffer(const void* buffer);

// The mover of an operation on device buffers, on `stream`; null when `buffer` is host memory.
std::unique_ptr<BlockMover> device_mover_for(const void* buffer, cudaStream_t stream);

// cudecompMalloc's memory: device memory where the CUDA build sees a CUDA device, as cuDecomp
// allocates; null where it sees none (the CPU-only build, or a CUDA build on a machine without
// a GPU, as in CI), and the caller then allocates host memory, on which every operation runs.
void* allocate_caller_device_memory(size_t bytes);
// cudecompMallocHost's memory (a wavestack extension): page-locked host memory where the CUDA
// build sees a CUDA device; null where it sees none, and the caller then allocates plain host
// memory. Either way host memory, so operations on it take the host path.
void* allocate_caller_pinned_memory(size_t bytes);
// cudecompFree: releases `buffer` and returns true when it came from one of the two functions
// above (cudaFreeHost for the pinned memory recorded by allocate_caller_pinned_memory,
// cudaFree for device memory); false otherwise, and the caller frees its own host memory.
bool release_caller_cuda_memory(void* buffer);

// `bytes` of device memory, freed when the last owner lets go (CUDA build only).
std::shared_ptr<void> allocate_device(size_t bytes);

// Where the NCCL communicator of a grid's row or column group comes from. One NCCL communicator
// per handle (over handle_comm, created on first use: rank 0's unique id goes out by MPI) and,
// per group, one split from it with ncclCommSplit by `color` and `key` (group_split.hpp). Both
// creations are collective over all ranks of handle_comm. With an NCCL older than 2.18 (no
// ncclCommSplit) the group's communicator is created over `group` directly.
struct NcclGroup {
  MPI_Comm handle_comm = MPI_COMM_NULL;
  std::shared_ptr<void>* handle_cache = nullptr;  // the handle's communicator, once created
  MPI_Comm group = MPI_COMM_NULL;                 // the MPI communicator of the same ranks
  int color = 0;
  int key = 0;
  std::shared_ptr<void>* cache = nullptr;  // the group's communicator, once created
};

// Creates the group's NCCL communicator (and the handle's) when not yet there. Collective.
// NOT_SUPPORTED, before any communication, when `mover` is not a device mover (host buffers).
void prepare_nccl_halo_group(const NcclGroup& group, const BlockMover* mover);

// NCCL (pipelined: NCCL_PL) transpose of device buffers; args.mover must be a device mover.
void run_nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                        const TransposeArgs& args, size_t element_bytes, const NcclGroup& group, bool pipelined);

// NCCL halo update of device buffers along one split dimension; `minus`/`plus` are the
// neighbours' indices in the group (-1: none).
void run_nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
                   const NcclGroup& group, size_t element_bytes);

}  // namespace wavestack::decomp
