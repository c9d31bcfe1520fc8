#include "decomp/autotune_candidates.hpp"

#include <algorithm>
#include <sstream>

#include "decomp/config.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {
namespace {

// Applies a backend list from the environment to `all`. "A,B" keeps only the named backends;
// "^A,B" (a leading caret, as in NCCL's lists) keeps every backend except the named ones. Names
// are the enum tokens (MPI_P2P_PL, NCCL, ...); a name of a backend that is not a candidate here
// is accepted and has no effect, an unknown name or an empty entry is an error.
template <typename Backend, typename FromName>
std::vector<Backend> filter_backends(std::vector<Backend> all, const char* variable, const char* value,
                                     FromName from_name) {
  if (value == nullptr || *value == '\0') return all;
  std::string text = value;
  const bool exclude = text.front() == '^';
  if (exclude) text.erase(0, 1);
  // An empty entry ("MPI,,NCCL", a trailing comma) is a malformed list, as upstream's tests
  // require, not an entry to skip.
  const auto names = split_env_list(text);
  if (names.size() != static_cast<size_t>(std::count(text.begin(), text.end(), ',')) + 1) {
    invalid_argument(variable, "empty backend name in '" + std::string(value) + "'");
  }
  std::vector<Backend> named;
  for (const auto& name : names) {
    const auto backend = from_name(name);
    if (!backend) invalid_argument(variable, "unknown backend name '" + name + "'");
    named.push_back(*backend);
  }
  std::vector<Backend> chosen;
  for (const Backend backend : all) {
    const bool listed = std::find(named.begin(), named.end(), backend) != named.end();
    if (listed != exclude) chosen.push_back(backend);
  }
  if (chosen.empty()) invalid_argument(variable, "leaves no backend of this build to try");
  return chosen;
}

// The MPI backends, then the NCCL ones on a device, less what the options disable.
template <typename Backend>
std::vector<Backend> option_candidates(const std::vector<Backend>& mpi, const std::vector<Backend>& nccl,
                                       const cudecompGridDescAutotuneOptions_t& options, const TuneTarget& target,
                                       const char* what) {
  if (!target.on_device()) {
    // Word for word the message of the time before device tuning, in a CUDA build without a
    // device too: host behaviour and output are unchanged.
    if (options.disable_mpi_backends) {
      not_supported(std::string("options.disable_mpi_backends is set, which leaves no ") + what +
                    " backend to autotune in this build (CPU-only: MPI backends only)");
    }
    return mpi;
  }
  std::vector<Backend> all;
  if (!options.disable_mpi_backends && target.mpi_device_buffers) all = mpi;
  if (!options.disable_nccl_backends && !target.shared_device) all.insert(all.end(), nccl.begin(), nccl.end());
  if (all.empty() && target.shared_device && !options.disable_nccl_backends) {
    not_supported(
        std::string("options.disable_mpi_backends is set, and ranks share a GPU, where NCCL cannot run: no ") + what +
        " backend is left to autotune");
  }
  if (all.empty() && !target.mpi_device_buffers) {
    not_supported(std::string("this MPI is not CUDA-aware, so the MPI backends cannot run on device buffers, and the "
                              "options or a shared GPU leave no NCCL ") +
                  what + " backend to autotune (see WAVESTACK_MPI_CUDA_AWARE)");
  }
  if (all.empty()) {
    not_supported(std::string("options.disable_mpi_backends and options.disable_nccl_backends are both set, which "
                              "leaves no ") +
                  what + " backend to autotune (NVSHMEM backends are not implemented)");
  }
  return all;
}

}  // namespace

std::vector<std::string> split_env_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

std::vector<cudecompTransposeCommBackend_t> transpose_backend_candidates(
    const cudecompGridDescConfig_t& config, const cudecompGridDescAutotuneOptions_t& options, const TuneTarget& target,
    const char* env_list) {
  if (!options.autotune_transpose_backend) return {config.transpose_comm_backend};
  const auto all = option_candidates<cudecompTransposeCommBackend_t>(
      {CUDECOMP_TRANSPOSE_COMM_MPI_P2P, CUDECOMP_TRANSPOSE_COMM_MPI_P2P_PL, CUDECOMP_TRANSPOSE_COMM_MPI_A2A},
      {CUDECOMP_TRANSPOSE_COMM_NCCL, CUDECOMP_TRANSPOSE_COMM_NCCL_PL}, options, target, "transpose");
  return filter_backends(all, "CUDECOMP_AUTOTUNE_TRANSPOSE_BACKENDS", env_list, transpose_backend_from_name);
}

std::vector<cudecompHaloCommBackend_t> halo_backend_candidates(const cudecompGridDescConfig_t& config,
                                                               const cudecompGridDescAutotuneOptions_t& options,
                                                               const TuneTarget& target, const char* env_list) {
  if (!options.autotune_halo_backend) return {config.halo_comm_backend};
  const auto all = option_candidates<cudecompHaloCommBackend_t>(
      {CUDECOMP_HALO_COMM_MPI, CUDECOMP_HALO_COMM_MPI_BLOCKING}, {CUDECOMP_HALO_COMM_NCCL}, options, target, "halo");
  return filter_backends(all, "CUDECOMP_AUTOTUNE_HALO_BACKENDS", env_list, halo_backend_from_name);
}

}  // namespace wavestack::decomp
