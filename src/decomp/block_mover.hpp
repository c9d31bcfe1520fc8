// Where the block copies of one transpose or halo update run. The host mover copies at once,
// on the calling thread; the CUDA build's mover (cuda/device_mover.hpp) enqueues kernels on the
// operation's stream, so MPI must wait for them before it reads a packed buffer. Transposes and
// halo updates are written once against this interface and call before_communication() between
// packing and handing a buffer to MPI.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decomp/block_copy.hpp"

namespace wavestack::decomp {

class BlockMover {
 public:
  virtual ~BlockMover() = default;
  // copy_block's contract; on a device the copy may still be running when this returns.
  virtual void copy(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                    const StridedBlock& block) const = 0;
  // Every copy issued so far is complete and visible to MPI (device: the stream is synchronized).
  virtual void before_communication() const = 0;
  // Whether buffers are host memory, which MPI may read and write through derived datatypes
  // (block_datatype.hpp); device buffers are always packed.
  virtual bool host_memory() const = 0;
};

// The host mover: copy_block, nothing to wait for.
const BlockMover& host_mover();

}  // namespace wavestack::decomp
