// Execution of a transpose plan with the three MPI backends. Every backend packs each outgoing
// block into the send area of the workspace (X fastest), moves it, and unpacks it from the
// receive area into the output layout. Out of place, the block that stays on this rank is
// copied directly; in place, every block is packed before anything is written to the output.
#include <mpi.h>

#include <climits>
#include <cstddef>
#include <vector>

#include "decomp/block_copy.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {
namespace {

constexpr int kTransposeTag = 7001;

int mpi_count(int64_t value) {
  if (value > INT_MAX) not_supported("a transpose message exceeds INT_MAX elements; use more ranks");
  return static_cast<int>(value);
}

// One transpose in flight: the plan, the buffers and the pack/unpack steps the backends share.
class TransposeRun {
 public:
  TransposeRun(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out, const TransposeArgs& args,
               size_t element_bytes, MPI_Comm comm, MPI_Datatype type)
      : plan_(plan),
        in_(in),
        out_(out),
        input_(args.input),
        output_(args.output),
        in_place_(args.input == args.output),
        elem_(element_bytes),
        comm_(comm),
        type_(type) {
    auto* work = static_cast<std::byte*>(args.work);
    send_ = work;
    recv_ = work == nullptr ? nullptr : work + plan.send_total * static_cast<int64_t>(element_bytes);
  }

  int peers() const { return plan_.group_size(); }
  int self() const { return plan_.self; }
  bool in_place() const { return in_place_; }
  int64_t send_count(int peer) const { return plan_.send_boxes[peer].volume(); }
  int64_t recv_count(int peer) const { return plan_.recv_boxes[peer].volume(); }
  std::byte* send_at(int peer) const { return send_ + plan_.send_offsets[peer] * static_cast<int64_t>(elem_); }
  std::byte* recv_at(int peer) const { return recv_ + plan_.recv_offsets[peer] * static_cast<int64_t>(elem_); }

  void pack(int peer) const {
    const Box& b = plan_.send_boxes[peer];
    if (b.volume() == 0) return;
    copy_block(input_, in_.offset(in_.local_index(b.lo)), send_, plan_.send_offsets[peer], elem_,
               {b.count, in_.stride, packed_strides(b.count)});
  }
  // Unpacks the block received from `peer`; the block kept by this rank comes from the send area.
  void unpack(int peer) const {
    const Box& b = plan_.recv_boxes[peer];
    if (b.volume() == 0) return;
    const std::byte* area = peer == plan_.self ? send_ : recv_;
    const int64_t offset = peer == plan_.self ? plan_.send_offsets[peer] : plan_.recv_offsets[peer];
    copy_block(area, offset, output_, out_.offset(out_.local_index(b.lo)), elem_,
               {b.count, packed_strides(b.count), out_.stride});
  }
  void copy_self() const {
    const Box& b = plan_.send_boxes[plan_.self];
    if (b.volume() == 0) return;
    copy_block(input_, in_.offset(in_.local_index(b.lo)), output_, out_.offset(out_.local_index(b.lo)), elem_,
               {b.count, in_.stride, out_.stride});
  }
  // Out of place the kept block goes straight across; in place it was packed and is unpacked.
  void finish_self() const {
    if (in_place_) {
      unpack(plan_.self);
    } else {
      copy_self();
    }
  }

  void irecv(int peer, MPI_Request* request) const {
    check_mpi(MPI_Irecv(recv_at(peer), mpi_count(recv_count(peer)), type_, peer, kTransposeTag, comm_, request),
              "MPI_Irecv");
  }
  void isend(int peer, MPI_Request* request) const {
    check_mpi(MPI_Isend(send_at(peer), mpi_count(send_count(peer)), type_, peer, kTransposeTag, comm_, request),
              "MPI_Isend");
  }
  MPI_Comm comm() const { return comm_; }
  MPI_Datatype type() const { return type_; }

 private:
  const TransposePlan& plan_;
  const PencilLayout& in_;
  const PencilLayout& out_;
  const void* input_;
  void* output_;
  bool in_place_;
  size_t elem_;
  MPI_Comm comm_;
  MPI_Datatype type_;
  std::byte* send_ = nullptr;
  std::byte* recv_ = nullptr;
};

void pack_everything(const TransposeRun& run) {
  for (int peer = 0; peer < run.peers(); ++peer) run.pack(peer);
}

// MPI_P2P: every receive posted first, each block sent as soon as it is packed, blocks
// unpacked in the order they arrive.
void run_p2p(const TransposeRun& run) {
  const int n = run.peers();
  std::vector<MPI_Request> recvs(n, MPI_REQUEST_NULL), sends(n, MPI_REQUEST_NULL);
  std::vector<int> peer_of(n, -1);
  for (int step = 1; step < n; ++step) {
    const int peer = (run.self() - step + n) % n;
    if (run.recv_count(peer) > 0) run.irecv(peer, &recvs[peer]);
  }
  if (run.in_place()) pack_everything(run);
  for (int step = 1; step < n; ++step) {
    const int peer = (run.self() + step) % n;
    if (run.send_count(peer) == 0) continue;
    if (!run.in_place()) run.pack(peer);
    run.isend(peer, &sends[peer]);
  }
  run.finish_self();
  for (;;) {
    int index = MPI_UNDEFINED;
    check_mpi(MPI_Waitany(n, recvs.data(), &index, MPI_STATUS_IGNORE), "MPI_Waitany");
    if (index == MPI_UNDEFINED) break;
    run.unpack(index);
  }
  check_mpi(MPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// MPI_P2P_PL: pairwise exchange, one partner per step (send to self+s, receive from self-s);
// the block of step s-1 is unpacked while step s is on the wire.
void run_pipelined(const TransposeRun& run) {
  const int n = run.peers();
  if (run.in_place()) pack_everything(run);
  std::vector<MPI_Request> sends(n, MPI_REQUEST_NULL);
  MPI_Request previous_recv = MPI_REQUEST_NULL;
  int previous_peer = -1;
  for (int step = 1; step < n; ++step) {
    const int to = (run.self() + step) % n;
    const int from = (run.self() - step + n) % n;
    MPI_Request recv = MPI_REQUEST_NULL;
    if (run.recv_count(from) > 0) run.irecv(from, &recv);
    if (run.send_count(to) > 0) {
      if (!run.in_place()) run.pack(to);
      run.isend(to, &sends[to]);
    }
    if (step == 1) run.finish_self();
    if (previous_peer >= 0) {
      check_mpi(MPI_Wait(&previous_recv, MPI_STATUS_IGNORE), "MPI_Wait");
      run.unpack(previous_peer);
    }
    previous_recv = recv;
    previous_peer = from;
  }
  if (n == 1) run.finish_self();
  if (previous_peer >= 0) {
    check_mpi(MPI_Wait(&previous_recv, MPI_STATUS_IGNORE), "MPI_Wait");
    run.unpack(previous_peer);
  }
  check_mpi(MPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
}

// MPI_A2A: everything packed, one MPI_Alltoallv, everything unpacked.
void run_alltoall(const TransposeRun& run, const TransposePlan& plan) {
  const int n = run.peers();
  pack_everything(run);
  std::vector<int> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
  for (int peer = 0; peer < n; ++peer) {
    const bool local = peer == run.self();  // the kept block never travels
    send_counts[peer] = local ? 0 : mpi_count(run.send_count(peer));
    recv_counts[peer] = local ? 0 : mpi_count(run.recv_count(peer));
    send_displs[peer] = mpi_count(plan.send_offsets[peer]);
    recv_displs[peer] = mpi_count(plan.recv_offsets[peer]);
  }
  check_mpi(MPI_Alltoallv(run.send_at(0), send_counts.data(), send_displs.data(), run.type(), run.recv_at(0),
                          recv_counts.data(), recv_displs.data(), run.type(), run.comm()),
            "MPI_Alltoallv");
  // The kept block was packed above too, so it unpacks from the send area in and out of place.
  for (int peer = 0; peer < n; ++peer) run.unpack(peer);
}

}  // namespace

void GridDesc::transpose(TransposeOp op, const TransposeArgs& args) const {
  check_transpose(op, args);
  const size_t elem = static_cast<size_t>(data_type_size(args.dtype));
  const PencilLayout in = layout(input_axis(op), args.input_halo, args.input_padding);
  const PencilLayout out = layout(output_axis(op), args.output_halo, args.output_padding);
  if (is_noop(op, args, in, out)) return;
  const TransposePlan plan = make_transpose_plan(gdims_, gdims_dist_, grid_, coords_, op);
  const TransposeRun run(plan, in, out, args, elem, group_comms_[plan.group_dim], handle_.element_type(elem));
  if (plan.group_size() == 1) {
    if (run.in_place()) pack_everything(run);
    run.finish_self();
    return;
  }
  switch (config_.transpose_comm_backend) {
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P:
      return run_p2p(run);
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL:
      return run_pipelined(run);
    case CUDECOMP_TRANSPOSE_COMM_MPI_A2A:
      return run_alltoall(run, plan);
    default:
      check_transpose_backend(config_.transpose_comm_backend, "config.transpose_comm_backend");
      throw DecompError(CUDECOMP_RESULT_INTERNAL_ERROR, "unreachable transpose backend");
  }
}

}  // namespace wavestack::decomp
