// Test harness in the device subset: evaluates one numeric instruction through the library's
// wasm_numeric (opcodes as the executable form numbers them), or one of the GLSL builtins
// that prelude.hpp reimplements (harness-only ids 0x1000+), on operands held as uvec2. The
// GPU differential test runs this same text in a compute shader and as C++, and requires
// identical results. An unknown id reports trap 0xFFFFFFFF, a harness error.
//
// Every case assigns and breaks instead of returning: Mesa's lavapipe (22.3, LLVM 15)
// miscompiles `return` inside a large switch (it took the wrong case), so device code keeps
// switches free of returns.
uvec2 numerics_eval(uint op, uvec2 a, uvec2 b, OUT(uint) trap) {
  trap = WASM_TRAP_NONE;
  uvec2 r = uvec2(0u, 0u);
  if (op < 0x1000u) {
    if (wasm_numeric_arity(op) == 0u) {
      trap = 0xFFFFFFFFu;
    } else {
      r = wasm_numeric(op, a, b, trap);
    }
    return r;
  }
  switch (op) {
    // The device's own builtins check the prelude's semantics.
    case 0x1000u: {
      uint carry = 0u;
      uint sum = uaddCarry(a.x, b.x, carry);
      r = uvec2(sum, carry);
    } break;
    case 0x1001u: {
      uint borrow = 0u;
      uint difference = usubBorrow(a.x, b.x, borrow);
      r = uvec2(difference, borrow);
    } break;
    case 0x1002u: {
      uint msb = 0u;
      uint lsb = 0u;
      umulExtended(a.x, b.x, msb, lsb);
      r = uvec2(lsb, msb);
    } break;
    case 0x1003u: r = uvec2(uint(findMSB(a.x)), uint(findMSB(a.y & b.y))); break;
    case 0x1004u: r = uvec2(uint(findLSB(a.x)), uint(findLSB(a.y & b.y))); break;
    case 0x1005u: r = uvec2(uint(bitCount(a.x)), uint(bitCount(a.y))); break;
    case 0x1006u: r = uvec2(bitfieldReverse(a.x), bitfieldReverse(a.y)); break;
    case 0x1007u: r = uvec2(min(a.x, b.x), max(a.x, b.x)); break;
    case 0x1008u: r = uvec2(uint(min(int(a.x), int(b.x))), uint(max(int(a.x), int(b.x)))); break;
    case 0x1009u: {
      uint low = min(b.x, b.y);
      uint high = max(b.x, b.y);
      int signed_low = min(int(b.x), int(b.y));
      int signed_high = max(int(b.x), int(b.y));
      r = uvec2(clamp(a.x, low, high), uint(clamp(int(a.x), signed_low, signed_high)));
    } break;
    case 0x100Au: {  // offset and bits within GLSL's defined range: offset + bits <= 32
      int offset = int(b.x % 33u);
      int bits = int(b.y % uint(33 - offset));
      r = uvec2(bitfieldExtract(a.x, offset, bits), uint(bitfieldExtract(int(a.x), offset, bits)));
    } break;
    case 0x100Bu: {
      int offset = int(b.x % 33u);
      int bits = int(b.y % uint(33 - offset));
      r = uvec2(bitfieldInsert(a.x, a.y, offset, bits), 0u);
    } break;
    default: trap = 0xFFFFFFFFu; break;  // unknown opcode: a harness error, never a numerics result
  }
  return r;
}
