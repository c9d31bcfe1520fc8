#include "decomp/autotune_report.hpp"

#include <cstdio>

#include "decomp/config.hpp"

namespace wavestack::decomp {
namespace {

// Seven spaces: where upstream's tab after "CUDECOMP:" lands on a terminal.
constexpr const char* kIndent = "CUDECOMP:       ";

// Six decimals, as upstream's printf("%f").
std::string fixed6(double value) {
  char text[64];
  std::snprintf(text, sizeof(text), "%f", value);
  return text;
}

std::string ms(double seconds) {
  return fixed6(seconds * 1e3);
}

std::string stats_ms(const TrialStats& s) {
  return ms(s.min) + "/" + ms(s.max) + "/" + ms(s.avg) + "/" + ms(s.std);
}

std::string grid_text(const std::array<int, 2>& pdims) {
  return std::to_string(pdims[0]) + " x " + std::to_string(pdims[1]);
}

}  // namespace

std::string transpose_candidate_lines(const std::array<int, 2>& pdims, cudecompTransposeCommBackend_t backend,
                                      const TransposeTrials& trials, const double weights[4]) {
  std::string text = std::string(kIndent) + "grid: " + grid_text(pdims) +
                     ", backend: " + transpose_backend_display_name(backend) + "\n";
  if (trials.skipped) return text + kIndent + "(skipped)\n";
  text += std::string(kIndent) + "Total time min/max/avg/std [ms]: " + stats_ms(trials.total) + "\n";
  text += std::string(kIndent) + "           min/max/avg/std [ms]: " + stats_ms(trials.weighted) + " (weighted)\n";
  static constexpr const char* kOps[4] = {"TransposeXY", "TransposeYZ", "TransposeZY", "TransposeYX"};
  for (int op = 0; op < 4; ++op) {
    text += std::string(kIndent) + kOps[op] + " time min/max/avg/std [ms]: " + stats_ms(trials.ops[op]) +
            (weights[op] == 0.0 ? " (skipped)" : "") + "\n";
  }
  return text;
}

std::string halo_candidate_lines(const std::array<int, 2>& pdims, cudecompHaloCommBackend_t backend,
                                 const HaloTrials& trials) {
  std::string text = std::string(kIndent) + "grid: " + grid_text(pdims) +
                     ", halo backend: " + halo_backend_display_name(backend) + "\n";
  if (trials.skipped) return text + kIndent + "(skipped)\n";
  return text + kIndent + "Total time min/max/avg/std [ms]: " + stats_ms(trials.total) + "\n";
}

std::string transpose_selected_line(const std::array<int, 2>& pdims, cudecompTransposeCommBackend_t backend,
                                    double avg_seconds) {
  return "CUDECOMP: SELECTED: grid: " + grid_text(pdims) + ", backend: " + transpose_backend_display_name(backend) +
         ", Avg. time (weighted) [ms]: " + ms(avg_seconds) + "\n";
}

std::string halo_selected_line(const std::array<int, 2>& pdims, cudecompHaloCommBackend_t backend, double avg_seconds) {
  return "CUDECOMP: SELECTED: grid: " + grid_text(pdims) + ", halo backend: " + halo_backend_display_name(backend) +
         ", Avg. time [ms]: " + ms(avg_seconds) + "\n";
}

std::string autotune_seconds_text(double seconds) {
  return fixed6(seconds);
}

}  // namespace wavestack::decomp
