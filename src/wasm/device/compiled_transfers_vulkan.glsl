// Control transfers of compiled blocks, deferred to the run loop (Vulkan shaders only).
// Drivers inline every function of a shader, so a call of frame_call, frame_return,
// frame_branch or frame_call_indirect in each of a unit's blocks would put a copy of that
// frame code in every block; the unit then takes seconds to compile on lavapipe. Instead the
// shader's assembler (compiled_glsl.cpp) defines those names, for the unit's text only, as
// recording the request here, and the run loop makes it once per block (COMPILED_AFTER_BLOCK):
// one copy of each per shader. Every transfer is the last thing its block does before
// returning, so making it after the block returns changes nothing. The cpu device calls the
// frame code directly (its compiler does not inline everything).

const uint TRANSFER_NONE = 0u;
const uint TRANSFER_CALL = 1u;
const uint TRANSFER_CALL_INDIRECT = 2u;
const uint TRANSFER_RETURN = 3u;
const uint TRANSFER_BRANCH = 4u;

uint transfer_kind = TRANSFER_NONE;  // invocation-private
uvec3 transfer_args = uvec3(0u);

void defer_transfer(uint kind, uint a, uint b, uint c) {
  transfer_kind = kind;
  transfer_args = uvec3(a, b, c);
}

void compiled_transfer(INOUT(Regs) r) {
  uint kind = transfer_kind;
  transfer_kind = TRANSFER_NONE;
  if (kind == TRANSFER_CALL) frame_call(r, transfer_args.x, transfer_args.y);
  if (kind == TRANSFER_CALL_INDIRECT) frame_call_indirect(r, transfer_args.x, transfer_args.y);
  if (kind == TRANSFER_RETURN) frame_return(r, transfer_args.x);
  if (kind == TRANSFER_BRANCH) frame_branch(r, transfer_args.x, transfer_args.y, transfer_args.z);
}

#define frame_call(r, f, ret_pc) defer_transfer(TRANSFER_CALL, f, ret_pc, 0u)
#define frame_call_indirect(r, table, type_id) defer_transfer(TRANSFER_CALL_INDIRECT, table, type_id, 0u)
#define frame_return(r, count) defer_transfer(TRANSFER_RETURN, count, 0u, 0u)
#define frame_branch(r, target, arity, height) defer_transfer(TRANSFER_BRANCH, target, arity, height)
