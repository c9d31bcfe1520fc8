// Halo updates along one global dimension of a pencil. Faces span the full extent of the other
// two dimensions, halos included (padding excluded), so updating X, Y and Z in turn also fills
// edges and corners. A rank that spans a periodic dimension by itself copies its own faces.
#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstddef>

#include "decomp/block_copy.hpp"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/halo_faces.hpp"
#include "decomp/handle.hpp"
#include "decomp/mpi_device_support.hpp"

namespace wavestack::decomp {
namespace {

constexpr int kToMinusTag = 7101;  // a face travelling towards lower coordinates
constexpr int kToPlusTag = 7102;   // a face travelling towards higher coordinates

void region_to_region(const BlockMover& mover, std::byte* data, const PencilLayout& layout, const Region& from,
                      const Region& to, size_t elem) {
  mover.copy(data, layout.offset(from.start), data, layout.offset(to.start), elem,
             {from.count, layout.stride, layout.stride});
}

void pack_region(const BlockMover& mover, const std::byte* data, const PencilLayout& layout, const Region& from,
                 std::byte* buffer, size_t elem) {
  mover.copy(data, layout.offset(from.start), buffer, 0, elem, region_to_packed(layout, from));
}

void unpack_region(const BlockMover& mover, const std::byte* buffer, std::byte* data, const PencilLayout& layout,
                   const Region& to, size_t elem) {
  mover.copy(buffer, 0, data, layout.offset(to.start), elem, packed_to_region(layout, to));
}

}  // namespace

void GridDesc::run_update_halos(const HaloArgs& args, CommTally& tally) const {
  check_halo(args);
  const int64_t h = args.halo[args.dim];
  if (h == 0) return;
  const size_t elem = static_cast<size_t>(data_type_size(args.dtype));
  const PencilLayout layout = this->layout(args.axis, args.halo, args.padding);
  const HaloFaces faces = halo_faces(layout, args.dim);
  auto* data = static_cast<std::byte*>(args.data);
  const bool periodic = args.periods[args.dim];
  const int g = splitting_grid_dim(args.axis, args.dim);
  const BlockMover& mover = args.mover == nullptr ? host_mover() : *args.mover;

  if (g < 0 || grid_.pdims[g] == 1) {
    if (!periodic || faces.volume == 0) return;
    // This rank holds the whole dimension: the periodic neighbour is itself.
    region_to_region(mover, data, layout, faces.upper_interior, faces.lower_halo, elem);
    region_to_region(mover, data, layout, faces.lower_interior, faces.upper_halo, elem);
    return;
  }
  // The NCCL group is split from the handle's communicator, collectively over all its ranks:
  // do it before a return that only some groups take.
  if (config_.halo_comm_backend == CUDECOMP_HALO_COMM_NCCL) prepare_nccl_halo_group(nccl_group(g), args.mover);
  if (faces.volume == 0) return;  // same on every rank of the group: the other extents are shared
  if (faces.volume > INT_MAX) not_supported("a halo face exceeds INT_MAX elements");

  const int parts = grid_.pdims[g];
  const int me = coords_[g];
  const auto neighbour = [&](int step) {
    const int index = me + step;
    if (index >= 0 && index < parts) return index;
    return periodic ? (index + parts) % parts : MPI_PROC_NULL;
  };
  const int minus = neighbour(-1);
  const int plus = neighbour(+1);
  if (config_.halo_comm_backend == CUDECOMP_HALO_COMM_NCCL) {
    return run_nccl_halo(args, layout, faces, minus == MPI_PROC_NULL ? -1 : minus, plus == MPI_PROC_NULL ? -1 : plus,
                         nccl_group(g), elem);
  }
  // The group has other ranks: on device buffers MPI gets device pointers.
  if (!mover.host_memory()) require_mpi_device_buffers(halo_backend_name(config_.halo_comm_backend));
  const MPI_Comm comm = group_comms_[g];
  const MPI_Datatype type = handle_.element_type(elem);
  const int count = static_cast<int>(faces.volume);
  auto* work = static_cast<std::byte*>(args.work);
  const int64_t face_bytes = faces.volume * static_cast<int64_t>(elem);
  std::byte* send_minus = work;
  std::byte* send_plus = work + face_bytes;
  std::byte* recv_minus = work + 2 * face_bytes;
  std::byte* recv_plus = work + 3 * face_bytes;
  if (minus != MPI_PROC_NULL) pack_region(mover, data, layout, faces.lower_interior, send_minus, elem);
  if (plus != MPI_PROC_NULL) pack_region(mover, data, layout, faces.upper_interior, send_plus, elem);
  mover.before_communication();  // MPI reads the packed faces
  // MPI calls count as communication in the performance report.
  const auto communicate = [&](auto&& call) {
    if (!tally.timed) return call();
    const auto start = std::chrono::steady_clock::now();
    call();
    tally.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  tally.bytes = face_bytes * ((minus != MPI_PROC_NULL ? 1 : 0) + (plus != MPI_PROC_NULL ? 1 : 0));

  if (config_.halo_comm_backend == CUDECOMP_HALO_COMM_MPI_BLOCKING) {
    // One neighbour at a time: downwards, then upwards.
    communicate([&] {
      check_mpi(MPI_Sendrecv(send_minus, count, type, minus, kToMinusTag, recv_plus, count, type, plus, kToMinusTag,
                             comm, MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
    });
    if (plus != MPI_PROC_NULL) unpack_region(mover, recv_plus, data, layout, faces.upper_halo, elem);
    communicate([&] {
      check_mpi(MPI_Sendrecv(send_plus, count, type, plus, kToPlusTag, recv_minus, count, type, minus, kToPlusTag, comm,
                             MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
    });
    if (minus != MPI_PROC_NULL) unpack_region(mover, recv_minus, data, layout, faces.lower_halo, elem);
    mover.before_communication();  // as below: the workspace is free when this returns
    return;
  }
  check_halo_backend(config_.halo_comm_backend, "config.halo_comm_backend");
  MPI_Request requests[4];
  communicate([&] {
    check_mpi(MPI_Irecv(recv_minus, count, type, minus, kToPlusTag, comm, &requests[0]), "MPI_Irecv");
    check_mpi(MPI_Irecv(recv_plus, count, type, plus, kToMinusTag, comm, &requests[1]), "MPI_Irecv");
    check_mpi(MPI_Isend(send_minus, count, type, minus, kToMinusTag, comm, &requests[2]), "MPI_Isend");
    check_mpi(MPI_Isend(send_plus, count, type, plus, kToPlusTag, comm, &requests[3]), "MPI_Isend");
    check_mpi(MPI_Waitall(4, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
  });
  if (minus != MPI_PROC_NULL) unpack_region(mover, recv_minus, data, layout, faces.lower_halo, elem);
  if (plus != MPI_PROC_NULL) unpack_region(mover, recv_plus, data, layout, faces.upper_halo, elem);
  mover.before_communication();  // the next operation's receives must not overwrite the workspace early
}

}  // namespace wavestack::decomp
