// The Vulkan side of the interpreter: the outcome words a dispatch leaves in io for the host
// (status, trap, trap index, executed u64, pages, WASI exit state and code, the WASI function
// of a pending call, the pc and the partial call's callee (compiled mode's host picks the unit
// to run next from them), then the results once returned). Shared by both execution modes'
// and the WASI service's entry points.
void write_outcome(uint io, uint status) {
  io_words[io] = status;
  io_words[io + 1u] = st_get(S_TRAP);
  io_words[io + 2u] = st_get(S_TRAP_INDEX);
  io_words[io + 3u] = st_get(S_EXECUTED);
  io_words[io + 4u] = st_get(S_EXECUTED + 1u);
  io_words[io + 5u] = st_get(S_PAGES);
  bool wasi = prog(H_WASI) != 0u;
  io_words[io + 6u] = wasi ? wasi_get(WASI_H_EXIT_STATE) : 0u;
  io_words[io + 7u] = wasi ? wasi_get(WASI_H_EXIT_CODE) : 0u;
  io_words[io + 8u] = status == STATUS_WASI ? function_word(st_get(S_WASI_FUNC), F_CODE) : 0u;
  io_words[io + 9u] = st_get(S_PC);
  io_words[io + 10u] = st_get(S_CONT_FUNC);
  if (status == STATUS_RETURNED) {
    for (uint k = 0u; k < pc.results; k++) {
      uvec2 v = slot_get(k);
      io_words[io + 11u + 2u * k] = v.x;
      io_words[io + 12u + 2u * k] = v.y;
    }
  }
}
