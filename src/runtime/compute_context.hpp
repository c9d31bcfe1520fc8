// One logical Vulkan device used for compute: buffers, transfers, pipelines and dispatch.
// Every operation is synchronous (it returns when the device has finished), which keeps the
// ownership rules simple; each phase's wall time is recorded in timings().
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/device_info.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/shader_compiler.hpp"

namespace wavestack::runtime {

struct PhaseTimings {
  double compile_ms = 0.0;
  double upload_ms = 0.0;
  double dispatch_ms = 0.0;
  double download_ms = 0.0;
  bool spirv_from_cache = false;  // of the last pipeline created
  uint64_t bytes_uploaded = 0;    // upload(): through a staging copy or written into mapped memory
  uint64_t bytes_downloaded = 0;  // download(): likewise
  uint64_t submits = 0;           // queue submissions (dispatches, staging copies, fills)
  uint64_t fence_waits = 0;       // host waits for a submission to finish (one per submit today)
};

struct SpecializationConstant {
  uint32_t id = 0;
  uint32_t value = 0;
};

struct PipelineSpec {
  uint32_t buffer_count = 0;         // storage buffers at bindings 0..buffer_count-1 of set 0
  uint32_t push_constant_bytes = 0;  // multiple of 4
  std::vector<SpecializationConstant> specialization;
  ShaderOptions shader;
};

class ComputeContext;
class DeviceBuffer;

// A byte range of a buffer (offset and size multiples of 4), zeroed or read back around a
// dispatch sequence; a null buffer for none.
struct BufferSlice {
  DeviceBuffer* buffer = nullptr;
  size_t offset = 0;
  size_t bytes = 0;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  [[nodiscard]] size_t size() const noexcept { return size_; }
  [[nodiscard]] bool valid() const noexcept { return handle_ != nullptr; }

 private:
  friend class ComputeContext;
  struct Handle;
  void release() noexcept;
  Handle* handle_ = nullptr;
  size_t size_ = 0;
};

class ComputePipeline {
 public:
  ComputePipeline() = default;
  ComputePipeline(ComputePipeline&& other) noexcept;
  ComputePipeline& operator=(ComputePipeline&& other) noexcept;
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;
  ~ComputePipeline();

  [[nodiscard]] uint32_t buffer_count() const noexcept { return buffer_count_; }
  [[nodiscard]] uint32_t push_constant_bytes() const noexcept { return push_constant_bytes_; }
  [[nodiscard]] bool spirv_from_cache() const noexcept { return spirv_from_cache_; }

 private:
  friend class ComputeContext;
  struct Handle;
  void release() noexcept;
  Handle* handle_ = nullptr;
  uint32_t buffer_count_ = 0;
  uint32_t push_constant_bytes_ = 0;
  bool spirv_from_cache_ = false;
};

class ComputeContext {
 public:
  // Opens `device` (from list_devices()). Throws DeviceError when it no longer exists and
  // VulkanError when the driver refuses.
  explicit ComputeContext(const DeviceInfo& device, DiskCache cache = DiskCache());
  ~ComputeContext();
  ComputeContext(const ComputeContext&) = delete;
  ComputeContext& operator=(const ComputeContext&) = delete;

  [[nodiscard]] const DeviceInfo& device() const noexcept;
  [[nodiscard]] const DiskCache& cache() const noexcept;

  // A storage buffer of `bytes` (> 0) bytes, preferably in device-local memory.
  [[nodiscard]] DeviceBuffer allocate(size_t bytes);
  void upload(DeviceBuffer& buffer, std::span<const std::byte> data, size_t offset = 0);
  void download(const DeviceBuffer& buffer, std::span<std::byte> data, size_t offset = 0);
  void fill_zero(DeviceBuffer& buffer);

  // Compiles (or loads from the disk cache) and creates a compute pipeline.
  [[nodiscard]] ComputePipeline create_pipeline(std::string_view glsl, const PipelineSpec& spec);
  // The same, safe to call from any thread while another uses the context (Vulkan creates
  // pipelines concurrently, and so does the shader compiler): it records no timings and leaves
  // the driver's cache unsaved (save_pipeline_cache, also safe from any thread).
  [[nodiscard]] ComputePipeline create_pipeline_concurrently(std::string_view glsl, const PipelineSpec& spec);

  // Binds buffers in order, pushes the constants, dispatches `groups` and waits.
  void dispatch(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers,
                std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups);

  // Runs `count` dispatches of `pipeline` over the same buffers and workgroups in one submission
  // and one fence wait: `clear` is zeroed first, dispatch i takes block i of `push_constants`
  // (count blocks) and sees the writes of those before it, and after the last `read` is copied
  // into `out` (read.bytes long). For shaders that decide on the device whether there is work
  // left (a dispatch with none returns at once), so that several cost one round trip.
  void dispatch_sequence(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers,
                         std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups, uint32_t count,
                         BufferSlice clear, BufferSlice read, std::span<std::byte> out);
  // The same with dispatch i running pipelines[i] (all taking the same buffers and push
  // constant size): a step of several shaders in one submission.
  void dispatch_sequence(std::span<const ComputePipeline* const> pipelines, std::span<DeviceBuffer* const> buffers,
                         std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups, BufferSlice clear,
                         BufferSlice read, std::span<std::byte> out);

  // Writes the driver's pipeline cache to the disk cache now (also done when the context is
  // destroyed): for contexts kept for the life of the process, after building pipelines.
  // Safe from any thread (the driver synchronises its cache; the entry is replaced whole).
  void save_pipeline_cache();

  [[nodiscard]] const PhaseTimings& timings() const noexcept;
  void reset_timings() noexcept;

  // Opaque device state, shared with the buffer and pipeline handles it created.
  struct State;

 private:
  // Checks a dispatch against the pipeline and the device and binds `buffers` to the
  // pipeline's descriptor set; false for an empty launch.
  bool bind(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers, size_t push_bytes,
            std::array<uint32_t, 3> groups);

  std::unique_ptr<State> state_;
};

}  // namespace wavestack::runtime
