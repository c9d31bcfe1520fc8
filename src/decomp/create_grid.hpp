// cudecompGridDescCreate: validation, optional autotuning, and the final grid descriptor.
#pragma once

#include <memory>

#include "cudecomp.h"
#include "decomp/grid_desc.hpp"
#include "decomp/handle.hpp"

namespace wavestack::decomp {

// Collective. On success `config` holds the chosen pdims and backends; on failure it is
// unchanged. `options` may be null when pdims are set.
std::unique_ptr<GridDesc> create_grid_desc(const Handle& handle, cudecompGridDescConfig_t& config,
                                           const cudecompGridDescAutotuneOptions_t* options);

}  // namespace wavestack::decomp
