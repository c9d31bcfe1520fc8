// The Vulkan side of both execution modes, part 1: buffer bindings, push constants and the
// accessors the device code uses (cpu_interpreter.cpp and compiled units on the cpu device
// define them over pointers instead). interpreter_vulkan_main.glsl holds the entry point of a
// run, after the mode's run loop; instantiation and the WASI service have entry points of
// their own (vulkan_instantiate_main.glsl, wasi_vulkan_main.glsl).
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer ProgramBuffer { uint program_words[]; };
layout(std430, binding = 1) buffer StateBuffer { uint state_words[]; };
layout(std430, binding = 1) buffer StatePairs { uvec2 state_pairs[]; };  // the same, a value-stack slot at a time
layout(std430, binding = 1) buffer StateQuads { uvec4 state_quads[]; };  // the same, four control words at a time
layout(std430, binding = 2) buffer MemoryBuffer { uint memory_words[]; };
layout(std430, binding = 2) buffer MemoryQuads { uvec4 memory_quads[]; };  // the same, 16 bytes at a time
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
  // Paged memory: the state word of the instance's fault flag, its page table after it.
  uint page_table_word;
} pc;

// Paged memory (VulkanInstances chooses it when the spawn cannot hold every instance's reserved
// pages; decision 0014): binding 2 is a pool of 4 KiB frames shared by the group's instances,
// and each instance's page table (in its state) maps its 4 KiB pages to frames. A page starts
// mapped to a shared frame, the zero frame or one of the module's initial data, and gets a
// frame of its own when the instance first writes it (copied from the shared one). Frame 0
// holds the pool's allocation words, frame 1 takes the writes made when the pool is full (the
// instance's fault flag is set, and its outcome becomes a trap), frame 2 is all zeros.
layout(constant_id = 1) const bool PAGED_MEMORY = false;
const uint PAGE_SHARED = 0x80000000u;  // in a page table entry: the frame is shared, copy before writing
const uint POOL_NEXT_FRAME = 0u;       // memory words: the next free frame (atomic), the frames in all
const uint POOL_FRAMES = 1u;
const uint POOL_SINK_FRAME = 1u;
const uint FRAME_WORDS_LOG2 = 10u;

uint state_base = 0u;
uint memory_base = 0u;

uint prog(uint i) { return program_words[i]; }
uint st_get(uint i) { return state_words[state_base + i]; }
void st_set(uint i, uint v) { state_words[state_base + i] = v; }

// The value stack's slots, one 64-bit access each from a base found once per invocation: the
// stack starts at an even word of a state whose stride is even (instance_image.cpp,
// vulkan_instances.cpp). Every buffer access is a loop over the SIMD lanes in llvmpipe, so two
// words a slot and the program word of H_STACK read at every access had made lavapipe's build
// of a large unit a quarter to a third longer.
#define WASM_HOST_SLOTS 1
#define WASM_HOST_QUADS 1
uint stack_pair_base = 0u;
uvec2 slot_get(uint slot) { return state_pairs[stack_pair_base + slot]; }
void slot_set(uint slot, uvec2 v) { state_pairs[stack_pair_base + slot] = v; }
// An aligned quad of control words (i a multiple of 4; the state stride is one too).
uvec4 st_get4(uint i) { return state_quads[(state_base + i) >> 2u]; }
void st_set4(uint i, uvec4 v) { state_quads[(state_base + i) >> 2u] = v; }
uint page_slot(uint word) { return state_base + pc.page_table_word + 1u + (word >> FRAME_WORDS_LOG2); }

// The frame of a page the instance writes: its own, after copying the shared one into a new
// frame (256 quads, 16 per iteration: lavapipe bounds an invocation's loop iterations in all).
uint page_own_frame(uint slot) {
  uint entry = state_words[slot];
  if ((entry & PAGE_SHARED) == 0u) return entry;
  uint frame = atomicAdd(memory_words[POOL_NEXT_FRAME], 1u);
  if (frame >= memory_words[POOL_FRAMES]) {
    state_words[state_base + pc.page_table_word] = 1u;
    return POOL_SINK_FRAME;
  }
  uint from = (entry & ~PAGE_SHARED) << (FRAME_WORDS_LOG2 - 2u);
  uint to = frame << (FRAME_WORDS_LOG2 - 2u);
  for (uint q = 0u; q < 256u; q += 16u) {
    for (uint k = 0u; k < 16u; k++) memory_quads[to + q + k] = memory_quads[from + q + k];
  }
  state_words[slot] = frame;
  return frame;
}

uint mem_get(uint i) {
  if (!PAGED_MEMORY) return memory_words[memory_base + i];
  uint frame = state_words[page_slot(i)] & ~PAGE_SHARED;
  return memory_words[(frame << FRAME_WORDS_LOG2) | (i & 1023u)];
}

void mem_set(uint i, uint v) {
  if (!PAGED_MEMORY) {
    memory_words[memory_base + i] = v;
    return;
  }
  memory_words[(page_own_frame(page_slot(i)) << FRAME_WORDS_LOG2) | (i & 1023u)] = v;
}

// Whether a write of this instance found the pool full since its call began.
bool memory_fault() { return PAGED_MEMORY && state_words[state_base + pc.page_table_word] != 0u; }
void clear_memory_fault() {
  if (PAGED_MEMORY) state_words[state_base + pc.page_table_word] = 0u;
}

// Every entry point's start: points the accessors at this invocation's instance; false for an
// invocation beyond the group's instances (the last workgroup's tail).
bool bind_instance() {
  uint instance = gl_GlobalInvocationID.x;
  if (instance >= pc.count) return false;
  state_base = instance * pc.state_stride;
  memory_base = instance * pc.memory_stride;
  stack_pair_base = (state_base + prog(H_STACK)) >> 1u;
  return true;
}

// The first io word of this invocation's instance.
uint instance_io() { return gl_GlobalInvocationID.x * pc.io_stride; }

