// The Vulkan side of both execution modes, part 1: buffer bindings, push constants and the
// accessors the device code uses (cpu_interpreter.cpp and compiled units on the cpu device
// define them over pointers instead). interpreter_vulkan_main.glsl holds the entry point of a
// run, after the mode's run loop; instantiation and the WASI service have entry points of
// their own (vulkan_instantiate_main.glsl, wasi_vulkan_main.glsl).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer ProgramBuffer { uint program_words[]; };
layout(std430, binding = 1) buffer StateBuffer { uint state_words[]; };
layout(std430, binding = 2) buffer MemoryBuffer { uint memory_words[]; };
layout(std430, binding = 3) readonly buffer TemplateBuffer { uint template_words[]; };  // state, then memory
layout(std430, binding = 4) buffer IoBuffer { uint io_words[]; };  // arguments in, outcomes out

layout(push_constant) uniform Push {
  uint count;  // instances in this group
  uint quantum;
  uint function;
  uint state_stride;
  uint memory_stride;
  uint io_stride;
  uint params;   // arguments per instance (when begin)
  uint results;  // results per instance (written when returned)
  uint fuel_lo;
  uint fuel_hi;
  uint fuel_limited;
  uint begin;   // 1: start the call first
  uint budget;  // loop work per dispatch (a bound of both execution modes' run loops)
  uint range_begin;  // instantiation (vulkan_instantiate_main.glsl): the template words to copy
  uint range_end;
  uint template_memory_words;
  uint instance_base;       // the group's first instance (the WASI region's instance index)
  uint wasi_instance_word;  // state word of that index, 0xFFFFFFFF without WASI
  // A run in a dispatch sequence (VulkanInstances::run_sequence), else 0xFFFFFFFF: the io word
  // counting the instances this dispatch leaves running, and the previous dispatch's (0 there:
  // nothing is left to run, so this dispatch returns at once and every outcome stands).
  uint running_word;
  uint skip_word;
  uint args_word;  // when begin: the first io word of the arguments, 2 per parameter, instance-major
  // A step's last dispatch that sums the group up for the host (VulkanInstances::read_summary),
  // else 0xFFFFFFFF: the io words of the summary (interpreter_vulkan_outcome.glsl); and 1 where
  // it records the blocks the running instances continue at (compiled mode).
  uint summary_word;
  uint summary_blocks;
} pc;

uint state_base = 0u;
uint memory_base = 0u;

uint prog(uint i) { return program_words[i]; }
uint st_get(uint i) { return state_words[state_base + i]; }
void st_set(uint i, uint v) { state_words[state_base + i] = v; }
uint mem_get(uint i) { return memory_words[memory_base + i]; }
void mem_set(uint i, uint v) { memory_words[memory_base + i] = v; }

// Every entry point's start: points the accessors at this invocation's instance; false for an
// invocation beyond the group's instances (the last workgroup's tail).
bool bind_instance() {
  uint instance = gl_GlobalInvocationID.x;
  if (instance >= pc.count) return false;
  state_base = instance * pc.state_stride;
  memory_base = instance * pc.memory_stride;
  return true;
}

// The first io word of this invocation's instance.
uint instance_io() { return gl_GlobalInvocationID.x * pc.io_stride; }

