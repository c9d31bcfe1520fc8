// The NCCL halo update of device buffers along one split dimension: pack kernels for the two
// interior faces, NCCL sends and receives, unpack kernels into the halos, all on the stream.
#pragma once

#include <cstddef>

#include "decomp/cuda/device_mover.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/halo_faces.hpp"

namespace wavestack::decomp::cuda {

class NcclComm;

// `minus`/`plus`: the neighbours' NCCL ranks (-1: none). args.work holds four faces: send to
// minus, send to plus, receive from minus, receive from plus.
void nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
               const NcclComm& comm, size_t element_bytes, const DeviceMover& mover);

}  // namespace wavestack::decomp::cuda
