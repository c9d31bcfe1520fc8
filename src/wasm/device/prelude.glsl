// GLSL side of the device-code subset: the spellings that prelude.hpp gives C++.
// Concatenated first, right after the shader's #version line.
#define OUT(T) out T
#define INOUT(T) inout T
// C++ inlines these helpers always (prelude.hpp); GLSL leaves that to the driver.
#define WASM_LEAF
