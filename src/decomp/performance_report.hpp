// cuDecomp's performance report (upstream since 0.5.1): with CUDECOMP_ENABLE_PERFORMANCE_REPORT
// set, every transpose and halo update of a grid is timed, and cudecompGridDescDestroy prints, on
// rank 0, a table per operation configuration (operation, data type, halos, padding, in place)
// with the mean total time, the time spent communicating, the rest (packing, local copies) and
// the bandwidth of the communication, averaged over ranks. The settings and the table layout are
// upstream's, so scripts that read upstream's report read ours:
//   CUDECOMP_PERFORMANCE_REPORT_DETAIL        0 tables only (default), 1 also rank 0's samples,
//                                             2 also every rank's samples
//   CUDECOMP_PERFORMANCE_REPORT_SAMPLES       samples kept per configuration, the latest ones (20)
//   CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES first calls of a configuration left out (3)
//   CUDECOMP_PERFORMANCE_REPORT_WRITE_DIR     also write the tables as CSV files there
// Times are host wall-clock times: the host build runs synchronously, and on device memory an
// MPI-backend operation ends with its stream synchronized (the receive area must be free), so
// the time covers the device work. The communication time is the time spent inside MPI calls;
// on the NCCL backends it is not separated (reported as 0, as upstream reports a zero
// bandwidth when nothing was timed).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cudecomp.h"
#include "decomp/geometry.hpp"

namespace wavestack::decomp {

struct PerformanceReportSettings {
  bool enabled = false;
  int detail = 0;
  int samples = 20;
  int warmup_samples = 3;
  std::string write_dir;

  // From the environment; an invalid value keeps the default, with a warning on rank 0.
  static PerformanceReportSettings from_environment(int rank);
};

// Time spent communicating within one operation, and the bytes it sent to other ranks. The
// MPI calls read the clock only when `timed` (the report is enabled).
struct CommTally {
  bool timed = false;
  double seconds = 0.0;
  int64_t bytes = 0;
};

struct TransposeSampleKey {
  int op = 0;  // TransposeOp: X->Y, Y->Z, Z->Y, Y->X
  cudecompDataType_t dtype = CUDECOMP_DOUBLE;
  Int3 input_halo{}, output_halo{}, input_padding{}, output_padding{};
  bool in_place = false;
  bool managed = false;
  auto tie() const {
    return std::tie(op, dtype, input_halo, output_halo, input_padding, output_padding, in_place, managed);
  }
  bool operator<(const TransposeSampleKey& other) const;
};

struct HaloSampleKey {
  int axis = 0;
  int dim = 0;
  cudecompDataType_t dtype = CUDECOMP_DOUBLE;
  Int3 halo{}, padding{};
  std::array<bool, 3> periods{};
  bool managed = false;
  auto tie() const { return std::tie(axis, dim, dtype, halo, periods, padding, managed); }
  bool operator<(const HaloSampleKey& other) const;
};

struct PerformanceSample {
  double total_ms = 0.0;
  double comm_ms = 0.0;
  int64_t comm_bytes = 0;
};

// The latest `capacity` samples of one configuration, after its first `warmup` calls.
class SampleRing {
 public:
  void add(const PerformanceSample& sample, int capacity, int warmup);
  // Oldest first.
  std::vector<PerformanceSample> in_order() const;

 private:
  int calls_ = 0;
  size_t next_ = 0;
  std::vector<PerformanceSample> samples_;
};

class GridDesc;

class PerformanceRecorder {
 public:
  void add(const TransposeSampleKey& key, const PerformanceSample& sample, const PerformanceReportSettings& settings);
  void add(const HaloSampleKey& key, const PerformanceSample& sample, const PerformanceReportSettings& settings);
  // Collective over the grid's handle communicator: averages over ranks, prints on rank 0 (and
  // writes the CSV files there when a directory is set). Ranks that recorded different
  // configurations get a warning instead of a report, never a mismatched collective.
  void report(const GridDesc& grid, const PerformanceReportSettings& settings) const;

 private:
  std::map<TransposeSampleKey, SampleRing> transposes_;
  std::map<HaloSampleKey, SampleRing> halos_;
};

}  // namespace wavestack::decomp
