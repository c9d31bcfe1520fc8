#include "decomp/block_datatype.hpp"

#include <array>
#include <cstdlib>
#include <string_view>

#include "decomp/error.hpp"

namespace wavestack::decomp {

BlockDatatype::BlockDatatype(const Int3& count, const Int3& stride, MPI_Datatype element_type, size_t element_bytes) {
  // X innermost, then Y, then Z, whatever the memory order: the sender's and the receiver's
  // types must list the block's elements in the same order (the wire order of packed blocks).
  const std::array<int, 3> axes{0, 1, 2};
  MPI_Datatype current = element_type;
  bool owned = false;
  for (int axis : axes) {
    MPI_Datatype next = MPI_DATATYPE_NULL;
    const auto bytes = static_cast<MPI_Aint>(stride[axis] * static_cast<int64_t>(element_bytes));
    check_mpi(MPI_Type_create_hvector(static_cast<int>(count[axis]), 1, bytes, current, &next),
              "MPI_Type_create_hvector");
    if (owned) MPI_Type_free(&current);
    current = next;
    owned = true;
  }
  check_mpi(MPI_Type_commit(&current), "MPI_Type_commit");
  type_ = current;
}

BlockDatatype::~BlockDatatype() {
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
}

BlockDatatype& BlockDatatype::operator=(BlockDatatype&& other) noexcept {
  if (this != &other) {
    if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
    type_ = other.type_;
    other.type_ = MPI_DATATYPE_NULL;
  }
  return *this;
}

bool host_datatypes_enabled() {
  const char* value = std::getenv("CUDECOMP_HOST_PACKING");
  return !(value != nullptr && std::string_view(value) == "1");
}

}  // namespace wavestack::decomp
