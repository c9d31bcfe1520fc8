#include "runtime/selftest.hpp"

#include <cstring>

#include "runtime/error.hpp"

namespace wavestack::runtime {

std::string_view vector_add_shader_source() {
  return R"glsl(#version 450
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Push { uint n; } push;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < push.n) result[i] = a[i] + b[i];
}
)glsl";
}

std::vector<float> run_vector_add(ComputeContext& context, const std::vector<float>& a, const std::vector<float>& b,
                                  uint32_t workgroup_size) {
  if (a.size() != b.size()) throw InvalidArgument("b", "must have as many elements as a");
  if (a.empty()) return {};
  const size_t bytes = a.size() * sizeof(float);
  PipelineSpec spec;
  spec.buffer_count = 3;
  spec.push_constant_bytes = 4;
  spec.specialization = {{0, workgroup_size}};
  spec.shader.target = vulkan_target_for_api(context.device().api_version);
  ComputePipeline pipeline = context.create_pipeline(vector_add_shader_source(), spec);
  DeviceBuffer buffer_a = context.allocate(bytes);
  DeviceBuffer buffer_b = context.allocate(bytes);
  DeviceBuffer buffer_out = context.allocate(bytes);
  context.upload(buffer_a, std::as_bytes(std::span(a)));
  context.upload(buffer_b, std::as_bytes(std::span(b)));
  const auto n = static_cast<uint32_t>(a.size());
  DeviceBuffer* buffers[] = {&buffer_a, &buffer_b, &buffer_out};
  const uint32_t groups = (n + workgroup_size - 1) / workgroup_size;
  context.dispatch(pipeline, buffers, std::as_bytes(std::span(&n, 1)), {groups, 1, 1});
  std::vector<float> result(a.size());
  context.download(buffer_out, std::as_writable_bytes(std::span(result)));
  return result;
}

}  // namespace wavestack::runtime
