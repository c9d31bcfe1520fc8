// The interpreter's data layout, shared by the device code and the host (which builds the
// program image and the per-instance state from these numbers). docs/ARCHITECTURE.md
// ("Instances and the interpreter") draws the whole picture.
//
// Three buffers: the read-only program image (one per spawn, shared by all instances), the
// per-instance state (control words, globals, dropped-segment flags, tables, value stack)
// and the per-instance linear memory. Instance i owns words [i * stride, (i + 1) * stride)
// of the state and memory buffers; every index below is relative to that slice.

// Program image header: word offsets of its sections, counts, and the state layout.
const uint H_CODE = 0u;          // uvec4 instruction records (4 words each)
const uint H_FUNCS = 1u;         // function table, F_WORDS words per function (imports first)
const uint H_FUNC_COUNT = 2u;
const uint H_ELEMS = 3u;         // element segments: (items word offset, item count) each
const uint H_ELEM_COUNT = 4u;
const uint H_DATAS = 5u;         // data segments: (bytes word offset, byte length) each
const uint H_DATA_COUNT = 6u;
const uint H_TABLES = 7u;        // table descriptors, T_WORDS words per table
const uint H_TABLE_COUNT = 8u;
const uint H_GLOBALS = 9u;       // state offset of the globals (2 words each)
const uint H_DROPPED = 10u;      // state offset of the dropped flags: data segments, then element segments
const uint H_STACK = 11u;        // state offset of the value stack (2 words per slot)
const uint H_STACK_SLOTS = 12u;  // value stack capacity in 64-bit slots
const uint H_MEMORY_LIMIT = 13u; // pages memory.grow may reach: min(reserved capacity, declared max)
const uint H_ENTRY_PC = 14u;     // the ENTRY record the host's calls start at (after all code)
const uint H_CALL_DEPTH = 15u;   // frames a call may nest (spawn's call_depth); one more traps
const uint H_WASI = 16u;         // state offset of the WASI region (wasi_layout.glsl); 0: no WASI
const uint H_WASI_WORDS = 17u;   // words of the WASI region
const uint H_WORDS = 20u;

// Function table entry.
const uint F_CODE = 0u;       // first record
const uint F_PARAMS = 1u;
const uint F_LOCALS = 2u;     // declared locals after the parameters
const uint F_RESULTS = 3u;
const uint F_MAX_STACK = 4u;  // operand slots the body can need
const uint F_TYPE_ID = 5u;    // canonical type id (call_indirect compares these)
const uint F_KIND = 6u;
const uint F_REF_LOCALS = 7u;  // 0, or the image word of [count, index...] of reference-typed locals
const uint F_WORDS = 8u;
const uint FUNCTION_DEFINED = 0u;
const uint FUNCTION_HOST_NOP = 1u;  // a host import without results (spectest's print_*): pops its arguments
const uint FUNCTION_WASI = 2u;      // a wasi_snapshot_preview1 import; F_CODE holds its WASI function id

// Table descriptor.
const uint T_STATE = 0u;  // state offset of [size, entry 0, entry 1, ...]
const uint T_LIMIT = 1u;  // entries table.grow may reach: min(reserved capacity, declared max)
const uint T_WORDS = 4u;

// References are u32: a function index (funcref) or the host's value (externref).
const uint NULL_REF = 0xFFFFFFFFu;

// Control words at the start of every instance's state. The registers a dispatch loads and
// stores (frames.glsl's regs_load and regs_store) are grouped in aligned quads, which shaders
// read and write as one 128-bit access each (interpreter_vulkan_bindings.glsl): status, trap,
// fuel | executed, ticks | pc, fp, sp, func | the continuation, depth.
const uint S_STATUS = 0u;
const uint S_TRAP = 1u;
const uint S_FUEL = 2u;          // u64 (2 words): records left when S_FUEL_LIMITED
const uint S_EXECUTED = 4u;      // u64 (2 words): records executed by the current call
const uint S_TICKS = 6u;         // u64 (2 words): instructions executed since instantiation (the WASI clock)
const uint S_PC = 8u;
const uint S_FP = 9u;            // slot of the current frame's first local
const uint S_SP = 10u;           // first free slot
const uint S_FUNC = 11u;         // current function
// A record that did only part of its work (a bulk operation, zeroing a callee's locals) runs
// again as a continuation: not charged fuel, not counted; its progress is on the operand
// stack (bulk operations) or in these words (calls).
const uint S_CONT = 12u;
const uint S_CONT_FUNC = 13u;
const uint S_CONT_DONE = 14u;
const uint S_DEPTH = 15u;        // frames of the current call (the host's entry call is frame 1)
const uint S_PAGES = 16u;        // current memory size in pages
const uint S_FUEL_LIMITED = 17u;
const uint S_TRAP_INDEX = 18u;   // the table index of an undefined / uninitialized element trap
const uint S_WASI_FUNC = 19u;    // STATUS_WASI: the WASI import called
const uint S_CLOCK_SKIP = 20u;   // u64 (2 words): nanoseconds poll_oneoff moved the WASI clock ahead
const uint S_WASI_RET = 22u;     // STATUS_WASI: where the call returns to (RETURN_TO_HOST for the host)
const uint S_WASI_PROGRESS = 23u;  // STATUS_WASI: the progress word of a resumable call
const uint S_CONTROL_WORDS = 24u;

// S_STATUS values.
const uint STATUS_IDLE = 0u;
const uint STATUS_RUNNING = 1u;  // inside a call; the next dispatch resumes at S_PC
const uint STATUS_RETURNED = 2u; // results in slots 0 .. result count
const uint STATUS_TRAPPED = 3u;  // S_TRAP says why
const uint STATUS_FUEL_EXHAUSTED = 4u;
const uint STATUS_WASI = 5u;     // a WASI call waits for the WASI service (interpreter_wasi.glsl)
// Returned by compiled mode's run loop, never stored: a block's prefix must run
// (compiled_prefix_run.glsl), built apart from its unit.
const uint STATUS_COMPILED_PREFIX = 0x100u;
// Returned by compiled mode's run loop, never stored: the instance's next block is in another
// unit, so this run did nothing (a Vulkan dispatch of one unit's shader leaves such an
// instance's outcome as it was).
const uint STATUS_COMPILED_ELSEWHERE = 0x101u;

// Trap codes beyond the numerics' (traps.glsl: 1 divide by zero, 2 overflow, 3 invalid conversion).
const uint WASM_TRAP_UNREACHABLE = 4u;
const uint WASM_TRAP_MEMORY_OUT_OF_BOUNDS = 5u;
const uint WASM_TRAP_TABLE_OUT_OF_BOUNDS = 6u;
const uint WASM_TRAP_UNDEFINED_ELEMENT = 7u;
const uint WASM_TRAP_UNINITIALIZED_ELEMENT = 8u;
const uint WASM_TRAP_INDIRECT_CALL_TYPE_MISMATCH = 9u;
const uint WASM_TRAP_CALL_STACK_EXHAUSTED = 10u;
const uint WASM_TRAP_FUEL_EXHAUSTED = 11u;
// The device ended the interpreter loop by itself (lavapipe stops every loop of an invocation
// after 65535 iterations in all); never expected, reported instead of continuing wrongly.
const uint WASM_TRAP_DEVICE_LOOP_LIMIT = 12u;
const uint WASM_TRAP_WASI_EXIT = 13u;   // proc_exit ended the instance's call
const uint WASM_TRAP_WASI_RAISE = 14u;  // proc_raise terminated the instance
// A write found a Vulkan group's page pool full (interpreter_vulkan_bindings.glsl).
const uint WASM_TRAP_DEVICE_MEMORY_EXHAUSTED = 15u;

// Internal record appended after all code: calls the function in S_CONT_FUNC for the host.
const uint OP_ENTRY = 0x203u;

// A frame's header holds this return pc when the caller is the host.
const uint RETURN_TO_HOST = 0xFFFFFFFFu;
