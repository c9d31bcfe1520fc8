// The path_* entry points of wasi_snapshot_preview1 (10 functions).
//
// Each takes `budget` and `progress`: the first invocations copy the path arguments into the
// region (one unit per byte, resumable); the invocation that completes the copy also does the
// operation, whose work is bounded by the path bounds of wasi_path.glsl and by max_files, and
// which checks everything before it changes anything. Answers follow wasmtime where the spec
// leaves them open: unlinking a directory is ISDIR, removing "." is INVAL, renaming "." is
// BUSY, hard links to directories are PERM, absolute symlink targets are PERM, opening a
// symlink without following it is LOOP, opening a directory for writing is ISDIR, and a
// descriptor that is not a directory is NOTDIR for path_open (a file's) and BADF otherwise.

// First-invocation checks: the path inside memory and short enough, then the directory
// descriptor and its rights (BADF for a descriptor that is not a directory).
uint wasi_path_call_check(uint fd, uint rights, uint path, uint path_len) {
  uint err = wasi_path_arg_check(path, path_len);
  if (err != WASI_ERRNO_SUCCESS) return err;
  return wasi_fd_check_dir(fd, rights, WASI_ERRNO_BADF);
}

// Copies path argument A (and B when b_len is not NONE); false when the budget ran out.
bool wasi_paths_in(uint a, uint a_len, uint b, uint b_len, INOUT(WasiWork) work) {
  if (!wasi_path_copy_in(0u, a, a_len, WASI_C_COPY_A, work)) return false;
  if (b_len == WASI_NONE) return true;
  return wasi_path_copy_in(1u, b, b_len, WASI_C_COPY_B, work);
}

// A lookup for a name to be created: EXIST when something is there already (also for a
// trailing slash after an existing non-directory, and for paths ending in "." or "..").
uint wasi_new_name_check(WasiLookup r) {
  if (r.node != WASI_NONE && (r.err == WASI_ERRNO_SUCCESS || r.err == WASI_ERRNO_NOTDIR)) return WASI_ERRNO_EXIST;
  return r.err;
}

// The start every call on one path shares: on the first invocation the descriptor, rights and
// path checks, then `early` (the call's own first check, or SUCCESS), with nothing changed on an
// error; then the path copied into buffer A, resumable. Returns WASI_ERRNO_SUCCESS once the path
// is in, else the errno or WASI_AGAIN for the call to return.
uint wasi_one_path_in(uint fd, uint rights, uint path, uint path_len, uint early, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_path_call_check(fd, rights, path, path_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    if (early != WASI_ERRNO_SUCCESS) return early;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(path, path_len, 0u, WASI_NONE, work)) return wasi_again(progress);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_path_create_directory(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  uint ready = wasi_one_path_in(fd, WASI_RIGHT_PATH_CREATE_DIRECTORY, path, path_len, WASI_ERRNO_SUCCESS, budget, progress);
  if (ready != WASI_ERRNO_SUCCESS) return ready;
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, false);
  uint err = wasi_new_name_check(r);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (!wasi_inode_available()) return WASI_ERRNO_NFILE;
  if (!wasi_dent_available()) return WASI_ERRNO_NOSPC;
  uint child = wasi_inode_alloc(WASI_KIND_DIR, now);
  wasi_dir_add(r.dir, child, wasi_path_base(0u), r.start, r.len, r.hash, now);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_path_filestat_get(uint fd, uint flags, uint path, uint path_len, uint buf, uint budget,
                            INOUT(uint) progress) {
  uint ready = wasi_one_path_in(fd, WASI_RIGHT_PATH_FILESTAT_GET, path, path_len, wasi_range_ok(buf, WASI_FILESTAT_SIZE) ? WASI_ERRNO_SUCCESS : WASI_ERRNO_FAULT, budget, progress);
  if (ready != WASI_ERRNO_SUCCESS) return ready;
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, (flags & WASI_LOOKUP_SYMLINK_FOLLOW) != 0u);
  if (r.err != WASI_ERRNO_SUCCESS) return r.err;
  if (r.node == WASI_NONE) return WASI_ERRNO_NOENT;
  wasi_write_filestat(buf, r.node);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_path_filestat_set_times(uint fd, uint flags, uint path, uint path_len, uvec2 atim, uvec2 mtim,
                                  uint fst_flags, uvec2 now, uint budget, INOUT(uint) progress) {
  uint ready = wasi_one_path_in(fd, WASI_RIGHT_PATH_FILESTAT_SET_TIMES, path, path_len, WASI_ERRNO_SUCCESS, budget, progress);
  if (ready != WASI_ERRNO_SUCCESS) return ready;
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, (flags & WASI_LOOKUP_SYMLINK_FOLLOW) != 0u);
  if (r.err != WASI_ERRNO_SUCCESS) return r.err;
  if (r.node == WASI_NONE) return WASI_ERRNO_NOENT;
  return wasi_set_times(r.node, atim, mtim, fst_flags, now);
}

// A new name (new_path) for the file old_path names; directories cannot be linked (PERM).
uint wasi_path_link(uint old_fd, uint old_flags, uint old_path, uint old_len, uint new_fd, uint new_path,
                    uint new_len, uvec2 now, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_path_call_check(old_fd, WASI_RIGHT_PATH_LINK_SOURCE, old_path, old_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    err = wasi_path_call_check(new_fd, WASI_RIGHT_PATH_LINK_TARGET, new_path, new_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(old_path, old_len, new_path, new_len, work)) return wasi_again(progress);
  WasiLookup a = wasi_resolve_arg(0u, old_len, old_fd, (old_flags & WASI_LOOKUP_SYMLINK_FOLLOW) != 0u);
  if (a.err != WASI_ERRNO_SUCCESS) return a.err;
  if (a.node == WASI_NONE) return WASI_ERRNO_NOENT;
  if (wasi_ikind(a.node) == WASI_KIND_DIR) return WASI_ERRNO_PERM;
  WasiLookup b = wasi_resolve_arg(1u, new_len, new_fd, false);
  uint err = wasi_new_name_check(b);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (b.slash != 0u) return WASI_ERRNO_NOENT;  // "name/" for a file that does not exist
  if (!wasi_dent_available()) return WASI_ERRNO_NOSPC;
  wasi_dir_add(b.dir, a.node, wasi_path_base(1u), b.start, b.len, b.hash, now);
  wasi_iset64(a.node, WASI_I_CTIM, now);
  return WASI_ERRNO_SUCCESS;
}

// Opens (and with CREAT creates) a file or directory. The new descriptor's rights are the
// requested ones that apply to the file type; asking for rights beyond the directory's
// inheriting rights is NOTCAPABLE.
uint wasi_path_open(uint fd, uint dirflags, uint path, uint path_len, uint oflags, uvec2 rights, uvec2 inheriting,
                    uint fdflags, uint fd_ptr, uvec2 now, uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint needed = WASI_RIGHT_PATH_OPEN;
    if ((oflags & WASI_OFLAG_CREAT) != 0u) needed |= WASI_RIGHT_PATH_CREATE_FILE;
    if ((oflags & WASI_OFLAG_TRUNC) != 0u) needed |= WASI_RIGHT_PATH_FILESTAT_SET_SIZE;
    uint err = wasi_path_arg_check(path, path_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    err = wasi_fd_check_dir(fd, needed, WASI_ERRNO_NOTDIR);  // a file's descriptor: NOTDIR here
    if (err != WASI_ERRNO_SUCCESS) return err;
    if (!wasi_range_ok(fd_ptr, 4u)) return WASI_ERRNO_FAULT;
    if ((oflags & ~WASI_OFLAGS_ALL) != 0u || (fdflags & ~WASI_FDFLAGS_ALL) != 0u) return WASI_ERRNO_INVAL;
    if ((oflags & WASI_OFLAG_CREAT) != 0u && (oflags & WASI_OFLAG_DIRECTORY) != 0u) return WASI_ERRNO_INVAL;
    uint allowed = wasi_fd_inheriting(fd);
    if (rights.y != 0u || inheriting.y != 0u || (rights.x & ~allowed) != 0u || (inheriting.x & ~allowed) != 0u) {
      return WASI_ERRNO_NOTCAPABLE;
    }
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(path, path_len, 0u, WASI_NONE, work)) return wasi_again(progress);
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, (dirflags & WASI_LOOKUP_SYMLINK_FOLLOW) != 0u);
  if (r.err != WASI_ERRNO_SUCCESS) return r.err;
  bool create = (oflags & WASI_OFLAG_CREAT) != 0u;
  uint node = r.node;
  uint kind = WASI_KIND_FILE;
  if (node == WASI_NONE) {
    if (!create) return WASI_ERRNO_NOENT;
    if (r.slash != 0u) return WASI_ERRNO_ISDIR;
    if (!wasi_inode_available()) return WASI_ERRNO_NFILE;
    if (!wasi_dent_available()) return WASI_ERRNO_NOSPC;
  } else {
    kind = wasi_ikind(node);
    if (create && (oflags & WASI_OFLAG_EXCL) != 0u) return WASI_ERRNO_EXIST;
    if (kind == WASI_KIND_SYMLINK) return WASI_ERRNO_LOOP;
    if ((oflags & WASI_OFLAG_DIRECTORY) != 0u && kind != WASI_KIND_DIR) return WASI_ERRNO_NOTDIR;
    if (kind == WASI_KIND_DIR &&
        ((oflags & WASI_OFLAG_TRUNC) != 0u || create || (rights.x & WASI_RIGHT_FD_WRITE) != 0u)) {
      return WASI_ERRNO_ISDIR;
    }
  }
  uint slot = wasi_fd_free_slot();
  if (slot == WASI_NONE) return WASI_ERRNO_MFILE;
  // Everything is checked: from here on the call succeeds.
  if (node == WASI_NONE) {
    node = wasi_inode_alloc(WASI_KIND_FILE, now);
    wasi_dir_add(r.dir, node, wasi_path_base(0u), r.start, r.len, r.hash, now);
  } else if ((oflags & WASI_OFLAG_TRUNC) != 0u && wasi_iget(node, WASI_I_SIZE) != 0u) {
    wasi_content_shrink(node, 0u);
    wasi_touch_modified(node, now);
  }
  wasi_fd_install(slot, node, fdflags, rights.x & wasi_rights_for_kind(kind), inheriting.x);
  wasi_store_u32(fd_ptr, slot);
  return WASI_ERRNO_SUCCESS;
}

// Copies (a prefix of) a symlink's target, without a NUL; bufused = bytes copied.
uint wasi_path_readlink(uint fd, uint path, uint path_len, uint buf, uint buf_len, uint bufused_ptr, uint budget,
                        INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_path_call_check(fd, WASI_RIGHT_PATH_READLINK, path, path_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    if (!wasi_range_ok(buf, buf_len) || !wasi_range_ok(bufused_ptr, 4u)) return WASI_ERRNO_FAULT;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(path, path_len, 0u, WASI_NONE, work)) return wasi_again(progress);
  if (wasi_cont(WASI_C_PHASE) == 0u) {
    WasiLookup r = wasi_resolve_arg(0u, path_len, fd, false);
    if (r.err != WASI_ERRNO_SUCCESS) return r.err;
    if (r.node == WASI_NONE) return WASI_ERRNO_NOENT;
    if (wasi_ikind(r.node) != WASI_KIND_SYMLINK) return WASI_ERRNO_INVAL;
    wasi_set_cont(WASI_C_NODE, r.node);
    wasi_set_cont(WASI_C_TOTAL, min(wasi_iget(r.node, WASI_I_SIZE), buf_len));
    wasi_set_cont(WASI_C_PHASE, 1u);
  }
  uint node = wasi_cont(WASI_C_NODE);
  while (wasi_cont(WASI_C_DONE) < wasi_cont(WASI_C_TOTAL)) {
    if (!wasi_work_left(work)) return wasi_again(progress);
    uint done = wasi_cont(WASI_C_DONE);
    uint n = min(min(wasi_cont(WASI_C_TOTAL) - done, WASI_BLOCK_BYTES - (done & 63u)), wasi_work_chunk(work));
    uint base = wasi_block_addr(wasi_content_block(node, done));
    for (uint k = 0u; k < n; k++) memory_set_byte(buf + done + k, wasi_region_byte(base, (done & 63u) + k));
    work.used += n;
    wasi_set_cont(WASI_C_DONE, done + n);
  }
  wasi_store_u32(bufused_ptr, wasi_cont(WASI_C_DONE));
  return WASI_ERRNO_SUCCESS;
}

uint wasi_path_remove_directory(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  uint ready = wasi_one_path_in(fd, WASI_RIGHT_PATH_REMOVE_DIRECTORY, path, path_len, WASI_ERRNO_SUCCESS, budget, progress);
  if (ready != WASI_ERRNO_SUCCESS) return ready;
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, false);
  if (r.err != WASI_ERRNO_SUCCESS) return r.err;
  if (r.node == WASI_NONE) return WASI_ERRNO_NOENT;
  if (r.len == 0u) return WASI_ERRNO_INVAL;  // "." or ".."
  if (wasi_ikind(r.node) != WASI_KIND_DIR) return WASI_ERRNO_NOTDIR;
  if (wasi_iget(r.node, WASI_I_ENTRIES) != 0u) return WASI_ERRNO_NOTEMPTY;
  wasi_dir_remove(r.dent, now);
  return WASI_ERRNO_SUCCESS;
}

// Renames as POSIX rename(2): an existing target is replaced (a file by a file, a directory by
// an empty directory); renaming a name onto another name of the same inode does nothing.
uint wasi_path_rename(uint fd, uint old_path, uint old_len, uint new_fd, uint new_path, uint new_len, uvec2 now,
                      uint budget, INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_path_call_check(fd, WASI_RIGHT_PATH_RENAME_SOURCE, old_path, old_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    err = wasi_path_call_check(new_fd, WASI_RIGHT_PATH_RENAME_TARGET, new_path, new_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(old_path, old_len, new_path, new_len, work)) return wasi_again(progress);
  WasiLookup a = wasi_resolve_arg(0u, old_len, fd, false);
  if (a.err != WASI_ERRNO_SUCCESS) return a.err;
  if (a.node == WASI_NONE) return WASI_ERRNO_NOENT;
  if (a.len == 0u) return WASI_ERRNO_BUSY;
  WasiLookup b = wasi_resolve_arg(1u, new_len, new_fd, false);
  if (b.err != WASI_ERRNO_SUCCESS) return b.err;
  if (b.len == 0u) return WASI_ERRNO_BUSY;
  uint src = a.node;
  uint dst = b.node;
  bool src_dir = wasi_ikind(src) == WASI_KIND_DIR;
  if (!src_dir && b.slash != 0u) return WASI_ERRNO_NOTDIR;
  if (dst == src) return WASI_ERRNO_SUCCESS;
  if (src_dir) {
    if (dst != WASI_NONE && wasi_ikind(dst) != WASI_KIND_DIR) return WASI_ERRNO_NOTDIR;
    if (dst != WASI_NONE && wasi_iget(dst, WASI_I_ENTRIES) != 0u) return WASI_ERRNO_NOTEMPTY;
    if (wasi_dir_within(b.dir, src)) return WASI_ERRNO_INVAL;  // into itself or below
  } else if (dst != WASI_NONE && wasi_ikind(dst) == WASI_KIND_DIR) {
    return WASI_ERRNO_ISDIR;
  }
  if (dst != WASI_NONE) wasi_dir_remove(b.dent, now);
  wasi_dir_move(a.dent, b.dir, wasi_path_base(1u), b.start, b.len, b.hash, now);
  return WASI_ERRNO_SUCCESS;
}

// A symlink new_path -> old_path. The target is stored as given (at most 255 bytes, counted in
// storage_size like file content) and resolved when followed; an absolute target is PERM.
uint wasi_path_symlink(uint old_path, uint old_len, uint fd, uint new_path, uint new_len, uvec2 now, uint budget,
                       INOUT(uint) progress) {
  if (progress == 0u) {
    uint err = wasi_path_arg_check(old_path, old_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    if (old_len > WASI_NAME_MAX) return WASI_ERRNO_NAMETOOLONG;
    err = wasi_path_call_check(fd, WASI_RIGHT_PATH_SYMLINK, new_path, new_len);
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(old_path, old_len, new_path, new_len, work)) return wasi_again(progress);
  uint tbase = wasi_path_base(0u);
  uint tstart = wasi_path_start(old_len);
  if (old_len == 0u) return WASI_ERRNO_NOENT;
  if (!wasi_utf8_ok(tbase, tstart, old_len)) return WASI_ERRNO_ILSEQ;
  if (wasi_region_byte(tbase, tstart) == WASI_CHAR_SLASH) return WASI_ERRNO_PERM;
  WasiLookup b = wasi_resolve_arg(1u, new_len, fd, false);
  uint err = wasi_new_name_check(b);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (b.slash != 0u) return WASI_ERRNO_NOENT;
  if (old_len > wasi_get(WASI_H_QUOTA) - wasi_get(WASI_H_USED)) return WASI_ERRNO_NOSPC;
  if (!wasi_inode_available()) return WASI_ERRNO_NFILE;
  if (!wasi_dent_available()) return WASI_ERRNO_NOSPC;
  uint link = wasi_inode_alloc(WASI_KIND_SYMLINK, now);
  WasiWork unbounded = wasi_work(0xFFFFFFFFu);  // 255 bytes: at most 5 blocks
  wasi_content_grow(link, old_len, unbounded);
  for (uint k = 0u; k < old_len; k++) {
    wasi_region_set_byte(wasi_block_addr(wasi_content_block(link, k)), k & 63u, wasi_region_byte(tbase, tstart + k));
  }
  wasi_dir_add(b.dir, link, wasi_path_base(1u), b.start, b.len, b.hash, now);
  return WASI_ERRNO_SUCCESS;
}

uint wasi_path_unlink_file(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  uint ready = wasi_one_path_in(fd, WASI_RIGHT_PATH_UNLINK_FILE, path, path_len, WASI_ERRNO_SUCCESS, budget, progress);
  if (ready != WASI_ERRNO_SUCCESS) return ready;
  WasiLookup r = wasi_resolve_arg(0u, path_len, fd, false);
  if (r.err != WASI_ERRNO_SUCCESS) return r.err;
  if (r.node == WASI_NONE) return WASI_ERRNO_NOENT;
  if (wasi_ikind(r.node) == WASI_KIND_DIR) return WASI_ERRNO_ISDIR;
  wasi_dir_remove(r.dent, now);
  return WASI_ERRNO_SUCCESS;
}
