// Scatter/gather transfers between guest iovecs and an inode's content, in budget-sized steps
// (fd_read, fd_pread, fd_write, fd_pwrite). State lives in the continuation words:
// WASI_C_I / WASI_C_OFF (current iovec and bytes done in it), WASI_C_DONE, WASI_C_TOTAL and
// WASI_C_POS (content position of the first byte).

// Phase 1: every iovec's buffer lies inside guest memory (FAULT) and the lengths add up to at
// most 2^32 - 1 (INVAL); one unit per iovec. Leaves the sum in WASI_C_TOTAL. Returns SUCCESS,
// the errno, or WASI_AGAIN when the budget ran out first.
uint wasi_iovecs_check(uint iovs, uint iovs_len, INOUT(WasiWork) work) {
  while (wasi_cont(WASI_C_I) < iovs_len) {
    if (!wasi_work_left(work)) return WASI_AGAIN;
    uint at = iovs + wasi_cont(WASI_C_I) * WASI_IOVEC_SIZE;
    uint buf = wasi_load_u32(at);
    uint len = wasi_load_u32(at + 4u);
    if (!wasi_range_ok(buf, len)) return WASI_ERRNO_FAULT;
    uint carry = 0u;
    uint total = uaddCarry(wasi_cont(WASI_C_TOTAL), len, carry);
    if (carry != 0u) return WASI_ERRNO_INVAL;
    wasi_set_cont(WASI_C_TOTAL, total);
    wasi_set_cont(WASI_C_I, wasi_cont(WASI_C_I) + 1u);
    work.used += 1u;
  }
  wasi_set_cont(WASI_C_I, 0u);
  return WASI_ERRNO_SUCCESS;
}

// Copies content bytes of inode i, from WASI_C_POS + WASI_C_DONE, into the iovecs until
// WASI_C_TOTAL bytes are done. An iovec is read again when the transfer reaches it: if bytes
// read earlier in this call overwrote it with a buffer outside memory, the transfer ends there
// (a short read), identically however the call is split. True when finished.
bool wasi_iovecs_read(uint i, uint iovs, uint iovs_len, INOUT(WasiWork) work) {
  uint start = wasi_cont(WASI_C_POS);
  while (wasi_cont(WASI_C_DONE) < wasi_cont(WASI_C_TOTAL) && wasi_cont(WASI_C_I) < iovs_len) {
    if (!wasi_work_left(work)) return false;
    uint at = iovs + wasi_cont(WASI_C_I) * WASI_IOVEC_SIZE;
    uint buf = wasi_load_u32(at);
    uint len = wasi_load_u32(at + 4u);
    uint off = wasi_cont(WASI_C_OFF);
    uint done = wasi_cont(WASI_C_DONE);
    if (!wasi_range_ok(buf, len)) {
      wasi_set_cont(WASI_C_TOTAL, done);
      break;
    }
    if (off >= len) {
      wasi_set_cont(WASI_C_I, wasi_cont(WASI_C_I) + 1u);
      wasi_set_cont(WASI_C_OFF, 0u);
      work.used += 1u;
      continue;
    }
    uint pos = start + done;
    uint in_block = pos & 63u;
    uint n = min(min(len - off, wasi_cont(WASI_C_TOTAL) - done),
                 min(WASI_BLOCK_BYTES - in_block, wasi_work_chunk(work)));
    uint base = wasi_block_addr(wasi_content_block(i, pos));
    for (uint k = 0u; k < n; k++) memory_set_byte(buf + off + k, wasi_region_byte(base, in_block + k));
    work.used += n;
    wasi_set_cont(WASI_C_OFF, off + n);
    wasi_set_cont(WASI_C_DONE, done + n);
  }
  return true;
}

// Copies the iovecs' bytes into inode i's content from WASI_C_POS + WASI_C_DONE; the content
// already covers the whole range (the caller grew it). Guest memory does not change during a
// write, so the iovecs checked in phase 1 stay valid. True when finished.
bool wasi_iovecs_write(uint i, uint iovs, uint iovs_len, INOUT(WasiWork) work) {
  uint start = wasi_cont(WASI_C_POS);
  while (wasi_cont(WASI_C_DONE) < wasi_cont(WASI_C_TOTAL) && wasi_cont(WASI_C_I) < iovs_len) {
    if (!wasi_work_left(work)) return false;
    uint at = iovs + wasi_cont(WASI_C_I) * WASI_IOVEC_SIZE;
    uint buf = wasi_load_u32(at);
    uint len = wasi_load_u32(at + 4u);
    uint off = wasi_cont(WASI_C_OFF);
    uint done = wasi_cont(WASI_C_DONE);
    if (off >= len) {
      wasi_set_cont(WASI_C_I, wasi_cont(WASI_C_I) + 1u);
      wasi_set_cont(WASI_C_OFF, 0u);
      work.used += 1u;
      continue;
    }
    uint pos = start + done;
    uint in_block = pos & 63u;
    uint n = min(min(len - off, wasi_cont(WASI_C_TOTAL) - done),
                 min(WASI_BLOCK_BYTES - in_block, wasi_work_chunk(work)));
    uint base = wasi_block_addr(wasi_content_block(i, pos));
    for (uint k = 0u; k < n; k++) wasi_region_set_byte(base, in_block + k, memory_byte(buf + off + k));
    work.used += n;
    wasi_set_cont(WASI_C_OFF, off + n);
    wasi_set_cont(WASI_C_DONE, done + n);
  }
  return true;
}

// The transfer of fd_read / fd_pread after the first invocation's checks: phase 1 checks the
// iovecs, phase 2 starts at content position `pos` (u64; beyond the end reads nothing) and
// copies. Returns SUCCESS (bytes read in WASI_C_DONE), an errno or WASI_AGAIN.
uint wasi_read_transfer(uint i, uint iovs, uint iovs_len, uvec2 pos, INOUT(WasiWork) work) {
  if (wasi_cont(WASI_C_PHASE) == 0u) {
    uint err = wasi_iovecs_check(iovs, iovs_len, work);
    if (err != WASI_ERRNO_SUCCESS) return err;
    uint size = wasi_iget(i, WASI_I_SIZE);
    uint avail = pos.y == 0u && pos.x < size ? size - pos.x : 0u;
    wasi_set_cont(WASI_C_TOTAL, min(wasi_cont(WASI_C_TOTAL), avail));
    wasi_set_cont(WASI_C_POS, pos.x);
    wasi_set_cont(WASI_C_PHASE, 1u);
  }
  return wasi_iovecs_read(i, iovs, iovs_len, work) ? WASI_ERRNO_SUCCESS : WASI_AGAIN;
}

// The transfer of fd_write / fd_pwrite: phase 1 checks the iovecs; then the position is fixed
// (`append`: the end of the content, else `pos`), the size it needs is checked against the
// quota (FBIG beyond 4 GiB, NOSPC beyond the quota; nothing has changed yet), phase 2 grows the
// content (zeros up to the position, then room for the bytes) and phase 3 copies.
uint wasi_write_transfer(uint i, uint iovs, uint iovs_len, uvec2 pos, bool append, INOUT(WasiWork) work) {
  if (wasi_cont(WASI_C_PHASE) == 0u) {
    uint err = wasi_iovecs_check(iovs, iovs_len, work);
    if (err != WASI_ERRNO_SUCCESS) return err;
    uint size = wasi_iget(i, WASI_I_SIZE);
    uvec2 at = append ? uvec2(size, 0u) : pos;
    uint total = wasi_cont(WASI_C_TOTAL);
    uvec2 end = u64_add(at, uvec2(total, 0u));
    if (total > 0u && end.y != 0u) return WASI_ERRNO_FBIG;
    if (total > 0u && !wasi_quota_allows(i, max(end.x, size))) return WASI_ERRNO_NOSPC;
    wasi_set_cont(WASI_C_POS, at.x);
    wasi_set_cont(WASI_C_TARGET, total > 0u ? max(end.x, size) : size);
    wasi_set_cont(WASI_C_PHASE, 1u);
  }
  if (wasi_cont(WASI_C_PHASE) == 1u) {
    if (!wasi_content_grow(i, wasi_cont(WASI_C_TARGET), work)) return WASI_AGAIN;
    wasi_set_cont(WASI_C_PHASE, 2u);
  }
  return wasi_iovecs_write(i, iovs, iovs_len, work) ? WASI_ERRNO_SUCCESS : WASI_AGAIN;
}
