#include "decomp/cuda/nccl_halo.hpp"

#include <nccl.h>

#include "decomp/cuda/nccl_comm.hpp"

namespace wavestack::decomp::cuda {

void nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
               const NcclComm& comm, size_t element_bytes, const DeviceMover& mover) {
  auto* data = static_cast<std::byte*>(args.data);
  auto* work = static_cast<std::byte*>(args.work);
  const size_t face_bytes = static_cast<size_t>(faces.volume) * element_bytes;
  std::byte* send_minus = work;
  std::byte* send_plus = work + face_bytes;
  std::byte* recv_minus = work + 2 * face_bytes;
  std::byte* recv_plus = work + 3 * face_bytes;
  if (minus >= 0) {
    mover.copy(data, layout.offset(faces.lower_interior.start), send_minus, 0, element_bytes,
               region_to_packed(layout, faces.lower_interior));
  }
  if (plus >= 0) {
    mover.copy(data, layout.offset(faces.upper_interior.start), send_plus, 0, element_bytes,
               region_to_packed(layout, faces.upper_interior));
  }
  // NCCL matches the sends and receives between two ranks in issue order (no tags). Sends go to
  // minus then plus and receives come from plus then minus, so when both neighbours are the same
  // rank (two ranks, periodic) each face still lands in the right halo: my first receive from
  // that rank is its send to its minus, which is me seen from above.
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  if (minus >= 0) check_nccl(ncclSend(send_minus, face_bytes, ncclChar, minus, comm.get(), mover.stream()), "ncclSend");
  if (plus >= 0) check_nccl(ncclSend(send_plus, face_bytes, ncclChar, plus, comm.get(), mover.stream()), "ncclSend");
  if (plus >= 0) check_nccl(ncclRecv(recv_plus, face_bytes, ncclChar, plus, comm.get(), mover.stream()), "ncclRecv");
  if (minus >= 0) {
    check_nccl(ncclRecv(recv_minus, face_bytes, ncclChar, minus, comm.get(), mover.stream()), "ncclRecv");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  if (minus >= 0) {
    mover.copy(recv_minus, 0, data, layout.offset(faces.lower_halo.start), element_bytes,
               packed_to_region(layout, faces.lower_halo));
  }
  if (plus >= 0) {
    mover.copy(recv_plus, 0, data, layout.offset(faces.upper_halo.start), element_bytes,
               packed_to_region(layout, faces.upper_halo));
  }
}

}  // namespace wavestack::decomp::cuda
