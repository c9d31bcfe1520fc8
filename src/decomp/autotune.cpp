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
#include "decomp/autotune_report.hpp"
#include "decomp/autotune_timing.hpp"
#include "decomp/autotune_trials.hpp"
#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/mpi_device_support.hpp"

namespace wavestack::decomp {
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return (value != nullptr && *value != '\0') ? value : nullptr;
}

// The extent the grid is distributed over along dim: gdims_dist where set, gdims otherwise.
int32_t distributed_extent(const cudecompGridDescConfig_t& config, int dim) {
  return config.gdims_dist[dim] == 0 ? config.gdims[dim] : config.gdims_dist[dim];
}

bool is_even(const std::array<int, 2>& p, const cudecompGridDescConfig_t& config) {
  const auto dist = [&](int dim) { return distributed_extent(config, dim); };
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
  // Pcols ascending, as upstream tries them: the first of equally fast grids is kept, and the
  // report lists them in upstream's order.
  for (int cols = 1; cols <= nranks; ++cols) {
    if (nranks % cols == 0) all.push_back({nranks / cols, cols});
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
  std::vector<std::array<int, 2>> filled;
  for (const auto& p : all) {
    // Grids that leave a pencil empty are not tried, as upstream's autotuner skips them (and the
    // C API refuses operations on them).
    const Int3 dist{distributed_extent(config, 0), distributed_extent(config, 1), distributed_extent(config, 2)};
    if (!leaves_a_pencil_empty(dist, p)) filled.push_back(p);
  }
  if (filled.empty()) {
    not_supported("no process grid of " + std::to_string(nranks) +
                  " ranks gives every rank a non-empty pencil of gdims; give pdims explicitly to allow empty pencils");
  }
  all = filled;
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
  // The handle's collective answer, not this rank's: every rank must time the same candidates
  // on the same kind of buffer, or the trials' collectives would not match.
  const TuneTarget target{device_backend_built(), handle.device_on_every_rank(), handle.device_shared_by_ranks(),
                          handle.size() == 1 || this_mpi_takes_device_buffers()};
  const auto transposes = transpose_candidates(config, options, target);
  const auto halos = halo_candidates(config, options, target);

  std::ostringstream log;
  // Only device tuning adds a line (ours, not upstream's, whose trials always run on the device).
  if (target.on_device()) log << "CUDECOMP: Autotuning on device buffers (times from CUDA events)\n";
  if (target.on_device() && !target.mpi_device_buffers) {
    log << "CUDECOMP: MPI is not CUDA-aware: MPI backends are not autotuned on device buffers\n";
  }
  if (target.on_device() && target.shared_device) {
    log << "CUDECOMP: Ranks share a GPU: NCCL backends are not autotuned (NCCL needs a GPU per rank)\n";
  }
  const TrialRunner trials(handle, options, target.on_device());
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
  // One candidate: its trials, its report lines, and whether it beats `best` (seconds).
  const auto try_candidate = [&](const std::array<int, 2>& p, cudecompTransposeCommBackend_t t,
                                 cudecompHaloCommBackend_t h, bool time_transposes, double& best) {
    auto grid = make_grid(p, t, h);
    double avg = std::numeric_limits<double>::infinity();
    if (time_transposes) {
      const TransposeTrials result = trials.transposes(*grid, best);
      log << transpose_candidate_lines(p, t, result, options.transpose_op_weights);
      if (!result.skipped) avg = result.weighted.avg;
    } else {
      if (!halo_fits(*grid, options)) {
        log << "CUDECOMP:       grid: " << p[0] << " x " << p[1] << ", halo backend: " << halo_backend_display_name(h)
            << "\nCUDECOMP:       skipped (halo extents exceed the pencils of this grid)\n";
        return false;
      }
      const HaloTrials result = trials.halos(*grid, best);
      log << halo_candidate_lines(p, h, result);
      if (!result.skipped) avg = result.total.avg;
    }
    if (!faster_than_best(avg, best)) return false;
    best = avg;
    return true;
  };
  double phase_start = 0;
  const auto phase_header = [&](bool phase_transposes) {
    log << "CUDECOMP: Running " << (phase_transposes ? "transpose" : "halo") << " autotuning...\n";
    if (!phase_transposes) {
      static constexpr const char* kAxisNames[3] = {"x", "y", "z"};
      log << "CUDECOMP: Autotune halo axis: " << kAxisNames[options.halo_axis] << "\n";
    }
    check_mpi(MPI_Barrier(handle.comm()), "MPI_Barrier");
    phase_start = MPI_Wtime();
  };
  const auto phase_end = [&](bool phase_transposes, double best) {
    if (std::isfinite(best)) {
      log << (phase_transposes ? transpose_selected_line(choice.pdims, choice.transpose_backend, best)
                               : halo_selected_line(choice.pdims, choice.halo_backend, best));
    }
    check_mpi(MPI_Barrier(handle.comm()), "MPI_Barrier");
    log << "CUDECOMP: " << (phase_transposes ? "transpose" : "halo")
        << " autotuning time [s]: " << autotune_seconds_text(MPI_Wtime() - phase_start) << "\n";
  };

  // Phase 1: the process grid together with the backend of the grid mode's communication.
  const bool phase1 =
      tune_pdims || (transpose_mode ? options.autotune_transpose_backend : options.autotune_halo_backend);
  if (phase1) {
    double best = std::numeric_limits<double>::infinity();
    phase_header(transpose_mode);
    for (const auto& p : grids) {
      const size_t backends = transpose_mode ? transposes.size() : halos.size();
      for (size_t b = 0; b < backends; ++b) {
        const auto t = transpose_mode ? transposes[b] : config.transpose_comm_backend;
        const auto h = transpose_mode ? config.halo_comm_backend : halos[b];
        if (try_candidate(p, t, h, transpose_mode, best)) {
          choice.pdims = p;
          choice.transpose_backend = t;
          choice.halo_backend = h;
        }
      }
    }
    if (!std::isfinite(best)) not_supported("autotuning found no process grid that can run the requested halos");
    phase_end(transpose_mode, best);
  }
  // Phase 2: the other communication's backend on the chosen grid.
  const bool phase2 = transpose_mode ? options.autotune_halo_backend : options.autotune_transpose_backend;
  if (phase2) {
    double best = std::numeric_limits<double>::infinity();
    phase_header(!transpose_mode);
    // Whether the halos fit depends on the grid alone: one check for all halo backends.
    if (transpose_mode &&
        !halo_fits(*make_grid(choice.pdims, choice.transpose_backend, choice.halo_backend), options)) {
      log << "CUDECOMP:       skipped (halo extents exceed the pencils of this grid)\n";
    } else {
      const size_t backends = transpose_mode ? halos.size() : transposes.size();
      for (size_t b = 0; b < backends; ++b) {
        const auto t = transpose_mode ? choice.transpose_backend : transposes[b];
        const auto h = transpose_mode ? halos[b] : choice.halo_backend;
        if (try_candidate(choice.pdims, t, h, !transpose_mode, best)) {
          choice.transpose_backend = t;
          choice.halo_backend = h;
        }
      }
    }
    phase_end(!transpose_mode, best);
  }
  choice.report = log.str();
  if (handle.rank() == 0) {
    std::fputs(choice.report.c_str(), stdout);
    std::fflush(stdout);
  }
  return choice;
}

}  // namespace wavestack::decomp
