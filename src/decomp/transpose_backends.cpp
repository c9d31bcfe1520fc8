// Execution of a transpose plan with the three MPI backends. A message either travels through
// the workspace (packed X fastest into the send area, unpacked from the receive area into the
// output layout) or, on host memory, straight between the pencils as an MPI derived datatype
// (block_datatype.hpp). Out of place, the block that stays on this rank is copied directly; in
// place, every outgoing block is packed before anything is received or written to the output.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <vector>

#include "decomp/block_copy.hpp"
#include "decomp/block_datatype.hpp"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"
#include "decomp/mpi_device_support.hpp"

namespace wavestack::decomp {
namespace {

constexpr int kTransposeTag = 7001;

int mpi_int(int64_t value) {
  if (value > INT_MAX) not_supported("a transpose message or offset exceeds INT_MAX; use more ranks");
  return static_cast<int>(value);
}

// Where one message lives: a buffer, a count and a datatype.
struct Message {
  void* buffer = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

// One transpose in flight: the plan, the buffers, and the pack/unpack steps the backends share.
class TransposeRun {
 public:
  TransposeRun(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out, const TransposeArgs& args,
               size_t element_bytes, MPI_Comm comm, MPI_Datatype type, bool direct, CommTally& tally)
      : plan_(plan),
        in_(in),
        out_(out),
        input_(args.input),
        output_(args.output),
        in_place_(args.input == args.output),
        elem_(element_bytes),
        comm_(comm),
        type_(type),
        mover_(args.mover == nullptr ? host_mover() : *args.mover),
        direct_send_(direct && !in_place_),
        direct_recv_(direct),
        tally_(tally) {
    auto* work = static_cast<std::byte*>(args.work);
    send_ = work;
    recv_ = work == nullptr ? nullptr : work + plan.send_total * static_cast<int64_t>(element_bytes);
    const int n = plan.group_size();
    send_types_.resize(n);
    recv_types_.resize(n);
    for (int peer = 0; peer < n; ++peer) {
      if (peer == plan.self) continue;
      if (direct_send_ && send_count(peer) > 0) {
        send_types_[peer] = BlockDatatype(plan.send_boxes[peer].count, in.stride, type, element_bytes);
      }
      if (direct_recv_ && recv_count(peer) > 0) {
        recv_types_[peer] = BlockDatatype(plan.recv_boxes[peer].count, out.stride, type, element_bytes);
      }
    }
  }

  int peers() const { return plan_.group_size(); }
  int self() const { return plan_.self; }
  bool in_place() const { return in_place_; }
  int64_t send_count(int peer) const { return plan_.send_boxes[peer].volume(); }
  int64_t recv_count(int peer) const { return plan_.recv_boxes[peer].volume(); }

  Message send_message(int peer) const {
    if (direct_send_) {
      return {at(input_, in_, plan_.send_boxes[peer]), 1, send_types_[peer].get()};
    }
    return {send_ + plan_.send_offsets[peer] * static_cast<int64_t>(elem_), mpi_int(send_count(peer)), type_};
  }
  Message recv_message(int peer) const {
    if (direct_recv_) return {at(output_, out_, plan_.recv_boxes[peer]), 1, recv_types_[peer].get()};
    return {recv_ + plan_.recv_offsets[peer] * static_cast<int64_t>(elem_), mpi_int(recv_count(peer)), type_};
  }

  // Packs the block for `peer` into the send area (nothing to do when it travels as a datatype).
  void pack(int peer) const {
    const Box& b = plan_.send_boxes[peer];
    if (b.volume() == 0 || (direct_send_ && peer != plan_.self)) return;
    mover_.copy(input_, in_.offset(in_.local_index(b.lo)), send_, plan_.send_offsets[peer], elem_,
                {b.count, in_.stride, packed_strides(b.count)});
  }
  // Unpacks the block received from `peer`; the block kept by this rank comes from the send area.
  void unpack(int peer) const {
    const Box& b = plan_.recv_boxes[peer];
    if (b.volume() == 0 || (direct_recv_ && peer != plan_.self)) return;
    const std::byte* area = peer == plan_.self ? send_ : recv_;
    const int64_t offset = peer == plan_.self ? plan_.send_offsets[peer] : plan_.recv_offsets[peer];
    mover_.copy(area, offset, output_, out_.offset(out_.local_index(b.lo)), elem_,
                {b.count, packed_strides(b.count), out_.stride});
  }
  void pack_everything() const {
    for (int peer = 0; peer < peers(); ++peer) {
      if (peer != plan_.self || in_place_) pack(peer);
    }
  }
  // Out of place the kept block goes straight across; in place it was packed and is unpacked.
  void finish_self() const {
    const Box& b = plan_.send_boxes[plan_.self];
    if (b.volume() == 0) return;
    if (in_place_) {
      unpack(plan_.self);
    } else {
      mover_.copy(input_, in_.offset(in_.local_index(b.lo)), output_, out_.offset(out_.local_index(b.lo)), elem_,
                  {b.count, in_.stride, out_.stride});
    }
  }

  // Runs `call`, an MPI call, counting its time as communication (the performance report's).
  template <typename Call>
  void communicate(Call&& call) const {
    if (!tally_.timed) return call();
    const auto start = std::chrono::steady_clock::now();
    call();
    tally_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void irecv(int peer, MPI_Request* request) const {
    const Message m = recv_message(peer);
    communicate(
        [&] { check_mpi(MPI_Irecv(m.buffer, m.count, m.type, peer, kTransposeTag, comm_, request), "MPI_Irecv"); });
  }
  // Sends read packed data, so copies queued on a device must finish first.
  void isend(int peer, MPI_Request* request) const {
    mover_.before_communication();
    const Message m = send_message(peer);
    tally_.bytes += send_count(peer) * static_cast<int64_t>(elem_);
    communicate(
        [&] { check_mpi(MPI_Isend(m.buffer, m.count, m.type, peer, kTransposeTag, comm_, request), "MPI_Isend"); });
  }
  // The bytes of every block that leaves this rank, for the collectives (which send them all).
  void count_all_sends() const {
    for (int peer = 0; peer < peers(); ++peer) {
      if (peer != plan_.self) tally_.bytes += send_count(peer) * static_cast<int64_t>(elem_);
    }
  }
  MPI_Comm comm() const { return comm_; }
  void before_communication() const { mover_.before_communication(); }
  std::byte* send_area() const { return send_; }
  std::byte* recv_area() const { return recv_; }

 private:
  // Address of the first element of block `b` in a pencil buffer. MPI takes send buffers as
  // const void*, so the cast only restores the type the Message struct stores.
  std::byte* at(const void* base, const PencilLayout& layout, const Box& b) const {
    return const_cast<std::byte*>(static_cast<const std::byte*>(base)) +
           layout.offset(layout.local_index(b.lo)) * static_cast<int64_t>(elem_);
  }

  const TransposePlan& plan_;
  const PencilLayout& in_;
  const PencilLayout& out_;
  const void* input_;
  void* output_;
  bool in_place_;
  size_t elem_;
  MPI_Comm comm_;
  MPI_Datatype type_;
  const BlockMover& mover_;
  bool direct_send_;
  bool direct_recv_;
  std::byte* send_ = nullptr;
  std::byte* recv_ = nullptr;
  std::vector<BlockDatatype> send_types_, recv_types_;
  CommTally& tally_;
};

// MPI_P2P: every receive posted first (after packing, in place), each block sent as soon as it
// is ready, blocks unpacked in the order they arrive.
void run_p2p(const TransposeRun& run) {
  const int n = run.peers();
  std::vector<MPI_Request> recvs(n, MPI_REQUEST_NULL), sends(n, MPI_REQUEST_NULL);
  if (run.in_place()) run.pack_everything();
  for (int step = 1; step < n; ++step) {
    const int peer = (run.self() - step + n) % n;
    if (run.recv_count(peer) > 0) run.irecv(peer, &recvs[peer]);
  }
  for (int step = 1; step < n; ++step) {
    const int peer = (run.self() + step) % n;
    if (run.send_count(peer) == 0) continue;
    if (!run.in_place()) run.pack(peer);
    run.isend(peer, &sends[peer]);
  }
  run.finish_self();
  for (;;) {
    int index = MPI_UNDEFINED;
    run.communicate([&] { check_mpi(MPI_Waitany(n, recvs.data(), &index, MPI_STATUS_IGNORE), "MPI_Waitany"); });
    if (index == MPI_UNDEFINED) break;
    run.unpack(index);
  }
  run.communicate([&] { check_mpi(MPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall"); });
}

// MPI_P2P_PL: pairwise exchange, one partner per step (send to self+s, receive from self-s);
// the block of step s-1 is unpacked while step s is on the wire.
void run_pipelined(const TransposeRun& run) {
  const int n = run.peers();
  if (run.in_place()) run.pack_everything();
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
      run.communicate([&] { check_mpi(MPI_Wait(&previous_recv, MPI_STATUS_IGNORE), "MPI_Wait"); });
      run.unpack(previous_peer);
    }
    previous_recv = recv;
    previous_peer = from;
  }
  if (previous_peer >= 0) {
    run.communicate([&] { check_mpi(MPI_Wait(&previous_recv, MPI_STATUS_IGNORE), "MPI_Wait"); });
    run.unpack(previous_peer);
  }
  run.communicate([&] { check_mpi(MPI_Waitall(n, sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall"); });
}

// MPI_A2A with packed messages: one MPI_Alltoallv over the workspace (element displacements).
void run_alltoallv(const TransposeRun& run, const TransposePlan& plan, MPI_Datatype type) {
  const int n = run.peers();
  run.pack_everything();
  std::vector<int> send_counts(n, 0), recv_counts(n, 0), send_displs(n, 0), recv_displs(n, 0);
  for (int peer = 0; peer < n; ++peer) {
    if (peer == run.self()) continue;  // the kept block never travels
    send_counts[peer] = mpi_int(run.send_count(peer));
    recv_counts[peer] = mpi_int(run.recv_count(peer));
    send_displs[peer] = mpi_int(plan.send_offsets[peer]);
    recv_displs[peer] = mpi_int(plan.recv_offsets[peer]);
  }
  run.finish_self();
  run.before_communication();
  run.count_all_sends();
  run.communicate([&] {
    check_mpi(MPI_Alltoallv(run.send_area(), send_counts.data(), send_displs.data(), type, run.recv_area(),
                            recv_counts.data(), recv_displs.data(), type, run.comm()),
              "MPI_Alltoallv");
  });
  for (int peer = 0; peer < n; ++peer) {
    if (peer != run.self()) run.unpack(peer);
  }
}

// MPI_A2A with datatype messages: one MPI_Alltoallw, byte displacements from the lowest
// message address on each side (the caller checked that they fit in an int).
void run_alltoallw(const TransposeRun& run) {
  const int n = run.peers();
  run.pack_everything();  // in place, the outgoing blocks still go through the workspace
  std::vector<int> send_counts(n, 0), recv_counts(n, 0), send_displs(n, 0), recv_displs(n, 0);
  std::vector<MPI_Datatype> send_types(n, MPI_BYTE), recv_types(n, MPI_BYTE);
  std::vector<Message> sends(n), recvs(n);
  std::byte* send_base = nullptr;
  std::byte* recv_base = nullptr;
  for (int peer = 0; peer < n; ++peer) {
    if (peer == run.self()) continue;  // the kept block never travels
    if (run.send_count(peer) > 0) {
      sends[peer] = run.send_message(peer);
      auto* p = static_cast<std::byte*>(sends[peer].buffer);
      if (send_base == nullptr || p < send_base) send_base = p;
    }
    if (run.recv_count(peer) > 0) {
      recvs[peer] = run.recv_message(peer);
      auto* p = static_cast<std::byte*>(recvs[peer].buffer);
      if (recv_base == nullptr || p < recv_base) recv_base = p;
    }
  }
  for (int peer = 0; peer < n; ++peer) {
    if (sends[peer].buffer != nullptr) {
      send_counts[peer] = sends[peer].count;
      send_types[peer] = sends[peer].type;
      send_displs[peer] = mpi_int(static_cast<std::byte*>(sends[peer].buffer) - send_base);
    }
    if (recvs[peer].buffer != nullptr) {
      recv_counts[peer] = recvs[peer].count;
      recv_types[peer] = recvs[peer].type;
      recv_displs[peer] = mpi_int(static_cast<std::byte*>(recvs[peer].buffer) - recv_base);
    }
  }
  run.finish_self();
  run.before_communication();
  run.count_all_sends();
  run.communicate([&] {
    check_mpi(MPI_Alltoallw(send_base, send_counts.data(), send_displs.data(), send_types.data(), recv_base,
                            recv_counts.data(), recv_displs.data(), recv_types.data(), run.comm()),
              "MPI_Alltoallw");
  });
  for (int peer = 0; peer < n; ++peer) {
    if (peer != run.self()) run.unpack(peer);
  }
}

}  // namespace

void GridDesc::run_transpose(TransposeOp op, const TransposeArgs& args, CommTally& tally) const {
  check_transpose(op, args);
  const size_t elem = static_cast<size_t>(data_type_size(args.dtype));
  const PencilLayout in = layout(input_axis(op), args.input_halo, args.input_padding);
  const PencilLayout out = layout(output_axis(op), args.output_halo, args.output_padding);
  if (is_noop(op, args, in, out)) return;
  const TransposePlan plan = make_transpose_plan(gdims_, gdims_dist_, grid_, coords_, op);
  if (plan.group_size() == 1) {
    const TransposeRun run(plan, in, out, args, elem, MPI_COMM_NULL, MPI_DATATYPE_NULL, false, tally);
    if (run.in_place()) run.pack(plan.self);
    run.finish_self();
    return;
  }
  const auto backend = config_.transpose_comm_backend;
  if (backend == CUDECOMP_TRANSPOSE_COMM_NCCL || backend == CUDECOMP_TRANSPOSE_COMM_NCCL_PL) {
    // Every rank gets here or none does (group sizes are global), as the collective split needs.
    return run_nccl_transpose(plan, in, out, args, elem, nccl_group(plan.group_dim),
                              backend == CUDECOMP_TRANSPOSE_COMM_NCCL_PL);
  }
  // MPI_Alltoallw takes byte displacements as int: buffers beyond 2 GiB go through the workspace.
  // Every rank of the collective must choose alike, so the test is on the largest pencils of any
  // rank (from the geometry, no communication), not on this rank's own; it is computed only
  // where it decides something (MPI_A2A on host memory with datatypes).
  const bool a2a = config_.transpose_comm_backend == CUDECOMP_TRANSPOSE_COMM_MPI_A2A;
  const bool host_memory = args.mover == nullptr || args.mover->host_memory();
  // Remote peers from here on: on device buffers MPI gets device pointers.
  if (!host_memory) require_mpi_device_buffers(transpose_backend_name(backend));
  const auto largest_bytes = [&] {
    return std::max(largest_layout_size(input_axis(op), args.input_halo, args.input_padding),
                    largest_layout_size(output_axis(op), args.output_halo, args.output_padding)) *
           static_cast<int64_t>(elem);
  };
  const bool direct = host_memory && host_datatypes_enabled() && (!a2a || largest_bytes() <= INT_MAX);
  const MPI_Datatype type = handle_.element_type(elem);
  const TransposeRun run(plan, in, out, args, elem, group_comms_[plan.group_dim], type, direct, tally);
  switch (config_.transpose_comm_backend) {
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P:
      run_p2p(run);
      break;
    case CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL:
      run_pipelined(run);
      break;
    case CUDECOMP_TRANSPOSE_COMM_MPI_A2A:
      if (direct) {
        run_alltoallw(run);
      } else {
        run_alltoallv(run, plan, type);
      }
      break;
    default:
      check_transpose_backend(config_.transpose_comm_backend, "config.transpose_comm_backend");
      throw DecompError(CUDECOMP_RESULT_INTERNAL_ERROR, "unreachable transpose backend");
  }
  // On a device, the unpacks may still be reading the receive area: the next operation's MPI
  // receives (posted before its first synchronization) must not overwrite it, whatever stream
  // that operation uses. NCCL needs no such wait: its receives are ordered on the stream.
  run.before_communication();
}

}  // namespace wavestack::decomp
