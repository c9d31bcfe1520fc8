#include "decomp/cuda/nccl_transpose.hpp"

#include <nccl.h>

#include "decomp/block_copy.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/cuda/nccl_comm.hpp"

namespace wavestack::decomp::cuda {
namespace {

// One transpose's buffers and the packed areas of the workspace, as byte pointers.
struct Areas {
  const std::byte* input;
  std::byte* output;
  std::byte* send;
  std::byte* recv;
};

void pack(const DeviceMover& mover, const TransposePlan& plan, const PencilLayout& in, const Areas& a, size_t elem,
          int peer) {
  const Box& b = plan.send_boxes[peer];
  if (b.volume() == 0) return;
  mover.copy(a.input, in.offset(in.local_index(b.lo)), a.send, plan.send_offsets[peer], elem,
             {b.count, in.stride, packed_strides(b.count)});
}

// The block kept by this rank is unpacked from the send area, the others from the receive area.
void unpack(const DeviceMover& mover, const TransposePlan& plan, const PencilLayout& out, const Areas& a, size_t elem,
            int peer) {
  const Box& b = plan.recv_boxes[peer];
  if (b.volume() == 0) return;
  const bool self = peer == plan.self;
  mover.copy(self ? a.send : a.recv, self ? plan.send_offsets[peer] : plan.recv_offsets[peer], a.output,
             out.offset(out.local_index(b.lo)), elem, {b.count, packed_strides(b.count), out.stride});
}

// Byte counts travel as ncclChar so one code path serves the four element types.
void send_recv(const NcclComm& comm, const TransposePlan& plan, const Areas& a, size_t elem, int to, int from,
               cudaStream_t stream) {
  const auto bytes = [&](int64_t elements) { return static_cast<size_t>(elements) * elem; };
  if (plan.send_boxes[to].volume() > 0) {
    check_nccl(ncclSend(a.send + bytes(plan.send_offsets[to]), bytes(plan.send_boxes[to].volume()), ncclChar, to,
                        comm.get(), stream),
               "ncclSend");
  }
  if (plan.recv_boxes[from].volume() > 0) {
    check_nccl(ncclRecv(a.recv + bytes(plan.recv_offsets[from]), bytes(plan.recv_boxes[from].volume()), ncclChar, from,
                        comm.get(), stream),
               "ncclRecv");
  }
}

}  // namespace

void nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                    const TransposeArgs& args, size_t element_bytes, const NcclComm& comm, bool pipelined,
                    cudaStream_t stream) {
  const DeviceMover mover(stream);
  auto* work = static_cast<std::byte*>(args.work);
  const Areas a{static_cast<const std::byte*>(args.input), static_cast<std::byte*>(args.output), work,
                work + plan.send_total * static_cast<int64_t>(element_bytes)};
  const int n = plan.group_size();
  // Everything is packed before anything is received: in place, the output overlaps the input.
  for (int peer = 0; peer < n; ++peer) pack(mover, plan, in, a, element_bytes, peer);
  if (pipelined) {
    for (int step = 1; step < n; ++step) {
      const int to = (plan.self + step) % n;
      const int from = (plan.self - step + n) % n;
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      send_recv(comm, plan, a, element_bytes, to, from, stream);
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      unpack(mover, plan, out, a, element_bytes, from);
    }
  } else {
    check_nccl(ncclGroupStart(), "ncclGroupStart");
    for (int step = 1; step < n; ++step) {
      send_recv(comm, plan, a, element_bytes, (plan.self + step) % n, (plan.self - step + n) % n, stream);
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd");
    for (int step = 1; step < n; ++step) unpack(mover, plan, out, a, element_bytes, (plan.self - step + n) % n);
  }
  unpack(mover, plan, out, a, element_bytes, plan.self);
}

}  // namespace wavestack::decomp::cuda
