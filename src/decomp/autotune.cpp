#include "decomp/autotune.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "decomp/autotune_candidates.hpp"
#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"

namespace wavestack::decomp {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? value : nullptr;
}

bool is_even(const std::array<int, 2>& p, const cudecompGridDescConfig_t& config) {
  const auto dist = [&](int dim) { return config.gdims_dist[dim] == 0 ? config.gdims[dim] : config.gdims_dist[dim]; };
  // X is split by rows, Y by rows (X-pencil) and columns (Z-pencil), Z by columns.
  return dist(0) % p[0] == 0 && dist(1) % p[0] == 0 && dist(1) % p[1] == 0 && dist(2) % p[1] == 0;
}

std::vector<cudecompTransposeCommBackend_t> transpose_candidates(const cudecompGridDescConfig_t& config,
                                                                 const cudecompGridDescAutotuneOptions_t& options,
                                                                 const TuneTarget& target) {
  return transpose_backend_candidates(config, options, target, env("CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS"));
}

std::vector<cudecompHaloCommBackend_t> halo_candidates(const cudecompGridDescConfig_t& config,
                                                       const cudecompGridDescAutotuneOptions_t& options,
                                                       const TuneTarget& target) {
  return halo_backend_candidates(config, options, target, env("CUDECOMP_AUTOTUNE_HALO_BACKENDS"));
}

// Inclusive bounds on Prows or Pcols from CUDECOMP_AUTOTUNE_P_ROW_RANGE / _P_COL_RANGE:
// "MIN:MAX", "MIN," "MIN,MAX", a single value "N" (exactly N), or an open side ("2:", ":4").
std::array<int, 2> p_range(const char* variable) {
  std::array<int, 2> range{1, std::numeric_limits<int>::max()};
  const char* value = env(variable);
  if (value == nullptr) return range;
  std::string text = value;
  const auto separator = text.find_first_of(":,");
  const auto parse = [&](const std::string& part, int fallback) {
    if (part.find_first_not_of(" \t") == std::string::npos) return fallback;
    size_t used = 0;
    int number = 0;
    try {
      number = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || part.find_first_not_of(" \t", used) != std::string::npos || number < 1) {
      invalid_argument(variable,
                       "expected 'MIN:MAX' with positive integers (either side may be omitted), got '" + text + "'");
    }
    return number;
  };
  if (separator == std::string::npos) {
    range[0] = range[1] = parse(text, 0);
    if (range[0] == 0) invalid_argument(variable, "expected 'MIN:MAX', got an empty value");
  } else {
    range[0] = parse(text.substr(0, separator), 1);
    range[1] = parse(text.substr(separator + 1), std::numeric_limits<int>::max());
  }
  if (range[0] > range[1]) invalid_argument(variable, "MIN exceeds MAX in '" + text + "'");
  return range;
}

Int3 to_int3(const int32_t values[3]) {
  return {values[0], values[1], values[2]};
}

// A trial buffer: host memory, or device memory when the trials run on the device (left
// uninitialized there, as only the time of moving it matters).
class TrialBuffer {
 public:
  TrialBuffer(size_t bytes, bool on_device) {
    if (on_device) {
      device_ = allocate_device(bytes);
    } else {
      host_.resize(bytes);
    }
  }
  std::byte* data() { return device_ ? static_cast<std::byte*>(device_.get()) : host_.data(); }

 private:
  std::vector<std::byte> host_;
  std::shared_ptr<void> device_;
};

// Measures one candidate. Returns the mean weighted trial time in seconds (max over ranks), or
// +inf when skipped by skip_threshold. On the device, every operation runs on the default
// stream (as upstream's trials do) and is timed there with CUDA events.
class Timer {
 public:
  Timer(const Handle& handle, const cudecompGridDescAutotuneOptions_t& options, const TuneTarget& target,
        std::ostringstream& log)
      : handle_(handle), options_(options), on_device_(target.on_device()), log_(log) {}

  double transpose_cycle(const GridDesc& grid, double best) {
    const size_t elem = static_cast<size_t>(data_type_size(options_.dtype));
    int64_t largest = 0;
    std::array<TransposeArgs, 4> ops;
    for (int i = 0; i < 4; ++i) {
      const auto op = static_cast<TransposeOp>(i);
      TransposeArgs& a = ops[i];
      a.dtype = options_.dtype;
      a.input_halo = to_int3(options_.transpose_input_halo_extents[i]);
      a.output_halo = to_int3(options_.transpose_output_halo_extents[i]);
      a.input_padding = to_int3(options_.transpose_input_padding[i]);
      a.output_padding = to_int3(options_.transpose_output_padding[i]);
      largest = std::max({largest, grid.layout(input_axis(op), a.input_halo, a.input_padding).size,
                          grid.layout(output_axis(op), a.output_halo, a.output_padding).size});
    }
    const size_t data_bytes = static_cast<size_t>(largest) * elem + elem;
    TrialBuffer a_buffer(data_bytes, on_device_);
    TrialBuffer b_buffer(data_bytes, on_device_);
    TrialBuffer work(static_cast<size_t>(grid.transpose_workspace_size()) * elem + elem, on_device_);
    const auto mover = mover_for(a_buffer.data());
    std::byte* current = a_buffer.data();
    std::byte* other = b_buffer.data();
    for (int i = 0; i < 4; ++i) {
      ops[i].mover = mover.get();
      ops[i].work = work.data();
      ops[i].input = current;
      ops[i].output = options_.transpose_use_inplace_buffers[i] ? current : other;
      if (!options_.transpose_use_inplace_buffers[i]) std::swap(current, other);
    }
    auto trial = [&](std::array<double, 4>& times) {
      for (int i = 0; i < 4; ++i) {
        times[i] = timed([&] { grid.transpose(static_cast<TransposeOp>(i), ops[i]); });
      }
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, times.data(), 4, MPI_DOUBLE, MPI_MAX, handle_.comm()), "MPI_Allreduce");
      double total = 0;
      for (int i = 0; i < 4; ++i) total += options_.transpose_op_weights[i] * times[i];
      return total;
    };
    return measure(trial, best);
  }

  double halo_cycle(const GridDesc& grid, double best) {
    const size_t elem = static_cast<size_t>(data_type_size(options_.dtype));
    HaloArgs args;
    args.axis = options_.halo_axis;
    args.dtype = options_.dtype;
    args.halo = to_int3(options_.halo_extents);
    args.padding = to_int3(options_.halo_padding);
    args.periods = {options_.halo_periods[0], options_.halo_periods[1], options_.halo_periods[2]};
    TrialBuffer data(static_cast<size_t>(grid.layout(args.axis, args.halo, args.padding).size) * elem + elem,
                     on_device_);
    TrialBuffer work(static_cast<size_t>(grid.halo_workspace_size(args.axis, args.halo)) * elem + elem, on_device_);
    const auto mover = mover_for(data.data());
    args.data = data.data();
    args.work = work.data();
    args.mover = mover.get();
    auto trial = [&](std::array<double, 4>& times) {
      for (int dim = 0; dim < 3; ++dim) {
        args.dim = dim;
        times[dim] = timed([&] { grid.update_halos(args); });
      }
      times[3] = 0;
      check_mpi(MPI_Allreduce(MPI_IN_PLACE, times.data(), 4, MPI_DOUBLE, MPI_MAX, handle_.comm()), "MPI_Allreduce");
      return times[0] + times[1] + times[2];
    };
    return measure(trial, best);
  }

 private:
  static constexpr cudaStream_t kStream = nullptr;  // the default stream

  // Null (host memory) unless on the device; never asks CUDA about host buffers, so a CUDA
  // build without a device makes no CUDA call here.
  std::unique_ptr<BlockMover> mover_for(const std::byte* buffer) const {
    return on_device_ ? device_mover_for(buffer, kStream) : nullptr;
  }

  // Seconds of one operation on this rank, started together on all ranks.
  template <typename Operation>
  double timed(const Operation& operation) {
    MPI_Barrier(handle_.comm());
    if (on_device_) return time_on_stream(kStream, operation);
    const double start = MPI_Wtime();
    operation();
    return MPI_Wtime() - start;
  }

  template <typename Trial>
  double measure(Trial& trial, double best) {
    std::array<double, 4> times{};
    for (int i = 0; i < options_.n_warmup_trials; ++i) trial(times);
    double sum = 0, low = std::numeric_limits<double>::infinity(), high = 0;
    for (int i = 0; i < options_.n_trials; ++i) {
      const double t = trial(times);
      sum += t;
      low = std::min(low, t);
      high = std::max(high, t);
      if (i == 0 && options_.skip_threshold > 0 && options_.skip_threshold * t > best) {
        log_ << "CUDECOMP:       skipped (first trial " << t * 1e3 << " ms)\n";
        return std::numeric_limits<double>::infinity();
      }
    }
    const double mean = sum / options_.n_trials;
    log_ << "CUDECOMP:       time min/max/avg [ms]: " << low * 1e3 << "/" << high * 1e3 << "/" << mean * 1e3 << "\n";
    return mean;
  }

  const Handle& handle_;
  const cudecompGridDescAutotuneOptions_t& options_;
  bool on_device_ = false;
  std::ostringstream& log_;
};

bool halo_fits(const GridDesc& grid, const cudecompGridDescAutotuneOptions_t& options) {
  // Geometry only (the same answer on every rank): can every dim be updated on this grid?
  std::byte dummy[16];
  HaloArgs args;
  args.axis = options.halo_axis;
  args.dtype = options.dtype;
  args.halo = to_int3(options.halo_extents);
  args.padding = to_int3(options.halo_padding);
  args.periods = {options.halo_periods[0], options.halo_periods[1], options.halo_periods[2]};
  args.data = dummy;
  args.work = dummy;
  try {
    for (int dim = 0; dim < 3; ++dim) {
      args.dim = dim;
      grid.check_halo(args);
    }
  } catch (const DecompError&) {
    return false;
  }
  return true;
}

}  // namespace

std::vector<std::array<int, 2>> pdims_candidates(int nranks, const cudecompGridDescConfig_t& config,
                                                 bool allow_uneven) {
  std::vector<std::array<int, 2>> all;
  for (int rows = 1; rows <= nranks; ++rows) {
    if (nranks % rows == 0) all.push_back({rows, nranks / rows});
  }
  if (const char* restrict_to = env("CUDECOMP_AUTOTUNE_PDIMS")) {
    std::vector<std::array<int, 2>> chosen;
    for (const auto& item : split_env_list(restrict_to)) {
      int rows = 0, cols = 0;
      char extra = 0;
      if (std::sscanf(item.c_str(), "%dx%d%c", &rows, &cols, &extra) != 2 || rows <= 0 || cols <= 0) {
        invalid_argument("CUDECOMP_AUTOTUNE_PDIMS", "expected a list like '2x2,1x4', got '" + item + "'");
      }
      if (rows * cols == nranks) chosen.push_back({rows, cols});
    }
    if (chosen.empty()) {
      invalid_argument("CUDECOMP_AUTOTUNE_PDIMS", "no entry multiplies to " + std::to_string(nranks) + " ranks");
    }
    all = chosen;
  }
  const auto rows = p_range("CUDECOMP_AUTOTUNE_P_ROW_RANGE");
  const auto cols = p_range("CUDECOMP_AUTOTUNE_P_COL_RANGE");
  std::vector<std::array<int, 2>> in_range;
  for (const auto& p : all) {
    if (p[0] >= rows[0] && p[0] <= rows[1] && p[1] >= cols[0] && p[1] <= cols[1]) in_range.push_back(p);
  }
  if (in_range.empty()) {
    invalid_argument("CUDECOMP_AUTOTUNE_P_ROW_RANGE/CUDECOMP_AUTOTUNE_P_COL_RANGE",
                     "no candidate process grid of " + std::to_string(nranks) + " ranks lies in the ranges");
  }
  all = in_range;
  if (!allow_uneven) {
    std::vector<std::array<int, 2>> even;
    for (const auto& p : all) {
      if (is_even(p, config)) even.push_back(p);
    }
    if (even.empty()) {
      not_supported("options.allow_uneven_decompositions is false but no process grid of " + std::to_string(nranks) +
                    " ranks divides gdims evenly");
    }
    all = even;
  }
  return all;
}

AutotuneChoice autotune(const Handle& handle, const cudecompGridDescConfig_t& config,
                        const cudecompGridDescAutotuneOptions_t& options) {
  const bool tune_pdims = config.pdims[0] == 0 && config.pdims[1] == 0;
  const bool transpose_mode = options.grid_mode == CUDECOMP_AUTOTUNE_GRID_TRANSPOSE;
  std::vector<std::array<int, 2>> grids =
      tune_pdims ? pdims_candidates(handle.size(), config, options.allow_uneven_decompositions)
                 : std::vector<std::array<int, 2>>{{config.pdims[0], config.pdims[1]}};
  const TuneTarget target{device_backend_built(), device_available()};
  const auto transposes = transpose_candidates(config, options, target);
  const auto halos = halo_candidates(config, options, target);

  std::ostringstream log;
  log.precision(4);
  // Only device tuning adds a line: the host log stays as the CPU-only build has always printed it.
  if (target.on_device()) log << "CUDECOMP: Autotuning on device buffers (times from CUDA events)\n";
  Timer timer(handle, options, target, log);
  AutotuneChoice choice;
  choice.pdims = grids.front();
  choice.transpose_backend = config.transpose_comm_backend;
  choice.halo_backend = config.halo_comm_backend;

  const auto make_grid = [&](const std::array<int, 2>& p, cudecompTransposeCommBackend_t t,
                             cudecompHaloCommBackend_t h) {
    cudecompGridDescConfig_t candidate = config;
    candidate.pdims[0] = p[0];
    candidate.pdims[1] = p[1];
    candidate.transpose_comm_backend = t;
    candidate.halo_comm_backend = h;
    return std::make_unique<GridDesc>(handle, candidate);
  };

  // Phase 1: the process grid together with the backend of the grid mode's communication.
  const bool phase1 =
      tune_pdims || (transpose_mode ? options.autotune_transpose_backend : options.autotune_halo_backend);
  if (phase1) {
    double best = std::numeric_limits<double>::infinity();
    log << "CUDECOMP: Running " << (transpose_mode ? "transpose" : "halo") << " autotuning...\n";
    for (const auto& p : grids) {
      const size_t backends = transpose_mode ? transposes.size() : halos.size();
      for (size_t b = 0; b < backends; ++b) {
        const auto t = transpose_mode ? transposes[b] : config.transpose_comm_backend;
        const auto h = transpose_mode ? config.halo_comm_backend : halos[b];
        auto grid = make_grid(p, t, h);
        log << "CUDECOMP:       grid: " << p[0] << " x " << p[1]
            << ", backend: " << (transpose_mode ? transpose_backend_name(t) : halo_backend_name(h)) << "\n";
        if (!transpose_mode && !halo_fits(*grid, options)) {
          log << "CUDECOMP:       skipped (halo extents exceed the pencils of this grid)\n";
          continue;
        }
        const double time = transpose_mode ? timer.transpose_cycle(*grid, best) : timer.halo_cycle(*grid, best);
        if (time < best) {
          best = time;
          choice.pdims = p;
          choice.transpose_backend = t;
          choice.halo_backend = h;
        }
      }
    }
    if (!std::isfinite(best)) not_supported("autotuning found no process grid that can run the requested halos");
  }
  // Phase 2: the other communication's backend on the chosen grid.
  const bool phase2 = transpose_mode ? options.autotune_halo_backend : options.autotune_transpose_backend;
  if (phase2) {
    double best = std::numeric_limits<double>::infinity();
    log << "CUDECOMP: Running " << (transpose_mode ? "halo" : "transpose") << " backend autotuning...\n";
    const size_t backends = transpose_mode ? halos.size() : transposes.size();
    for (size_t b = 0; b < backends; ++b) {
      const auto t = transpose_mode ? choice.transpose_backend : transposes[b];
      const auto h = transpose_mode ? halos[b] : choice.halo_backend;
      auto grid = make_grid(choice.pdims, t, h);
      log << "CUDECOMP:       grid: " << choice.pdims[0] << " x " << choice.pdims[1]
          << ", backend: " << (transpose_mode ? halo_backend_name(h) : transpose_backend_name(t)) << "\n";
      if (transpose_mode && !halo_fits(*grid, options)) {
        log << "CUDECOMP:       skipped (halo extents exceed the pencils of this grid)\n";
        break;
      }
      const double time = transpose_mode ? timer.halo_cycle(*grid, best) : timer.transpose_cycle(*grid, best);
      if (time < best) {
        best = time;
        choice.transpose_backend = t;
        choice.halo_backend = h;
      }
    }
  }
  log << "CUDECOMP: SELECTED: grid: " << choice.pdims[0] << " x " << choice.pdims[1]
      << ", transpose backend: " << transpose_backend_name(choice.transpose_backend)
      << ", halo backend: " << halo_backend_name(choice.halo_backend) << "\n";
  choice.report = log.str();
  if (handle.rank() == 0) {
    std::fputs(choice.report.c_str(), stdout);
    std::fflush(stdout);
  }
  return choice;
}

}  // namespace wavestack::decomp
