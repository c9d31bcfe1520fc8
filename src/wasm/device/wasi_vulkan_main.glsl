// The entry point of a WASI service pipeline (interpreter_wasi.glsl): one pipeline per WASI
// function, its id WASI_SERVICE_FUNCTION (the host defines it), which also leaves every other
// function's case out of interp_wasi_invoke, so that glslang emits only the code this one
// reaches. One invocation per instance: an instance whose interpreter stopped at a call of this
// function (STATUS_WASI) gets the call made with a bounded budget; every other one is left as
// it is, io words included.
const uint WASI_SERVICE_ID = uint(WASI_SERVICE_FUNCTION);

void main() {
  if (!bind_instance()) return;
  uint io = instance_io();
  if (st_get(S_STATUS) == STATUS_WASI && interp_wasi_pending_id() == WASI_SERVICE_ID) {
    write_outcome(io, interp_wasi_service(pc.budget, WASI_SERVICE_ID));
  }
  if (pc.summary_word != 0xFFFFFFFFu) summarise_outcome(io);
}
