#include "decomp/device_agreement.hpp"

#include <algorithm>
#include <cstring>

#include "decomp/error.hpp"

namespace wavestack::decomp {

DeviceCensus take_device_census(MPI_Comm comm, bool local_device) {
  DeviceCensus census;
  check_mpi(MPI_Comm_size(comm, &census.ranks), "MPI_Comm_size");
  const int mine = local_device ? 1 : 0;
  check_mpi(MPI_Allreduce(&mine, &census.with_device, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
  return census;
}

bool any_name_repeated(std::vector<std::string> names) {
  std::erase(names, std::string());
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) != names.end();
}

bool ranks_share_a_device(MPI_Comm comm, const std::string& identity) {
  // Fixed-size records: the host's name, then the device's identity (cut to fit; a PCI bus id
  // is 12 to 16 characters).
  constexpr int kHostBytes = MPI_MAX_PROCESSOR_NAME;
  constexpr int kIdentityBytes = 64;
  constexpr int kRecordBytes = kHostBytes + kIdentityBytes;
  std::vector<char> mine(kRecordBytes, '\0');
  int host_length = 0;
  check_mpi(MPI_Get_processor_name(mine.data(), &host_length), "MPI_Get_processor_name");
  identity.copy(mine.data() + kHostBytes, kIdentityBytes - 1);
  int ranks = 0;
  check_mpi(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  std::vector<char> all(static_cast<size_t>(ranks) * kRecordBytes);
  check_mpi(MPI_Allgather(mine.data(), kRecordBytes, MPI_CHAR, all.data(), kRecordBytes, MPI_CHAR, comm),
            "MPI_Allgather");
  std::vector<std::string> names;
  for (int r = 0; r < ranks; ++r) {
    const char* record = all.data() + static_cast<size_t>(r) * kRecordBytes;
    const std::string device(record + kHostBytes, strnlen(record + kHostBytes, kIdentityBytes));
    if (device.empty()) continue;  // no device: nothing to share
    names.push_back(std::string(record, strnlen(record, kHostBytes)) + "/" + device);
  }
  return any_name_repeated(std::move(names));
}

std::string device_disagreement_warning(const DeviceCensus& census) {
  return "CUDECOMP:WARN: " + std::to_string(census.with_device) + " of " + std::to_string(census.ranks) +
         " ranks see a CUDA device; for agreement across ranks, cudecompMalloc returns host memory and the "
         "autotuner times the MPI backends on host buffers on every rank (check CUDA_VISIBLE_DEVICES and the "
         "drivers of the nodes)\n";
}

}  // namespace wavestack::decomp
