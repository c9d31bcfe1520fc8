// The WASI library's region accessors over the interpreter's state: the region is a slice of
// the instance's state words starting at prog(H_WASI) (interpreter_layout.glsl).
uint wasi_get(uint w) { return st_get(prog(H_WASI) + w); }

void wasi_set(uint w, uint v) { st_set(prog(H_WASI) + w, v); }
