#include "decomp/autotune_trials.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "decomp/block_mover.hpp"
#include "decomp/config.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

// Every operation on the device runs on the default stream, as upstream's trials do.
constexpr cudaStream_t kStream = nullptr;

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

// Null (host memory) unless on the device; never asks CUDA about host buffers, so a CUDA build
// without a device makes no CUDA call here.
std::unique_ptr<BlockMover> mover_for(const std::byte* buffer, bool on_device) {
  return on_device ? device_mover_for(buffer, kStream) : nullptr;
}

}  // namespace

bool TrialRunner::skip(double first_trial_seconds, double best_avg) const {
  if (options_.skip_threshold <= 0) return false;  // never skips: spare the gather
  const std::vector<double> firsts = gather_from_all_ranks(handle_.comm(), {first_trial_seconds});
  const double first_avg = series_stats(firsts, handle_.size(), 1, 0).avg;
  return skip_after_first_trial(options_.skip_threshold, first_avg, best_avg);
}

TransposeTrials TrialRunner::transposes(const GridDesc& grid, double best_avg) const {
  const size_t elem = static_cast<size_t>(data_type_size(options_.dtype));
  int64_t largest = 0;
  std::array<TransposeArgs, 4> args;
  for (int i = 0; i < 4; ++i) {
    const auto op = static_cast<TransposeOp>(i);
    TransposeArgs& a = args[i];
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
  const auto mover = mover_for(a_buffer.data(), on_device_);
  std::byte* current = a_buffer.data();
  std::byte* other = b_buffer.data();
  // The transposes that count (weight 0: not run, as upstream), each reading the previous one's
  // output buffer.
  std::vector<int> run;
  std::vector<std::function<void()>> operations;
  for (int i = 0; i < 4; ++i) {
    args[i].mover = mover.get();
    args[i].work = work.data();
    args[i].input = current;
    args[i].output = options_.transpose_use_inplace_buffers[i] ? current : other;
    if (!options_.transpose_use_inplace_buffers[i]) std::swap(current, other);
    if (options_.transpose_op_weights[i] == 0.0) continue;
    run.push_back(i);
    operations.emplace_back([&grid, &args, i] { grid.transpose(static_cast<TransposeOp>(i), args[i]); });
  }

  for (int w = 0; w < options_.n_warmup_trials; ++w) {
    for (const auto& operation : operations) operation();
  }
  if (on_device_) wait_for_stream(kStream);

  // This rank's times, series after series: total, weighted, then one series per transpose.
  const auto n = static_cast<size_t>(options_.n_trials);
  constexpr int kSeries = 6;
  std::vector<double> local(kSeries * n, 0.0);
  TransposeTrials result;
  for (size_t trial = 0; trial < n; ++trial) {
    check_mpi(MPI_Barrier(handle_.comm()), "MPI_Barrier");
    std::vector<double> seconds;
    if (on_device_) {
      seconds = time_each_on_stream(kStream, operations);
    } else {
      for (const auto& operation : operations) {
        const double start = MPI_Wtime();
        operation();
        seconds.push_back(MPI_Wtime() - start);
      }
    }
    for (size_t k = 0; k < run.size(); ++k) {
      const int op = run[k];
      local[(2 + op) * n + trial] = seconds[k];
      local[trial] += seconds[k];
      local[n + trial] += options_.transpose_op_weights[op] * seconds[k];
    }
    if (trial == 0 && skip(local[n], best_avg)) {
      result.skipped = true;
      return result;
    }
  }
  const std::vector<double> all = gather_from_all_ranks(handle_.comm(), local);
  result.total = series_stats(all, handle_.size(), kSeries, 0);
  result.weighted = series_stats(all, handle_.size(), kSeries, 1);
  for (int op = 0; op < 4; ++op) result.ops[op] = series_stats(all, handle_.size(), kSeries, 2 + op);
  return result;
}

HaloTrials TrialRunner::halos(const GridDesc& grid, double best_avg) const {
  const size_t elem = static_cast<size_t>(data_type_size(options_.dtype));
  HaloArgs args;
  args.axis = options_.halo_axis;
  args.dtype = options_.dtype;
  args.halo = to_int3(options_.halo_extents);
  args.padding = to_int3(options_.halo_padding);
  args.periods = {options_.halo_periods[0], options_.halo_periods[1], options_.halo_periods[2]};
  TrialBuffer data(static_cast<size_t>(grid.layout(args.axis, args.halo, args.padding).size) * elem + elem, on_device_);
  TrialBuffer work(static_cast<size_t>(grid.halo_workspace_size(args.axis, args.halo)) * elem + elem, on_device_);
  const auto mover = mover_for(data.data(), on_device_);
  args.data = data.data();
  args.work = work.data();
  args.mover = mover.get();
  const auto all_dims = [&] {
    for (int dim = 0; dim < 3; ++dim) {
      args.dim = dim;
      grid.update_halos(args);
    }
    if (on_device_) wait_for_stream(kStream);  // the host clock must cover the device's work
  };

  for (int w = 0; w < options_.n_warmup_trials; ++w) all_dims();
  check_mpi(MPI_Barrier(handle_.comm()), "MPI_Barrier");
  const auto n = static_cast<size_t>(options_.n_trials);
  std::vector<double> local(n);
  HaloTrials result;
  double start = MPI_Wtime();
  for (size_t trial = 0; trial < n; ++trial) {
    all_dims();
    // Barrier to barrier, as upstream: a trial lasts until the slowest rank is done.
    check_mpi(MPI_Barrier(handle_.comm()), "MPI_Barrier");
    local[trial] = MPI_Wtime() - start;
    if (trial == 0 && skip(local[0], best_avg)) {
      result.skipped = true;
      return result;
    }
    start = MPI_Wtime();  // after the skip check, whose gather is no part of a trial
  }
  const std::vector<double> all = gather_from_all_ranks(handle_.comm(), local);
  result.total = series_stats(all, handle_.size(), 1, 0);
  return result;
}

}  // namespace wavestack::decomp
