#include "decomp/create_grid.hpp"

#include <string>

#include "decomp/autotune.hpp"
#include "decomp/config.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {

std::unique_ptr<GridDesc> create_grid_desc(const Handle& handle, cudecompGridDescConfig_t& config,
                                           const cudecompGridDescAutotuneOptions_t* options) {
  validate_config(config);
  if (options != nullptr) validate_autotune_options(*options);
  const bool tune_pdims = config.pdims[0] == 0 && config.pdims[1] == 0;
  if (tune_pdims && options == nullptr) {
    invalid_argument("config.pdims", "0,0 requests process-grid autotuning, which needs autotune options");
  }
  if (!tune_pdims && config.pdims[0] * config.pdims[1] != handle.size()) {
    invalid_argument("config.pdims", std::to_string(config.pdims[0]) + " x " + std::to_string(config.pdims[1]) +
                                         " does not match the " + std::to_string(handle.size()) +
                                         " ranks of the communicator");
  }
  cudecompGridDescConfig_t chosen = config;
  std::string report;
  if (options != nullptr && (tune_pdims || options->autotune_transpose_backend || options->autotune_halo_backend)) {
    const AutotuneChoice choice = autotune(handle, config, *options);
    chosen.pdims[0] = choice.pdims[0];
    chosen.pdims[1] = choice.pdims[1];
    chosen.transpose_comm_backend = choice.transpose_backend;
    chosen.halo_comm_backend = choice.halo_backend;
    report = choice.report;
  }
  auto grid = std::make_unique<GridDesc>(handle, chosen);
  grid->set_autotune_report(report);
  config = chosen;  // written back only on success
  return grid;
}

}  // namespace wavestack::decomp
