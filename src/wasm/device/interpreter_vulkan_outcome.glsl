// The Vulkan side of the interpreter: the outcome words a dispatch leaves in io for the host
// (status, trap, trap index, executed u64, pages, WASI exit state and code, the WASI function
// of a pending call, the pc and the partial call's callee (compiled mode's host picks the unit
// to run next from them), then the results once returned). Shared by both execution modes'
// and the WASI service's entry points.

// Compiled mode on Vulkan: the status the step's entry shader leaves when it has made the host's
// call, for the callee's unit dispatched next in the step (compiled_run.glsl); never read by the
// host, the step's outcome shader reporting it as running.
const uint STATUS_ENTERED = 0x102u;

// The status an outcome reports: a write that found paged memory's pool full was lost, so the
// instance ends in a trap here, before the host or the WASI service sees anything it did after it.
uint outcome_status(uint status) {
  if (memory_fault() && status != STATUS_TRAPPED) {
    status = STATUS_TRAPPED;
    st_set(S_STATUS, status);
    st_set(S_TRAP, WASM_TRAP_DEVICE_MEMORY_EXHAUSTED);
  }
  return status;
}

void write_outcome(uint io, uint status) {
  status = outcome_status(status);
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

// A step's last dispatch (compiled mode's units, or any run or WASI service dispatch of a spawn
// with WASI) sums the group up, so that the host reads a few words instead of every instance's
// outcome (VulkanInstances::read_summary): word 0 counts the instances still running (a pending
// WASI call or prefix included), word 1 those the host must look at (a prefix, a call entered
// partly, a block or WASI function beyond the sets), words 2 and 3 are the set of WASI
// functions whose calls wait for the service, and with pc.summary_blocks the words after them
// the set of blocks the running instances continue at, SUMMARY_BLOCK_WORDS words of 32 block
// ids. Every instance's outcome counts, the one this dispatch wrote or the one that stands.
const uint SUMMARY_WASI_WORD = 2u;
const uint SUMMARY_BLOCK_WORD = 4u;
const uint SUMMARY_BLOCK_WORDS = 60u;

void summarise_outcome(uint io) {
  uint status = io_words[io];
  if (status != STATUS_RUNNING && status != STATUS_WASI && status != STATUS_COMPILED_PREFIX) return;
  atomicAdd(io_words[pc.summary_word], 1u);
  if (status == STATUS_WASI && io_words[io + 8u] < 64u) {
    uint id = io_words[io + 8u];
    atomicOr(io_words[pc.summary_word + SUMMARY_WASI_WORD + id / 32u], 1u << (id % 32u));
    return;
  }
  if (status == STATUS_RUNNING && pc.summary_blocks == 0u) return;
  uint block = io_words[io + 9u];
  if (status != STATUS_RUNNING || block >= prog(H_ENTRY_PC) || block >= 32u * SUMMARY_BLOCK_WORDS) {
    atomicAdd(io_words[pc.summary_word + 1u], 1u);
    return;
  }
  atomicOr(io_words[pc.summary_word + SUMMARY_BLOCK_WORD + block / 32u], 1u << (block % 32u));
}
