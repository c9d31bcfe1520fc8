// GridDesc's public transposes and halo updates: the operation, and with the performance report
// enabled (performance_report.hpp) its time as one sample of its configuration. A call that
// throws leaves no sample.
#include <chrono>

#include "decomp/device_dispatch.hpp"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

void GridDesc::transpose(TransposeOp op, const TransposeArgs& args) const {
  CommTally tally;
  const PerformanceReportSettings& settings = handle_.performance_report();
  if (!settings.enabled) return run_transpose(op, args, tally);
  tally.timed = true;
  const Clock::time_point start = Clock::now();
  run_transpose(op, args, tally);
  const double total = milliseconds_since(start);
  TransposeSampleKey key;
  key.op = static_cast<int>(op);
  key.dtype = args.dtype;
  key.input_halo = args.input_halo;
  key.output_halo = args.output_halo;
  key.input_padding = args.input_padding;
  key.output_padding = args.output_padding;
  key.in_place = args.input == args.output;
  key.managed = is_managed_buffer(args.input) || is_managed_buffer(args.output);
  performance_.add(key, {total, tally.seconds * 1e3, tally.bytes}, settings);
}

void GridDesc::update_halos(const HaloArgs& args) const {
  CommTally tally;
  const PerformanceReportSettings& settings = handle_.performance_report();
  if (!settings.enabled) return run_update_halos(args, tally);
  tally.timed = true;
  const Clock::time_point start = Clock::now();
  run_update_halos(args, tally);
  const double total = milliseconds_since(start);
  HaloSampleKey key;
  key.axis = args.axis;
  key.dim = args.dim;
  key.dtype = args.dtype;
  key.halo = args.halo;
  key.periods = args.periods;
  key.padding = args.padding;
  key.managed = is_managed_buffer(args.data);
  performance_.add(key, {total, tally.seconds * 1e3, tally.bytes}, settings);
}

void GridDesc::print_performance_report() const {
  const PerformanceReportSettings& settings = handle_.performance_report();
  if (settings.enabled) performance_.report(*this, settings);
}

}  // namespace wavestack::decomp
