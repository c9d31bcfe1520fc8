// What the WASI entry points share: the continuation words of resumable calls, copying path
// arguments into the region, and the ABI records (filestat, fdstat).
//
// Resumable calls. An entry point that moves guest-sized amounts of data takes
// `uint budget` (work units for this invocation, see wasi_guest.glsl) and `INOUT(uint) progress`
// (0 on the first invocation). When the budget runs out it returns WASI_AGAIN with progress
// nonzero and its state in the continuation words (WASI_H_CONT..); the caller then invokes the
// same function again with the same arguments, the same `now`, and the progress word, until
// it returns anything else. All checks happen on the first invocation before any effect (an
// error leaves everything unchanged); later invocations continue exactly where the previous
// one stopped, so the final result equals one uninterrupted run and no effect is applied twice.
// One call at a time per instance: a call that returned WASI_AGAIN must be finished before
// another WASI call starts on that instance.

const uint WASI_C_PHASE = 0u;
const uint WASI_C_I = 1u;       // current record (iovec, subscription, argument, readdir cookie)
const uint WASI_C_OFF = 2u;     // bytes done within the current record
const uint WASI_C_DONE = 3u;    // bytes done in all
const uint WASI_C_TOTAL = 4u;   // bytes to move
const uint WASI_C_POS = 5u;     // u64 (5, 6): file position where the transfer starts
const uint WASI_C_TARGET = 7u;  // size the file grows to
const uint WASI_C_COPY_A = 8u;  // bytes of path argument A copied in
const uint WASI_C_COPY_B = 9u;  // bytes of path argument B copied in
const uint WASI_C_MIN = 10u;    // u64 (10, 11): earliest clock deadline (poll_oneoff)
const uint WASI_C_ANY = 12u;    // poll_oneoff: an fd subscription was seen; also a saved node
const uint WASI_C_NODE = 13u;   // inode found by an earlier phase

uint wasi_cont(uint k) { return wasi_get(WASI_H_CONT + k); }

void wasi_set_cont(uint k, uint v) { wasi_set(WASI_H_CONT + k, v); }

void wasi_cont_reset() {
  WASI_NO_UNROLL for (uint k = 0u; k < WASI_CONT_WORDS; k++) wasi_set(WASI_H_CONT + k, 0u);
}

// Ends an invocation that ran out of budget.
uint wasi_again(INOUT(uint) progress) {
  progress = max(progress + 1u, 1u);
  return WASI_AGAIN;
}

// Copies path argument bytes [addr, addr + len) into buffer `which`, right-aligned, counting
// the bytes done in continuation word `counter`. True once all are in.
bool wasi_path_copy_in(uint which, uint addr, uint len, uint counter, INOUT(WasiWork) work) {
  uint base = wasi_path_base(which);
  uint start = wasi_path_start(len);
  uint done = wasi_cont(counter);
  uint n = min(len - done, wasi_work_chunk(work));
  for (uint k = 0u; k < n; k++) wasi_region_set_byte(base, start + done + k, memory_byte(addr + done + k));
  work.used += n;
  wasi_set_cont(counter, done + n);
  return done + n == len;
}

// First-invocation checks of a path argument: inside guest memory (FAULT) and not longer than
// the buffer takes (NAMETOOLONG).
uint wasi_path_arg_check(uint addr, uint len) {
  if (!wasi_range_ok(addr, len)) return WASI_ERRNO_FAULT;
  if (len > WASI_PATH_ARG_MAX) return WASI_ERRNO_NAMETOOLONG;
  return WASI_ERRNO_SUCCESS;
}

// Resolves a copied path argument from directory descriptor `fd` (after the UTF-8 check).
WasiLookup wasi_resolve_arg(uint which, uint len, uint fd, bool follow) {
  // A NUL byte cannot be part of a name (as wasmtime: INVAL); bounded by the path buffer.
  for (uint k = 0u; k < len; k++) {
    if (wasi_region_byte(wasi_path_base(which), wasi_path_start(len) + k) == 0u) {
      return wasi_lookup_error(WASI_ERRNO_INVAL);
    }
  }
  if (!wasi_utf8_ok(wasi_path_base(which), wasi_path_start(len), len)) return wasi_lookup_error(WASI_ERRNO_ILSEQ);
  return wasi_resolve(which, len, wasi_fd_inode(fd), follow);
}

// The filestat record of inode i at guest address addr (64 bytes, checked by the caller).
void wasi_write_filestat(uint addr, uint i) {
  uint kind = wasi_ikind(i);
  uint size = kind == WASI_KIND_FILE || kind == WASI_KIND_SYMLINK ? wasi_iget(i, WASI_I_SIZE) : 0u;
  wasi_store_u64(addr, uvec2(WASI_DEV, 0u));
  wasi_store_u64(addr + 8u, uvec2(i + 1u, 0u));
  wasi_store_u8(addr + 16u, wasi_filetype(i));
  wasi_store_zeros(addr + 17u, 7u);
  wasi_store_u64(addr + 24u, uvec2(wasi_stat_nlink(i), 0u));
  wasi_store_u64(addr + 32u, uvec2(size, 0u));
  wasi_store_u64(addr + 40u, wasi_iget64(i, WASI_I_ATIM));
  wasi_store_u64(addr + 48u, wasi_iget64(i, WASI_I_MTIM));
  wasi_store_u64(addr + 56u, wasi_iget64(i, WASI_I_CTIM));
}

// Validates fst_flags and applies them to inode i (atim / mtim given or now; ctime = now).
uint wasi_set_times(uint i, uvec2 atim, uvec2 mtim, uint fst_flags, uvec2 now) {
  if ((fst_flags & ~15u) != 0u) return WASI_ERRNO_INVAL;
  uint a = fst_flags & (WASI_FSTFLAG_ATIM | WASI_FSTFLAG_ATIM_NOW);
  uint m = fst_flags & (WASI_FSTFLAG_MTIM | WASI_FSTFLAG_MTIM_NOW);
  if (a == (WASI_FSTFLAG_ATIM | WASI_FSTFLAG_ATIM_NOW) || m == (WASI_FSTFLAG_MTIM | WASI_FSTFLAG_MTIM_NOW)) {
    return WASI_ERRNO_INVAL;
  }
  if (a == WASI_FSTFLAG_ATIM) wasi_iset64(i, WASI_I_ATIM, atim);
  if (a == WASI_FSTFLAG_ATIM_NOW) wasi_iset64(i, WASI_I_ATIM, now);
  if (m == WASI_FSTFLAG_MTIM) wasi_iset64(i, WASI_I_MTIM, mtim);
  if (m == WASI_FSTFLAG_MTIM_NOW) wasi_iset64(i, WASI_I_MTIM, now);
  if ((a | m) != 0u) wasi_iset64(i, WASI_I_CTIM, now);  // a change of times is a status change
  return WASI_ERRNO_SUCCESS;
}
