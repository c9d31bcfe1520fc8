// Autotuning of the process grid and the communication backends by timing the real operations
// on the real ranks (upstream cuDecomp refuses this in CPU-only builds). Host buffers and host
// clocks where no CUDA device is seen; device buffers, CUDA events and the NCCL backends too in
// a CUDA build that sees one (the candidates: autotune_candidates.hpp). Every decision is made
// from every rank's times pooled (autotune_timing.hpp: the average over ranks and trials ranks
// candidates, as upstream's), gathered to every rank, so every rank chooses the same.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "cudecomp.h"
#include "decomp/handle.hpp"

namespace wavestack::decomp {

struct AutotuneChoice {
  std::array<int, 2> pdims{0, 0};
  cudecompTransposeCommBackend_t transpose_backend = CUDECOMP_TRANSPOSE_COMM_MPI_P2P;
  cudecompHaloCommBackend_t halo_backend = CUDECOMP_HALO_COMM_MPI;
  std::string report;  // the log lines rank 0 printed
};

// Candidate process grids Prows x Pcols for `nranks` ranks, Pcols ascending (upstream's order),
// restricted by CUDECOMP_AUTOTUNE_PDIMS ("2x2,1x4"), CUDECOMP_AUTOTUNE_P_ROW_RANGE and
// _P_COL_RANGE ("MIN:MAX") when set and, unless allowed, to even decompositions.
std::vector<std::array<int, 2>> pdims_candidates(int nranks, const cudecompGridDescConfig_t& config, bool allow_uneven);

// `config` is valid; pdims 0,0 means the grid is tuned, else it stays fixed.
AutotuneChoice autotune(const Handle& handle, const cudecompGridDescConfig_t& config,
                        const cudecompGridDescAutotuneOptions_t& options);

}  // namespace wavestack::decomp
