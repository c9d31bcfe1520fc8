// Calls and returns of compiled blocks, deferred to the run loop (Vulkan shaders only).
// Drivers inline every function of a shader, so a call of frame_call, frame_call_indirect or
// frame_return at each of a unit's call and return sites would put a copy of that frame code
// (stack checks, chunked clearing of locals, the frame header) at every site, and lavapipe
// would take seconds to compile the unit. Instead the shader's assembler (compiled_glsl.cpp)
// defines those names, for the unit's text only, as recording the request here and setting
// the pc to TRANSFER_PENDING, an id of no block: generated code leaves the unit's blocks at
// once, as for a block of another unit (every local was spilled before the site, as for any
// call or return), and the run loop makes the transfer (COMPILED_AFTER_BLOCK) with the pc
// the block had set: one copy of the frame code per shader. Branches stay inline (small, and
// a loop's back edge stays within its run). The cpu device calls the frame code directly.

const uint TRANSFER_NONE = 0u;
const uint TRANSFER_CALL = 1u;
const uint TRANSFER_CALL_INDIRECT = 2u;
const uint TRANSFER_RETURN = 3u;
const uint TRANSFER_PENDING = 0xFFFFFFF0u;  // the pc while a transfer waits for the run loop

uint transfer_kind = TRANSFER_NONE;  // invocation-private
uvec3 transfer_args = uvec3(0u);

void defer_transfer(INOUT(Regs) r, uint kind, uint a, uint b) {
  transfer_kind = kind;
  transfer_args = uvec3(a, b, r.pc);
  r.pc = TRANSFER_PENDING;
}

// What the unit's text asks of the run loop (the shader's assembler, compiled_glsl.cpp, defines
// these from the text): a unit without returns or indirect calls leaves their code out, a
// few hundredths of a second of lavapipe's build each, and one without calls of either kind
// leaves `frame_call` out (about 85 ms: the host's entry call is a shader of its own then).
#ifndef UNIT_RETURNS
#define UNIT_RETURNS 1
#endif
#ifndef UNIT_CALLS
#define UNIT_CALLS 1
#endif
#ifndef UNIT_CALLS_INDIRECT
#define UNIT_CALLS_INDIRECT 1
#endif

void compiled_transfer(INOUT(Regs) r) {
  uint kind = transfer_kind;
  if (kind == TRANSFER_NONE) return;
  transfer_kind = TRANSFER_NONE;
  r.pc = transfer_args.z;
#if UNIT_RETURNS
  if (kind == TRANSFER_RETURN) {
    frame_return(r, transfer_args.x);
    return;
  }
#endif
#if UNIT_CALLS || UNIT_CALLS_INDIRECT
  // Both kinds of call share one inlined copy of frame_call (each copy is a tenth of a
  // second of lavapipe's build of every unit).
  uint f = transfer_args.x;
  uint ret_pc = transfer_args.y;
#if UNIT_CALLS_INDIRECT
  if (kind == TRANSFER_CALL_INDIRECT) {
    f = frame_indirect_callee(r, transfer_args.x, transfer_args.y);
    ret_pc = r.pc;
  }
#endif
  if (f != NULL_REF) frame_call(r, f, ret_pc);
#endif
}

#define frame_call(r, f, ret_pc) defer_transfer(r, TRANSFER_CALL, f, ret_pc)
#define frame_call_defined(r, f, ret_pc, params, locals, max_stack, entry_pc) defer_transfer(r, TRANSFER_CALL, f, ret_pc)
#define frame_call_indirect(r, table, type_id) defer_transfer(r, TRANSFER_CALL_INDIRECT, table, type_id)
#define frame_return(r, count) defer_transfer(r, TRANSFER_RETURN, count, 0u)

// The host's call too (compiled_run.glsl's compiled_entry), in the one shader that makes it
// (compiled_glsl.cpp's compiled_entry_shader_source): the run loop makes it after the entry's
// turn, like a block's call.
#define COMPILED_ENTRY_CALL(r, f) defer_transfer(r, TRANSFER_CALL, f, RETURN_TO_HOST)
