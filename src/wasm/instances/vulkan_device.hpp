// What the wasm instance sets on one Vulkan device share for the life of the process: the
// context and the pipelines, each built when first needed (creating a pipeline from a large
// shader is the slow part, so a spawn after the first on a device builds nothing it already
// has): the interpreter, the small instantiation shader, the WASI service (one pipeline per
// WASI function) and compiled mode's unit pipelines (a bounded cache keyed by the unit
// shader's text). Never destroyed: no teardown order to get wrong at exit. Callers hold
// `mutex` around everything they do with the device, except unit pipelines: `unit` and
// `build_unit_ahead` take a lock of their own, so that units build on other threads (ahead of
// need, or a precompile's workers) while a call dispatches, and a unit is built once: a caller
// that needs a unit another thread is building waits for it.
#pragma once

#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runtime/compute_context.hpp"
#include "runtime/device_info.hpp"
#include "wasm/instances/dispatch_limits.hpp"

namespace wavestack::wasm {

// How a pipeline request was served: built now (how long it took, whether the SPIR-V came
// from the disk cache) or found in the process.
struct PipelineBuild {
  // In: leave the driver's cache unsaved (a precompile saves it once, after its last build).
  bool defer_cache_save = false;
  bool built = false;
  bool spirv_from_cache = false;
  double seconds = 0.0;
  // A unit pipeline this request is the first to take for a dispatch: built now, or built
  // ahead of need and not taken before (some drivers finish compiling at the first dispatch).
  bool first_use = false;
};

using SharedPipeline = std::shared_ptr<const runtime::ComputePipeline>;

class VulkanDevice {
 public:
  // The push constant block of every shader here (interpreter_vulkan_bindings.glsl).
  static constexpr std::uint32_t kPushBytes = 24 * 4;
  // Unit pipelines kept per device: a large module's working set on a GPU, bounded so a
  // process running many modules does not keep every pipeline it ever built.
  static constexpr std::size_t kUnitPipelineCapacity = 512;

  // The device of `info.index`, opened on first use.
  [[nodiscard]] static std::shared_ptr<VulkanDevice> shared(const runtime::DeviceInfo& info);

  explicit VulkanDevice(const runtime::DeviceInfo& info)
      : context(info), dispatch_limits(dispatch_limits_for(info.is_software)) {}

  std::mutex mutex;  // one command at a time per context
  runtime::ComputeContext context;
  const DispatchLimits dispatch_limits;  // read once per device and process

  // `paged`: the variant for paged memory (vulkan_page_pool.hpp); instantiation has one only.
  const runtime::ComputePipeline& interpreter(bool paged = false);
  const runtime::ComputePipeline& instantiation();
  const runtime::ComputePipeline& wasi_service(std::uint32_t id, bool paged = false);
  // The pipeline of a compiled unit's complete shader source; pipelines still used by an
  // instance set stay alive when the cache drops them. Needs no `mutex` (see above).
  [[nodiscard]] SharedPipeline unit(const std::string& source, bool paged, PipelineBuild& build);
  // Builds the unit pipeline of `source` unless the device has it or another thread is building
  // it; then it waits for a `unit` request, which takes it as its first use. `built` is called
  // with the build's seconds before any request can take it. Needs no `mutex`.
  void build_unit_ahead(const std::string& source, bool paged, const std::function<void(double)>& built);

 private:
  struct CachedUnit {
    std::string key;
    SharedPipeline pipeline;
    bool taken = false;  // a `unit` request has had it
  };

  runtime::ComputePipeline create(std::string_view source, const runtime::PipelineSpec& spec, PipelineBuild& build);
  // `unit` and `build_unit_ahead`: the cached unit of `key`, built here when no thread has it.
  // With `ahead` (build_unit_ahead's `built`), returns null without waiting when the unit is
  // there or being built.
  SharedPipeline find_or_build_unit(const std::string& key, const std::string& source, bool paged,
                                    const std::function<void(double)>* ahead, PipelineBuild& build);

  std::array<std::optional<runtime::ComputePipeline>, 2> interpreters_;  // dense, paged memory
  std::optional<runtime::ComputePipeline> instantiation_;
  std::map<std::pair<std::uint32_t, bool>, runtime::ComputePipeline> wasi_;
  std::mutex units_mutex_;  // the unit pipelines below
  std::condition_variable unit_built_;
  std::list<CachedUnit> units_;  // least recently used first
  std::unordered_map<std::string, std::list<CachedUnit>::iterator> unit_index_;
  std::unordered_set<std::string> units_building_;  // keys being built, by any thread
};

}  // namespace wavestack::wasm
