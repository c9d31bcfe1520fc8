// Trap codes reported by the numerics through their `trap` out parameter (0 = no trap).
// Every trapping operation writes the parameter on every path, so callers need not clear it.
// The names follow the WebAssembly spec's trap messages.
const uint WASM_TRAP_NONE = 0u;
const uint WASM_TRAP_INTEGER_DIVIDE_BY_ZERO = 1u;       // "integer divide by zero"
const uint WASM_TRAP_INTEGER_OVERFLOW = 2u;             // "integer overflow"
const uint WASM_TRAP_INVALID_CONVERSION_TO_INTEGER = 3u;  // "invalid conversion to integer"
