#include "decomp/performance_report.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>

#include "decomp/config.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {
namespace {

// An integer setting within [low, high]; anything else keeps `fallback` and warns on rank 0.
int integer_setting(const char* name, int fallback, int low, int high, int rank) {
  const char* text = std::getenv(name);
  if (text == nullptr) return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end != text && *end == '\0' && value >= low && value <= high) return static_cast<int>(value);
  if (rank == 0) std::printf("CUDECOMP:WARN: Invalid %s value (%s). Using default (%d).\n", name, text, fallback);
  return fallback;
}

bool flag_setting(const char* name) {
  const char* text = std::getenv(name);
  return text != nullptr && std::strtol(text, nullptr, 10) != 0;
}

const char* dtype_letter(cudecompDataType_t dtype) {
  switch (dtype) {
    case CUDECOMP_FLOAT:
      return "S";
    case CUDECOMP_DOUBLE:
      return "D";
    case CUDECOMP_FLOAT_COMPLEX:
      return "C";
    case CUDECOMP_DOUBLE_COMPLEX:
      return "Z";
  }
  return "unknown";
}

// Upstream's order of the data types in the tables: S, D, C, Z (the enum runs -1 .. -4).
int dtype_rank(cudecompDataType_t dtype) {
  return -static_cast<int>(dtype);
}

const char* transpose_name(int op) {
  static const char* const kNames[4] = {"TransposeXY", "TransposeYZ", "TransposeZY", "TransposeYX"};
  return kNames[op];
}

const char* halo_name(int axis) {
  static const char* const kNames[3] = {"HaloX", "HaloY", "HaloZ"};
  return kNames[axis];
}

std::string triple(const Int3& v) {
  // (snprintf rather than "[" + to_string(...): GCC 12 warns falsely about the latter, -Wrestrict)
  char text[80];
  std::snprintf(text, sizeof(text), "[%lld,%lld,%lld]", static_cast<long long>(v[0]), static_cast<long long>(v[1]),
                static_cast<long long>(v[2]));
  return text;
}

std::string triple(const std::array<bool, 3>& v) {
  return std::string("[") + (v[0] ? "1" : "0") + "," + (v[1] ? "1" : "0") + "," + (v[2] ? "1" : "0") + "]";
}

const char* yes_no(bool value) {
  return value ? "T" : "F";
}

// One configuration's samples on this rank and its means over all ranks.
struct ConfigTimes {
  std::vector<double> total, comm, local, bandwidth;  // ms, ms, ms, GB/s
  double mean_total = 0, mean_comm = 0, mean_local = 0, mean_bandwidth = 0;
  bool any_rank_has_samples = false;  // rows without samples anywhere are left out, as upstream's
};

ConfigTimes collect(const SampleRing& ring) {
  ConfigTimes times;
  for (const PerformanceSample& s : ring.in_order()) {
    times.total.push_back(s.total_ms);
    times.comm.push_back(s.comm_ms);
    times.local.push_back(s.total_ms - s.comm_ms);
    // bytes / ms * 1e-6 = GB/s
    times.bandwidth.push_back(s.comm_ms > 0 ? static_cast<double>(s.comm_bytes) * 1e-6 / s.comm_ms : 0.0);
  }
  return times;
}

// Each rank's mean of its samples, averaged over the ranks (upstream's figure).
void average_over_ranks(ConfigTimes& times, MPI_Comm comm, int ranks) {
  const auto mean = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  double means[5] = {mean(times.total), mean(times.comm), mean(times.local), mean(times.bandwidth),
                     static_cast<double>(times.total.size())};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, means, 5, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  times.any_rank_has_samples = means[4] > 0;
  times.mean_total = means[0] / ranks;
  times.mean_comm = means[1] / ranks;
  times.mean_local = means[2] / ranks;
  times.mean_bandwidth = means[3] / ranks;
}

// How many samples each rank has of one configuration, on rank 0 (empty elsewhere).
std::vector<int> gather_counts(int count, MPI_Comm comm, int rank, int ranks) {
  std::vector<int> counts(rank == 0 ? ranks : 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm), "MPI_Gather");
  return counts;
}

// Every rank's samples of one series, rank after rank, on rank 0 (detail level 2); `counts`
// from gather_counts.
std::vector<double> gather_series(const std::vector<double>& mine, const std::vector<int>& counts, MPI_Comm comm) {
  std::vector<int> displs(counts.size(), 0);
  std::vector<double> all;
  if (!counts.empty()) {
    for (size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    all.resize(static_cast<size_t>(displs.back()) + static_cast<size_t>(counts.back()));
  }
  check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                        displs.data(), MPI_DOUBLE, 0, comm),
            "MPI_Gatherv");
  return all;
}

// The grid as upstream's report and file names describe it.
struct GridFacts {
  std::string transpose_backend, halo_backend;
  int transpose_code = 0, halo_code = 0;
  std::array<int, 2> pdims{};
  Int3 gdims{};
  std::array<Int3, 3> mem_order{};
};

GridFacts grid_facts(const GridDesc& grid) {
  GridFacts facts;
  const auto& config = grid.config();
  facts.transpose_backend = transpose_backend_name(config.transpose_comm_backend);
  facts.halo_backend = halo_backend_name(config.halo_comm_backend);
  facts.transpose_code = static_cast<int>(config.transpose_comm_backend);
  facts.halo_code = static_cast<int>(config.halo_comm_backend);
  facts.pdims = {config.pdims[0], config.pdims[1]};
  facts.gdims = grid.gdims();
  for (int axis = 0; axis < 3; ++axis) {
    const cudecompPencilInfo_t info = grid.pencil_info(axis, {0, 0, 0}, {0, 0, 0});
    facts.mem_order[axis] = {info.order[0], info.order[1], info.order[2]};
  }
  return facts;
}

std::string mem_order_text(const GridFacts& facts) {
  std::string text;
  for (int axis = 0; axis < 3; ++axis) text += (axis ? "; " : "") + triple(facts.mem_order[axis]);
  return text;
}

std::filesystem::path report_file(const std::string& dir, const std::string& table, const GridFacts& facts) {
  std::ostringstream name;
  name << "cudecomp-perf-report-" << table << "-tcomm_" << facts.transpose_code << "-hcomm_" << facts.halo_code
       << "-pdims_" << facts.pdims[0] << "x" << facts.pdims[1] << "-gdims_" << facts.gdims[0] << "x" << facts.gdims[1]
       << "x" << facts.gdims[2] << "-memorder_";
  for (const Int3& order : facts.mem_order) name << order[0] << order[1] << order[2];
  name << ".csv";
  return std::filesystem::path(dir) / name.str();
}

// A CSV file with the grid as '#' comment lines, or a warning when it cannot be opened.
std::ofstream open_csv(const std::filesystem::path& path, const GridFacts& facts) {
  std::ofstream file(path);
  if (!file.is_open()) {
    std::printf("CUDECOMP:WARN: Could not open file %s for writing\n", path.string().c_str());
    return file;
  }
  file << "# Transpose backend: " << facts.transpose_backend << "\n# Halo backend: " << facts.halo_backend
       << "\n# Process grid: [" << facts.pdims[0] << ", " << facts.pdims[1] << "]\n# Global dimensions: ["
       << facts.gdims[0] << ", " << facts.gdims[1] << ", " << facts.gdims[2]
       << "]\n# Memory order: " << mem_order_text(facts) << "\n#\n";
  return file;
}

std::string fixed3(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.3f", value);
  return text;
}

void print_rule(int width) {
  std::printf("CUDECOMP: %s\n", std::string(static_cast<size_t>(width), '-').c_str());
}

// What a table row says about its configuration, for the console and the CSV files.
struct RowText {
  std::string label;           // the per-sample heading's parenthesis
  std::string console_fields;  // the table's configuration columns
  std::string csv_fields;      // the same as CSV
};

RowText transpose_row(const TransposeSampleKey& k) {
  RowText row;
  char text[256];
  std::snprintf(text, sizeof(text), "%-12s %-6s %-7s/%-7s %-7s/%-7s %-8s %-8s", transpose_name(k.op),
                dtype_letter(k.dtype), triple(k.input_halo).c_str(), triple(k.output_halo).c_str(),
                triple(k.input_padding).c_str(), triple(k.output_padding).c_str(), yes_no(k.in_place),
                yes_no(k.managed));
  row.console_fields = text;
  row.label = std::string(transpose_name(k.op)) + " (dtype=" + dtype_letter(k.dtype) +
              ", halo extents=" + triple(k.input_halo) + "/" + triple(k.output_halo) +
              ", padding=" + triple(k.input_padding) + "/" + triple(k.output_padding) +
              ", inplace=" + yes_no(k.in_place) + ", managed=" + yes_no(k.managed) + ")";
  row.csv_fields = std::string(transpose_name(k.op)) + "," + dtype_letter(k.dtype) + ",\"" + triple(k.input_halo) +
                   "\",\"" + triple(k.output_halo) + "\",\"" + triple(k.input_padding) + "\",\"" +
                   triple(k.output_padding) + "\"," + yes_no(k.in_place) + "," + yes_no(k.managed);
  return row;
}

RowText halo_row(const HaloSampleKey& k) {
  RowText row;
  char text[256];
  std::snprintf(text, sizeof(text), "%-12s %-6s %-5d %-12s %-12s %-12s %-8s", halo_name(k.axis), dtype_letter(k.dtype),
                k.dim, triple(k.halo).c_str(), triple(k.periods).c_str(), triple(k.padding).c_str(), yes_no(k.managed));
  row.console_fields = text;
  row.label = std::string(halo_name(k.axis)) + " (dtype=" + dtype_letter(k.dtype) + ", dim=" + std::to_string(k.dim) +
              ", halos=" + triple(k.halo) + ", periods=" + triple(k.periods) + ", padding=" + triple(k.padding) +
              ", managed=" + yes_no(k.managed) + ")";
  row.csv_fields = std::string(halo_name(k.axis)) + "," + dtype_letter(k.dtype) + "," + std::to_string(k.dim) + ",\"" +
                   triple(k.halo) + "\",\"" + triple(k.periods) + "\",\"" + triple(k.padding) + "\"," +
                   yes_no(k.managed);
  return row;
}

// One kind of operation (transposes or halo updates): its rows and how to print them.
struct Table {
  const char* title;       // "Transpose" or "Halo"
  const char* table_name;  // in the CSV file names
  const char* comm_name;   // "A2A" or "SR"
  std::string header;      // the configuration columns' header
  std::string csv_header;  // the configuration columns in CSV
  int rule_width;
  std::vector<RowText> rows;
  std::vector<ConfigTimes> times;
};

void print_table(const Table& table) {
  std::printf("CUDECOMP: %s Performance Data:\nCUDECOMP:\n", table.title);
  const std::string comm = table.comm_name;
  const std::string bw = comm + " BW";
  std::printf("CUDECOMP: %s %-8s %-9s %-9s %-9s %-9s\n", table.header.c_str(), "samples", "total", comm.c_str(),
              "local", bw.c_str());
  std::printf("CUDECOMP: %-*s %-8s %-9s %-9s %-9s %-9s\n", static_cast<int>(table.header.size()), "", "", "[ms]",
              "[ms]", "[ms]", "[GB/s]");
  print_rule(table.rule_width);
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const ConfigTimes& t = table.times[i];
    std::printf("CUDECOMP: %s %-8d %-9.3f %-9.3f %-9.3f %-9.3f\n", table.rows[i].console_fields.c_str(),
                static_cast<int>(t.total.size()), t.mean_total, t.mean_comm, t.mean_local, t.mean_bandwidth);
  }
}

void write_table_csv(const Table& table, const std::string& dir, const GridFacts& facts) {
  const auto path = report_file(dir, std::string(table.table_name) + "-aggregated", facts);
  std::ofstream file = open_csv(path, facts);
  if (!file.is_open()) return;
  file << table.csv_header << ",samples,total_ms," << table.comm_name << "_ms,local_ms," << table.comm_name
       << "_BW_GBps\n";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const ConfigTimes& t = table.times[i];
    file << table.rows[i].csv_fields << "," << t.total.size() << "," << fixed3(t.mean_total) << ","
         << fixed3(t.mean_comm) << "," << fixed3(t.mean_local) << "," << fixed3(t.mean_bandwidth) << "\n";
  }
  std::printf("CUDECOMP:\nCUDECOMP: Wrote %s performance data to %s\n", table.table_name, path.string().c_str());
}

// Per-sample lines (detail 1: rank 0's; detail 2: every rank's, gathered). Collective at
// detail 2.
void print_samples(const Table& table, int detail, MPI_Comm comm, int rank, int ranks, const std::string& dir,
                   const GridFacts& facts) {
  std::ofstream csv;
  std::filesystem::path path;
  if (rank == 0 && !dir.empty() && !table.rows.empty()) {
    path = report_file(dir, std::string(table.table_name) + "-samples", facts);
    csv = open_csv(path, facts);
    if (csv.is_open()) {
      csv << table.csv_header << ",rank,sample,total_ms," << table.comm_name << "_ms,local_ms," << table.comm_name
          << "_BW_GBps\n";
    }
  }
  const std::string comm_label = table.comm_name;
  const std::string bw_label = comm_label + " BW";
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const ConfigTimes& mine = table.times[i];
    std::array<std::vector<double>, 4> series = {mine.total, mine.comm, mine.local, mine.bandwidth};
    std::vector<int> owners(mine.total.size(), 0);
    if (detail == 2) {
      const std::vector<int> counts = gather_counts(static_cast<int>(mine.total.size()), comm, rank, ranks);
      for (auto& s : series) s = gather_series(s, counts, comm);
      owners.clear();
      for (int r = 0; r < static_cast<int>(counts.size()); ++r) owners.insert(owners.end(), counts[r], r);
    }
    if (rank != 0) continue;
    std::printf("CUDECOMP: %s samples:\n", table.rows[i].label.c_str());
    std::printf("CUDECOMP: %-6s %-12s %-9s %-9s %-9s %-9s\n", "rank", "sample", "total", comm_label.c_str(), "local",
                bw_label.c_str());
    std::printf("CUDECOMP: %-6s %-12s %-9s %-9s %-9s %-9s\n", "", "", "[ms]", "[ms]", "[ms]", "[GB/s]");
    int sample = 0;
    for (size_t j = 0; j < series[0].size(); ++j) {
      sample = (j > 0 && owners[j] == owners[j - 1]) ? sample + 1 : 0;
      std::printf("CUDECOMP: %-6d %-12d %-9.3f %-9.3f %-9.3f %-9.3f\n", owners[j], sample, series[0][j], series[1][j],
                  series[2][j], series[3][j]);
      if (csv.is_open()) {
        csv << table.rows[i].csv_fields << "," << owners[j] << "," << sample << "," << fixed3(series[0][j]) << ","
            << fixed3(series[1][j]) << "," << fixed3(series[2][j]) << "," << fixed3(series[3][j]) << "\n";
      }
    }
    std::printf("CUDECOMP:\n");
  }
  if (csv.is_open()) {
    csv.close();
    std::printf("CUDECOMP:\nCUDECOMP: Wrote per-sample %s data to %s\n", table.table_name, path.string().c_str());
  }
}

// The table's rows, one per configuration that has samples on some rank (collective: every
// configuration's means are reduced over the ranks, in the maps' common order).
template <typename Key>
void fill_table(Table& table, const std::map<Key, SampleRing>& rings, RowText (*row)(const Key&), MPI_Comm comm,
                int ranks) {
  for (const auto& [key, ring] : rings) {
    ConfigTimes times = collect(ring);
    average_over_ranks(times, comm, ranks);
    if (!times.any_rank_has_samples) continue;
    table.rows.push_back(row(key));
    table.times.push_back(std::move(times));
  }
}

template <typename Key>
bool same_key_count_everywhere(const std::map<Key, SampleRing>& map, MPI_Comm comm) {
  int counts[2] = {static_cast<int>(map.size()), -static_cast<int>(map.size())};
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  return counts[0] == -counts[1];
}

}  // namespace

PerformanceReportSettings PerformanceReportSettings::from_environment(int rank) {
  PerformanceReportSettings settings;
  settings.enabled = flag_setting("CUDECOMP_ENABLE_PERFORMANCE_REPORT");
  settings.detail = integer_setting("CUDECOMP_PERFORMANCE_REPORT_DETAIL", settings.detail, 0, 2, rank);
  settings.samples = integer_setting("CUDECOMP_PERFORMANCE_REPORT_SAMPLES", settings.samples, 1, 1000000, rank);
  settings.warmup_samples =
      integer_setting("CUDECOMP_PERFORMANCE_REPORT_WARMUP_SAMPLES", settings.warmup_samples, 0, 1000000, rank);
  if (const char* dir = std::getenv("CUDECOMP_PERFORMANCE_REPORT_WRITE_DIR")) settings.write_dir = dir;
  return settings;
}

bool TransposeSampleKey::operator<(const TransposeSampleKey& other) const {
  // Upstream's table order: operation, then data type S, D, C, Z, then the rest.
  return std::make_tuple(op, dtype_rank(dtype), input_halo, output_halo, input_padding, output_padding, in_place,
                         managed) < std::make_tuple(other.op, dtype_rank(other.dtype), other.input_halo,
                                                    other.output_halo, other.input_padding, other.output_padding,
                                                    other.in_place, other.managed);
}

bool HaloSampleKey::operator<(const HaloSampleKey& other) const {
  return std::make_tuple(axis, dim, dtype_rank(dtype), halo, periods, padding, managed) <
         std::make_tuple(other.axis, other.dim, dtype_rank(other.dtype), other.halo, other.periods, other.padding,
                         other.managed);
}

void SampleRing::add(const PerformanceSample& sample, int capacity, int warmup) {
  if (calls_++ < warmup) return;
  if (samples_.size() < static_cast<size_t>(capacity)) {
    samples_.push_back(sample);
    return;
  }
  samples_[next_] = sample;
  next_ = (next_ + 1) % samples_.size();
}

std::vector<PerformanceSample> SampleRing::in_order() const {
  std::vector<PerformanceSample> out(samples_.begin() + static_cast<std::ptrdiff_t>(next_), samples_.end());
  out.insert(out.end(), samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(next_));
  return out;
}

void PerformanceRecorder::add(const TransposeSampleKey& key, const PerformanceSample& sample,
                              const PerformanceReportSettings& settings) {
  transposes_[key].add(sample, settings.samples, settings.warmup_samples);
}

void PerformanceRecorder::add(const HaloSampleKey& key, const PerformanceSample& sample,
                              const PerformanceReportSettings& settings) {
  halos_[key].add(sample, settings.samples, settings.warmup_samples);
}

void PerformanceRecorder::report(const GridDesc& grid, const PerformanceReportSettings& settings) const {
  const MPI_Comm comm = grid.handle().comm();
  const int rank = grid.handle().rank();
  const int ranks = grid.handle().size();
  const bool transposes_agree = same_key_count_everywhere(transposes_, comm);
  const bool halos_agree = same_key_count_everywhere(halos_, comm);
  const GridFacts facts = grid_facts(grid);
  if (!transposes_agree || !halos_agree) {
    if (rank == 0) {
      std::printf(
          "CUDECOMP:WARN: the ranks ran different transpose or halo configurations on this grid; "
          "no performance report\n");
      std::fflush(stdout);
    }
    return;
  }
  Table transposes{
      "Transpose",
      "transpose",
      "A2A",
      "",
      "operation,dtype,input_halo_extents,output_halo_extents,input_padding,output_padding,inplace,managed",
      120,
      {},
      {}};
  char header[256];
  std::snprintf(header, sizeof(header), "%-12s %-6s %-15s %-15s %-8s %-8s", "operation", "dtype", "halo extents",
                "padding", "inplace", "managed");
  transposes.header = header;
  fill_table(transposes, transposes_, transpose_row, comm, ranks);
  Table halos{"Halo", "halo", "SR", "", "operation,dtype,dim,halo_extent,periods,padding,managed", 125, {}, {}};
  std::snprintf(header, sizeof(header), "%-12s %-6s %-5s %-12s %-12s %-12s %-8s", "operation", "dtype", "dim",
                "halo extent", "periods", "padding", "managed");
  halos.header = header;
  fill_table(halos, halos_, halo_row, comm, ranks);
  if (rank == 0) {
    std::printf("CUDECOMP:\nCUDECOMP: ===== Performance Summary =====\nCUDECOMP: Grid Configuration:\n");
    std::printf("CUDECOMP:\tTranspose backend: %s\n", facts.transpose_backend.c_str());
    std::printf("CUDECOMP:\tHalo backend: %s\n", facts.halo_backend.c_str());
    std::printf("CUDECOMP:\tProcess grid: [%d, %d]\n", facts.pdims[0], facts.pdims[1]);
    std::printf("CUDECOMP:\tGlobal dimensions: [%lld, %lld, %lld]\n", static_cast<long long>(facts.gdims[0]),
                static_cast<long long>(facts.gdims[1]), static_cast<long long>(facts.gdims[2]));
    std::printf("CUDECOMP:\tMemory order: %s\nCUDECOMP:\n", mem_order_text(facts).c_str());
    if (transposes.rows.empty() && halos.rows.empty()) {
      std::printf("CUDECOMP: No performance data collected\nCUDECOMP: ================================\nCUDECOMP:\n");
      std::fflush(stdout);
      return;
    }
    if (!transposes.rows.empty()) {
      print_table(transposes);
      if (!settings.write_dir.empty()) write_table_csv(transposes, settings.write_dir, facts);
    }
    if (!halos.rows.empty()) {
      std::printf("CUDECOMP:\n");
      print_table(halos);
      if (!settings.write_dir.empty()) write_table_csv(halos, settings.write_dir, facts);
    }
  } else if (transposes.rows.empty() && halos.rows.empty()) {
    return;
  }
  if (settings.detail > 0) {
    if (rank == 0) std::printf("CUDECOMP:\nCUDECOMP: Per-Sample Details:\nCUDECOMP:\n");
    print_samples(transposes, settings.detail, comm, rank, ranks, settings.write_dir, facts);
    print_samples(halos, settings.detail, comm, rank, ranks, settings.write_dir, facts);
  }
  if (rank == 0) std::printf("CUDECOMP: ================================\nCUDECOMP:\n");
  std::fflush(stdout);
}

}  // namespace wavestack::decomp
