// The fd_* entry points of wasi_snapshot_preview1 (21 functions).
//
// Convention of every entry point: `uint wasi_<name>(<the call's wasm parameters: i32 as uint,
// i64 as uvec2 (x = low word)>[, uvec2 now][, uint budget, INOUT(uint) progress])` returns the
// errno, or WASI_AGAIN (resumable calls, see wasi_calls_common.glsl), and writes its results
// to guest memory as the ABI does. `now` is the virtual clock (ns) for calls that set
// timestamps. A pointer range outside guest memory gives FAULT and changes nothing.
// Where the spec leaves the answer open, these follow wasmtime: byte operations on a directory
// descriptor give BADF, seeking and positioned I/O on stdio give SPIPE, and fd_pwrite on an
// append-mode descriptor appends (as Linux does).

// ---- Byte transfers -------------------------------------------------------------------------

// Checks shared by the four transfers: a descriptor of a file or stream (BADF for directories),
// `positioned` ones only on files (SPIPE), then the rights; the iovec array and the result
// pointer inside memory.
uint wasi_transfer_check(uint fd, uint rights, bool positioned, uint iovs, uint iovs_len, uint result_ptr) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  uint kind = wasi_fd_kind(fd);
  if (kind == WASI_KIND_DIR) return WASI_ERRNO_BADF;
  if (positioned && kind == WASI_KIND_STREAM) return WASI_ERRNO_SPIPE;
  if ((wasi_fd_rights(fd) & rights) != rights) return WASI_ERRNO_NOTCAPABLE;
  if (!wasi_array_ok(iovs, iovs_len, WASI_IOVEC_SIZE) || !wasi_range_ok(result_ptr, 4u)) return WASI_ERRNO_FAULT;
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_read(uint fd, uint iovs, uint iovs_len, uint nread_ptr, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_transfer_check(fd, WASI_RIGHT_FD_READ, false, iovs, iovs_len, nread_ptr);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint err = wasi_read_transfer(wasi_fd_inode(fd), iovs, iovs_len, wasi_fd_offset(fd), work);
  if (err == WASI_AGAIN) return wasi_again(progress);
  if (err != WASI_ERRNO_SUCCESS) return err;
  uint done = wasi_cont(WASI_C_DONE);
  wasi_fd_set_offset(fd, u64_add(wasi_fd_offset(fd), uvec2(done, 0u)));
  wasi_store_u32(nread_ptr, done);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_pread(uint fd, uint iovs, uint iovs_len, uvec2 offset, uint nread_ptr, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_transfer_check(fd, WASI_RIGHT_FD_READ | WASI_RIGHT_FD_SEEK, true, iovs, iovs_len, nread_ptr);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint err = wasi_read_transfer(wasi_fd_inode(fd), iovs, iovs_len, offset, work);
  if (err == WASI_AGAIN) return wasi_again(progress);
  if (err != WASI_ERRNO_SUCCESS) return err;
  wasi_store_u32(nread_ptr, wasi_cont(WASI_C_DONE));
  return WASI_ERRNO_SUCCESS;
}

// Writes to stdout / stderr append to the captured stream.
uint wasi_fd_write(uint fd, uint iovs, uint iovs_len, uint nwritten_ptr, uvec2 now, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_transfer_check(fd, WASI_RIGHT_FD_WRITE, false, iovs, iovs_len, nwritten_ptr);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint i = wasi_fd_inode(fd);
  bool stream = wasi_ikind(i) == WASI_KIND_STREAM;
  bool append = stream || (wasi_fd_flags(fd) & WASI_FDFLAG_APPEND) != 0u;
  uint err = wasi_write_transfer(i, iovs, iovs_len, wasi_fd_offset(fd), append, work);
  if (err == WASI_AGAIN) return wasi_again(progress);
  if (err != WASI_ERRNO_SUCCESS) return err;
  uint done = wasi_cont(WASI_C_DONE);
  if (!stream) wasi_fd_set_offset(fd, uvec2(wasi_cont(WASI_C_POS) + done, 0u));
  if (done > 0u) wasi_touch_modified(i, now);
  wasi_store_u32(nwritten_ptr, done);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_pwrite(uint fd, uint iovs, uint iovs_len, uvec2 offset, uint nwritten_ptr, uvec2 now, uint budget,
                    INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_transfer_check(fd, WASI_RIGHT_FD_WRITE | WASI_RIGHT_FD_SEEK, true, iovs, iovs_len, nwritten_ptr);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint i = wasi_fd_inode(fd);
  bool append = (wasi_fd_flags(fd) & WASI_FDFLAG_APPEND) != 0u;
  uint err = wasi_write_transfer(i, iovs, iovs_len, offset, append, work);
  if (err == WASI_AGAIN) return wasi_again(progress);
  if (err != WASI_ERRNO_SUCCESS) return err;
  uint done = wasi_cont(WASI_C_DONE);
  if (done > 0u) wasi_touch_modified(i, now);
  wasi_store_u32(nwritten_ptr, done);
  return WASI_ERRNO_SUCCESS;
}

// ---- Positions and sizes --------------------------------------------------------------------

// A regular file's descriptor: BADF for directories, `stream_err` for stdio.
uint wasi_file_fd_check(uint fd, uint rights, uint stream_err) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  uint kind = wasi_fd_kind(fd);
  if (kind == WASI_KIND_DIR) return WASI_ERRNO_BADF;
  if (kind == WASI_KIND_STREAM) return stream_err;
  if ((wasi_fd_rights(fd) & rights) != rights) return WASI_ERRNO_NOTCAPABLE;
  return WASI_ERRNO_SUCCESS;
}

// whence SET / CUR / END; a result below 0 or above 2^63 - 1 is INVAL. Seeking past the end
// is allowed (reads there return nothing, writes fill the gap with zeros).
uint wasi_fd_seek(uint fd, uvec2 offset, uint whence, uint newoffset_ptr) {
  bool tell_only = (offset.x | offset.y) == 0u && whence == WASI_WHENCE_CUR;
  uint rights = tell_only ? WASI_RIGHT_FD_TELL : (WASI_RIGHT_FD_SEEK | WASI_RIGHT_FD_TELL);
  uint err = wasi_file_fd_check(fd, rights, WASI_ERRNO_SPIPE);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (whence > WASI_WHENCE_END) return WASI_ERRNO_INVAL;
  if (!wasi_range_ok(newoffset_ptr, 8u)) return WASI_ERRNO_FAULT;
  uvec2 base = uvec2(0u, 0u);
  if (whence == WASI_WHENCE_CUR) base = wasi_fd_offset(fd);
  if (whence == WASI_WHENCE_END) base = uvec2(wasi_iget(wasi_fd_inode(fd), WASI_I_SIZE), 0u);
  // base < 2^63 and offset in [-2^63, 2^63), so the true sum lies in [-2^63, 2^64 - 2) and it
  // is outside [0, 2^63) exactly when the top bit of the wrapped sum is set.
  uvec2 result = u64_add(base, offset);
  if ((result.y & 0x80000000u) != 0u) return WASI_ERRNO_INVAL;
  wasi_fd_set_offset(fd, result);
  wasi_store_u64(newoffset_ptr, result);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_tell(uint fd, uint offset_ptr) {
  uint err = wasi_file_fd_check(fd, WASI_RIGHT_FD_TELL, WASI_ERRNO_SPIPE);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (!wasi_range_ok(offset_ptr, 8u)) return WASI_ERRNO_FAULT;
  wasi_store_u64(offset_ptr, wasi_fd_offset(fd));
  return WASI_ERRNO_SUCCESS;
}

// Grows (zeros, budgeted) or shrinks (constant work, storage reclaimed at once) a file.
uint wasi_fd_filestat_set_size(uint fd, uvec2 size, uvec2 now, uint budget, INOUT(uint) progress) {
  uint i = wasi_fd_valid(fd) ? wasi_fd_inode(fd) : WASI_NONE;
  if (progress == 0u) {
    uint err = wasi_file_fd_check(fd, WASI_RIGHT_FD_FILESTAT_SET_SIZE, WASI_ERRNO_BADF);
    if (err != WASI_ERRNO_SUCCESS) return err;
    if (size.y != 0u) return WASI_ERRNO_FBIG;
    if (!wasi_quota_allows(i, size.x)) return WASI_ERRNO_NOSPC;
    wasi_cont_reset();
    wasi_set_cont(WASI_C_TARGET, wasi_iget(i, WASI_I_SIZE));  // the size before
    wasi_content_shrink(i, size.x);
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_content_grow(i, size.x, work)) return wasi_again(progress);
  if (wasi_cont(WASI_C_TARGET) != size.x) wasi_touch_modified(i, now);
  return WASI_ERRNO_SUCCESS;
}

// Makes bytes [offset, offset + len) part of the file (it only ever grows).
uint wasi_fd_allocate(uint fd, uvec2 offset, uvec2 len, uvec2 now, uint budget, INOUT(uint) progress) {
  uint i = wasi_fd_valid(fd) ? wasi_fd_inode(fd) : WASI_NONE;
  uvec2 end = u64_add(offset, len);
  if (progress == 0u) {
    uint err = wasi_file_fd_check(fd, WASI_RIGHT_FD_ALLOCATE, WASI_ERRNO_BADF);
    if (err != WASI_ERRNO_SUCCESS) return err;
    if ((len.x | len.y) == 0u) return WASI_ERRNO_INVAL;
    if (end.y != 0u || u64_lt(end, offset)) return WASI_ERRNO_FBIG;
    if (!wasi_quota_allows(i, end.x)) return WASI_ERRNO_NOSPC;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint size = wasi_iget(i, WASI_I_SIZE);
  if (end.x > size) {
    if (!wasi_content_grow(i, end.x, work)) return wasi_again(progress);
    wasi_touch_modified(i, now);
  }
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_advise(uint fd, uvec2 offset, uvec2 len, uint advice) {
  uint err = wasi_file_fd_check(fd, WASI_RIGHT_FD_ADVISE, WASI_ERRNO_BADF);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (advice > WASI_ADVICE_MAX) return WASI_ERRNO_INVAL;
  if (u64_lt(u64_add(offset, len), offset)) return WASI_ERRNO_INVAL;
  return WASI_ERRNO_SUCCESS;
}

// The in-memory file system has nothing to flush: success on every open descriptor that has
// the right.
uint wasi_fd_sync(uint fd) { return wasi_fd_check(fd, WASI_RIGHT_FD_SYNC); }

uint wasi_fd_datasync(uint fd) { return wasi_fd_check(fd, WASI_RIGHT_FD_DATASYNC); }

// ---- Descriptor table -----------------------------------------------------------------------

uint wasi_fd_close(uint fd) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  wasi_fd_release(fd);
  return WASI_ERRNO_SUCCESS;
}

// Moves descriptor `from` to number `to`, closing what `to` was; both must be open (BADF).
uint wasi_fd_renumber(uint from, uint to) {
  if (!wasi_fd_valid(from) || !wasi_fd_valid(to)) return WASI_ERRNO_BADF;
  if (from == to) return WASI_ERRNO_SUCCESS;
  wasi_fd_release(to);
  uint a = wasi_fd_addr(from);
  uint b = wasi_fd_addr(to);
  WASI_NO_UNROLL for (uint k = 0u; k < WASI_FD_WORDS; k++) {
    wasi_set(b + k, wasi_get(a + k));
    wasi_set(a + k, 0u);
  }
  wasi_set(a + WASI_F_INODE, WASI_NONE);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_fdstat_get(uint fd, uint buf) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  if (!wasi_range_ok(buf, WASI_FDSTAT_SIZE)) return WASI_ERRNO_FAULT;
  wasi_store_u8(buf, wasi_filetype(wasi_fd_inode(fd)));
  wasi_store_u8(buf + 1u, 0u);
  wasi_store_u16(buf + 2u, wasi_fd_flags(fd));
  wasi_store_zeros(buf + 4u, 4u);
  wasi_store_u64(buf + 8u, uvec2(wasi_fd_rights(fd), 0u));
  wasi_store_u64(buf + 16u, uvec2(wasi_fd_inheriting(fd), 0u));
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_fdstat_set_flags(uint fd, uint flags) {
  uint err = wasi_fd_check(fd, WASI_RIGHT_FD_FDSTAT_SET_FLAGS);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if ((flags & ~WASI_FDFLAGS_ALL) != 0u) return WASI_ERRNO_INVAL;
  uint a = wasi_fd_addr(fd) + WASI_F_FLAGS;
  wasi_set(a, (wasi_get(a) & WASI_F_PREOPEN_BIT) | flags);
  return WASI_ERRNO_SUCCESS;
}

// Rights may only shrink (NOTCAPABLE for any right not held).
uint wasi_fd_fdstat_set_rights(uint fd, uvec2 rights, uvec2 inheriting) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  if (rights.y != 0u || inheriting.y != 0u || (rights.x & ~wasi_fd_rights(fd)) != 0u ||
      (inheriting.x & ~wasi_fd_inheriting(fd)) != 0u) {
    return WASI_ERRNO_NOTCAPABLE;
  }
  uint a = wasi_fd_addr(fd);
  wasi_set(a + WASI_F_RIGHTS, rights.x);
  wasi_set(a + WASI_F_INHERITING, inheriting.x);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_filestat_get(uint fd, uint buf) {
  uint err = wasi_fd_check(fd, WASI_RIGHT_FD_FILESTAT_GET);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (!wasi_range_ok(buf, WASI_FILESTAT_SIZE)) return WASI_ERRNO_FAULT;
  wasi_write_filestat(buf, wasi_fd_inode(fd));
  return WASI_ERRNO_SUCCESS;
}

uint wasi_fd_filestat_set_times(uint fd, uvec2 atim, uvec2 mtim, uint fst_flags, uvec2 now) {
  uint err = wasi_fd_check(fd, WASI_RIGHT_FD_FILESTAT_SET_TIMES);
  if (err != WASI_ERRNO_SUCCESS) return err;
  return wasi_set_times(wasi_fd_inode(fd), atim, mtim, fst_flags, now);
}

// ---- Preopens -------------------------------------------------------------------------------

uint wasi_fd_prestat_get(uint fd, uint buf) {
  if (!wasi_fd_valid(fd) || !wasi_fd_is_preopen(fd)) return WASI_ERRNO_BADF;
  if (!wasi_range_ok(buf, WASI_PRESTAT_SIZE)) return WASI_ERRNO_FAULT;
  wasi_store_u32(buf, 0u);  // tag 0 (directory) and padding
  wasi_store_u32(buf + 4u, wasi_get(WASI_H_PREOPEN_LEN));
  return WASI_ERRNO_SUCCESS;
}

// Copies the preopen name (no NUL); a buffer shorter than the name is NAMETOOLONG (wasmtime).
uint wasi_fd_prestat_dir_name(uint fd, uint path, uint path_len, uint budget, INOUT(uint) progress) {
  uint len = wasi_get(WASI_H_PREOPEN_LEN);
  if (progress == 0u) {
    if (!wasi_fd_valid(fd) || !wasi_fd_is_preopen(fd)) return WASI_ERRNO_BADF;
    if (path_len < len) return WASI_ERRNO_NAMETOOLONG;
    if (!wasi_range_ok(path, len)) return WASI_ERRNO_FAULT;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  uint done = wasi_cont(WASI_C_DONE);
  uint n = min(len - done, wasi_work_chunk(work));
  uint base = wasi_get(WASI_H_PREOPEN);
  for (uint k = 0u; k < n; k++) memory_set_byte(path + done + k, wasi_region_byte(base, done + k));
  wasi_set_cont(WASI_C_DONE, done + n);
  if (done + n < len) return wasi_again(progress);
  return WASI_ERRNO_SUCCESS;
}

// ---- Directory listing ----------------------------------------------------------------------

// Byte k of the dirent record (24-byte header, then the name) for cookie position c of
// directory `dir` whose entry is dentry d (NONE for "." (c = 0) and ".." (c = 1)).
uint wasi_dirent_byte(uint dir, uint c, uint d, uint k) {
  uint ino = 0u;
  uint namelen = 0u;
  uint type = WASI_FILETYPE_DIRECTORY;
  if (c == 0u) {
    ino = dir + 1u;
    namelen = 1u;
  } else if (c == 1u) {
    ino = wasi_dir_parent(dir) + 1u;
    namelen = 2u;
  } else {
    uint child = wasi_dget(d, WASI_D_INODE);
    ino = child + 1u;
    namelen = wasi_dget(d, WASI_D_NAMELEN);
    type = wasi_filetype(child);
  }
  uint v = 0u;
  if (k < 8u) {
    v = k < 4u ? (((c + 1u) >> (8u * k)) & 0xFFu) : 0u;  // d_next: the next cookie
  } else if (k < 16u) {
    v = k < 12u ? ((ino >> (8u * (k - 8u))) & 0xFFu) : 0u;
  } else if (k < 20u) {
    v = (namelen >> (8u * (k - 16u))) & 0xFFu;
  } else if (k == 20u) {
    v = type;
  } else if (k >= WASI_DIRENT_SIZE) {
    v = c < 2u ? WASI_CHAR_DOT : wasi_dent_name_byte(d, k - WASI_DIRENT_SIZE);
  }
  return v;
}

// Lists entries from `cookie`: "." (cookie 0), ".." (1), then the directory's names in dentry
// slot order (cookie 2 + slot); each entry's d_next is the cookie after it. The buffer is
// filled completely when more entries remain (the last one truncated, as the spec allows), so
// bufused < buf_len means the end was reached. Budget: one unit per slot examined and per byte.
uint wasi_fd_readdir(uint fd, uint buf, uint buf_len, uvec2 cookie, uint bufused_ptr, uint budget,
                     INOUT(uint) progress) {
  if (progress == 0u) {
    if (!wasi_fd_valid(fd) || wasi_fd_kind(fd) != WASI_KIND_DIR) return WASI_ERRNO_BADF;
    if ((wasi_fd_rights(fd) & WASI_RIGHT_FD_READDIR) == 0u) return WASI_ERRNO_NOTCAPABLE;
    if (!wasi_range_ok(buf, buf_len) || !wasi_range_ok(bufused_ptr, 4u)) return WASI_ERRNO_FAULT;
    wasi_cont_reset();
    uint slots = wasi_get(WASI_H_DENT_COUNT);
    wasi_set_cont(WASI_C_I, cookie.y != 0u || cookie.x > slots + 2u ? slots + 2u : cookie.x);
  }
  WasiWork work = wasi_work(budget);
  uint dir = wasi_fd_inode(fd);
  uint slots = wasi_get(WASI_H_DENT_COUNT);
  while (wasi_cont(WASI_C_DONE) < buf_len && wasi_cont(WASI_C_I) < slots + 2u) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uint c = wasi_cont(WASI_C_I);
    uint d = WASI_NONE;
    if (c >= 2u) {
      d = c - 2u;
      if (wasi_dget(d, WASI_D_PARENT) != dir) {  // another directory's slot, or a free one
        wasi_set_cont(WASI_C_I, c + 1u);
        work.used += 1u;
        continue;
      }
    }
    uint namelen = c == 0u ? 1u : (c == 1u ? 2u : wasi_dget(d, WASI_D_NAMELEN));
    uint size = WASI_DIRENT_SIZE + namelen;
    uint off = wasi_cont(WASI_C_OFF);
    uint done = wasi_cont(WASI_C_DONE);
    uint n = min(min(size - off, buf_len - done), wasi_work_chunk(work));
    for (uint k = 0u; k < n; k++) memory_set_byte(buf + done + k, wasi_dirent_byte(dir, c, d, off + k));
    work.used += n;
    wasi_set_cont(WASI_C_DONE, done + n);
    if (off + n == size) {
      wasi_set_cont(WASI_C_I, c + 1u);
      wasi_set_cont(WASI_C_OFF, 0u);
    } else {
      wasi_set_cont(WASI_C_OFF, off + n);
    }
  }
  wasi_store_u32(bufused_ptr, wasi_cont(WASI_C_DONE));
  return WASI_ERRNO_SUCCESS;
}
