// MPI derived datatypes that describe a strided block of a host buffer, so MPI can read a
// block straight from the input pencil and write it straight into the output pencil: on host
// memory this saves the pack copy before sending and the unpack copy after receiving (MPI's
// shared-memory transport copies through its own buffers anyway). GPU builds pack instead.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "decomp/geometry.hpp"

namespace wavestack::decomp {

class BlockDatatype {
 public:
  BlockDatatype() = default;
  // `count` elements per global axis with element strides `stride`, elements of `element_type`,
  // listed X fastest like a packed block.
  BlockDatatype(const Int3& count, const Int3& stride, MPI_Datatype element_type, size_t element_bytes);
  ~BlockDatatype();
  BlockDatatype(BlockDatatype&& other) noexcept : type_(other.type_) { other.type_ = MPI_DATATYPE_NULL; }
  BlockDatatype& operator=(BlockDatatype&& other) noexcept;
  BlockDatatype(const BlockDatatype&) = delete;
  BlockDatatype& operator=(const BlockDatatype&) = delete;

  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// Whether transposes on host memory may use BlockDatatype messages; CUDECOMP_HOST_PACKING=1
// forces the pack/unpack path (the one GPU builds use), e.g. to test it.
bool host_datatypes_enabled();

}  // namespace wavestack::decomp
