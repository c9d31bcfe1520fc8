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
//
// All ten are one function, wasi_path_op, under thin named wrappers. GLSL inlines every call,
// so a shader calling the ten wrappers holds ten copies of the path resolution (NIR folds each
// copy down to its own operation, since `op` is a constant there); a shader that serves every
// path call from one call site of wasi_path_op (op = the signature id - WASI_PATH_OP_BASE_ID)
// holds one, which matters for compile time (lavapipe: see WASI_NO_UNROLL in wasi_layout.glsl).

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

// Operation numbers of wasi_path_op: the order of wasi_signatures() (ids 27..36).
const uint WASI_PATH_OP_BASE_ID = 27u;
const uint WASI_PATH_OP_CREATE_DIRECTORY = 0u;
const uint WASI_PATH_OP_FILESTAT_GET = 1u;
const uint WASI_PATH_OP_FILESTAT_SET_TIMES = 2u;
const uint WASI_PATH_OP_LINK = 3u;
const uint WASI_PATH_OP_OPEN = 4u;
const uint WASI_PATH_OP_READLINK = 5u;
const uint WASI_PATH_OP_REMOVE_DIRECTORY = 6u;
const uint WASI_PATH_OP_RENAME = 7u;
const uint WASI_PATH_OP_SYMLINK = 8u;
const uint WASI_PATH_OP_UNLINK_FILE = 9u;
const uint WASI_PATH_OPS = 10u;

// The right the first path's descriptor needs, and the second's (ops with two paths).
uint wasi_path_op_right(uint op) {
  uint r = WASI_RIGHT_PATH_UNLINK_FILE;
  if (op == WASI_PATH_OP_CREATE_DIRECTORY) r = WASI_RIGHT_PATH_CREATE_DIRECTORY;
  if (op == WASI_PATH_OP_FILESTAT_GET) r = WASI_RIGHT_PATH_FILESTAT_GET;
  if (op == WASI_PATH_OP_FILESTAT_SET_TIMES) r = WASI_RIGHT_PATH_FILESTAT_SET_TIMES;
  if (op == WASI_PATH_OP_LINK) r = WASI_RIGHT_PATH_LINK_SOURCE;
  if (op == WASI_PATH_OP_READLINK) r = WASI_RIGHT_PATH_READLINK;
  if (op == WASI_PATH_OP_REMOVE_DIRECTORY) r = WASI_RIGHT_PATH_REMOVE_DIRECTORY;
  if (op == WASI_PATH_OP_RENAME) r = WASI_RIGHT_PATH_RENAME_SOURCE;
  return r;
}

uint wasi_path_op_right2(uint op) {
  uint r = WASI_RIGHT_PATH_SYMLINK;
  if (op == WASI_PATH_OP_LINK) r = WASI_RIGHT_PATH_LINK_TARGET;
  if (op == WASI_PATH_OP_RENAME) r = WASI_RIGHT_PATH_RENAME_TARGET;
  return r;
}

// First-invocation checks of path_open (after its path's): the directory descriptor (a file's
// is NOTDIR), the result pointer, the flags, and that the rights are rights at all (the 30 of
// the witx are in the low word). Which of them the new descriptor may hold is decided once the
// file's type is known (wasi_path_open_finish).
uint wasi_path_open_check(uint fd, uint oflags, uvec2 rights, uvec2 inheriting, uint fdflags, uint fd_ptr) {
  uint needed = WASI_RIGHT_PATH_OPEN;
  if ((oflags & WASI_OFLAG_CREAT) != 0u) needed |= WASI_RIGHT_PATH_CREATE_FILE;
  if ((oflags & WASI_OFLAG_TRUNC) != 0u) needed |= WASI_RIGHT_PATH_FILESTAT_SET_SIZE;
  uint err = wasi_fd_check_dir(fd, needed, WASI_ERRNO_NOTDIR);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (!wasi_range_ok(fd_ptr, 4u)) return WASI_ERRNO_FAULT;
  if ((oflags & ~WASI_OFLAGS_ALL) != 0u || (fdflags & ~WASI_FDFLAGS_ALL) != 0u) return WASI_ERRNO_INVAL;
  if ((oflags & WASI_OFLAG_CREAT) != 0u && (oflags & WASI_OFLAG_DIRECTORY) != 0u) return WASI_ERRNO_INVAL;
  if (rights.y != 0u || inheriting.y != 0u || (rights.x & ~WASI_RIGHTS_ALL) != 0u ||
      (inheriting.x & ~WASI_RIGHTS_ALL) != 0u) {
    return WASI_ERRNO_NOTCAPABLE;
  }
  return WASI_ERRNO_SUCCESS;
}

// The rights a descriptor opened under a directory with inheriting rights `allowed` may hold,
// once the file's kind is known. Preview 1 lets an implementation drop the requested rights
// that do not apply to the descriptor's type (wasmtime and the original package accept
// 2**30 - 1 for a regular file; wasi-libc asks for the directory's inheriting rights, which
// hold both files' and directories'), so only the rights that apply are checked against the
// directory's inheriting rights: asking for one of those beyond them is NOTCAPABLE. Inheriting
// rights apply only to what a directory opens (files and directories), so they are checked
// for a directory alone. Returns NOTCAPABLE, or SUCCESS with the rights to install.
uint wasi_path_open_rights(uint kind, uint allowed, uvec2 rights, uvec2 inheriting, OUT(uvec2) installed) {
  uint applicable = wasi_rights_for_kind(kind);
  uint inheritable = WASI_RIGHTS_DIRECTORY | WASI_RIGHTS_REGULAR;
  if ((rights.x & applicable & ~allowed) != 0u) return WASI_ERRNO_NOTCAPABLE;
  if (kind == WASI_KIND_DIR && (inheriting.x & inheritable & ~allowed) != 0u) return WASI_ERRNO_NOTCAPABLE;
  installed = uvec2(rights.x & applicable, inheriting.x & inheritable);
  return WASI_ERRNO_SUCCESS;
}

// path_open's work once its path is resolved (r): checks, then the file created or truncated
// and the descriptor installed.
uint wasi_path_open_finish(WasiLookup r, uint dir_fd, uint oflags, uvec2 rights, uvec2 inheriting, uint fdflags,
                           uint fd_ptr, uvec2 now) {
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
  uvec2 installed = uvec2(0u, 0u);
  uint denied = wasi_path_open_rights(kind, wasi_fd_inheriting(dir_fd), rights, inheriting, installed);
  if (denied != WASI_ERRNO_SUCCESS) return denied;
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
  wasi_fd_install(slot, node, fdflags, installed.x, installed.y);
  wasi_store_u32(fd_ptr, slot);
  return WASI_ERRNO_SUCCESS;
}

// path_rename once both paths are resolved (a: the source, already checked; b: the target).
uint wasi_path_rename_finish(WasiLookup a, WasiLookup b, uvec2 now) {
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

// path_symlink once the new name is resolved (b); the target is path A, already checked.
uint wasi_path_symlink_finish(WasiLookup b, uint old_len, uvec2 now) {
  uint err = wasi_new_name_check(b);
  if (err != WASI_ERRNO_SUCCESS) return err;
  if (b.slash != 0u) return WASI_ERRNO_NOENT;
  if (old_len > wasi_get(WASI_H_QUOTA) - wasi_get(WASI_H_USED)) return WASI_ERRNO_NOSPC;
  if (!wasi_inode_available()) return WASI_ERRNO_NFILE;
  if (!wasi_dent_available()) return WASI_ERRNO_NOSPC;
  uint tbase = wasi_path_base(0u);
  uint tstart = wasi_path_start(old_len);
  uint link = wasi_inode_alloc(WASI_KIND_SYMLINK, now);
  WasiWork unbounded = wasi_work(0xFFFFFFFFu);  // 255 bytes: at most 5 blocks
  wasi_content_grow(link, old_len, unbounded);
  for (uint k = 0u; k < old_len; k++) {
    wasi_region_set_byte(wasi_block_addr(wasi_content_block(link, k)), k & 63u, wasi_region_byte(tbase, tstart + k));
  }
  wasi_dir_add(b.dir, link, wasi_path_base(1u), b.start, b.len, b.hash, now);
  return WASI_ERRNO_SUCCESS;
}

// path_readlink's copy of (a prefix of) the target, after phase 0 found the link; resumable.
uint wasi_path_readlink_copy(uint buf, uint bufused_ptr, INOUT(WasiWork) work, INOUT(uint) progress) {
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

// Every path call. Arguments by op (unused ones 0):
//   CREATE_DIRECTORY, REMOVE_DIRECTORY, UNLINK_FILE: fd, path, path_len
//   FILESTAT_GET: fd, flags, path, path_len, x0 = buf
//   FILESTAT_SET_TIMES: fd, flags, path, path_len, w0 = atim, w1 = mtim, x0 = fst_flags
//   LINK: fd = old_fd, flags = old_flags, path/path_len = old path, fd2 = new_fd, path2/path2_len
//   OPEN: fd, flags = dirflags, path, path_len, x0 = oflags, x1 = fdflags, x2 = fd_ptr,
//         w0 = rights_base, w1 = rights_inheriting
//   READLINK: fd, path, path_len, x0 = buf, x1 = buf_len, x2 = bufused_ptr
//   RENAME: fd, path/path_len = old path, fd2 = new_fd, path2/path2_len = new path
//   SYMLINK: path/path_len = the target, fd2 = fd, path2/path2_len = the new name
uint wasi_path_op(uint op, uint fd, uint flags, uint path, uint path_len, uint fd2, uint path2, uint path2_len,
                  uint x0, uint x1, uint x2, uvec2 w0, uvec2 w1, uvec2 now, uint budget, INOUT(uint) progress) {
  bool two = op == WASI_PATH_OP_LINK || op == WASI_PATH_OP_RENAME || op == WASI_PATH_OP_SYMLINK;
  if (progress == 0u) {
    uint err = wasi_path_arg_check(path, path_len);
    if (err == WASI_ERRNO_SUCCESS) {
      if (op == WASI_PATH_OP_SYMLINK) {
        if (path_len > WASI_NAME_MAX) err = WASI_ERRNO_NAMETOOLONG;
      } else if (op == WASI_PATH_OP_OPEN) {
        err = wasi_path_open_check(fd, x0, w0, w1, x1, x2);
      } else {
        err = wasi_fd_check_dir(fd, wasi_path_op_right(op), WASI_ERRNO_BADF);
      }
    }
    if (err == WASI_ERRNO_SUCCESS && two) err = wasi_path_call_check(fd2, wasi_path_op_right2(op), path2, path2_len);
    if (err == WASI_ERRNO_SUCCESS && op == WASI_PATH_OP_FILESTAT_GET && !wasi_range_ok(x0, WASI_FILESTAT_SIZE)) {
      err = WASI_ERRNO_FAULT;
    }
    if (err == WASI_ERRNO_SUCCESS && op == WASI_PATH_OP_READLINK &&
        (!wasi_range_ok(x0, x1) || !wasi_range_ok(x2, 4u))) {
      err = WASI_ERRNO_FAULT;
    }
    if (err != WASI_ERRNO_SUCCESS) return err;
    wasi_cont_reset();
  }
  WasiWork work = wasi_work(budget);
  if (!wasi_paths_in(path, path_len, path2, two ? path2_len : WASI_NONE, work)) return wasi_again(progress);
  if (op == WASI_PATH_OP_SYMLINK) {  // the target is stored as given: checked, not resolved
    uint tbase = wasi_path_base(0u);
    uint tstart = wasi_path_start(path_len);
    if (path_len == 0u) return WASI_ERRNO_NOENT;
    if (!wasi_utf8_ok(tbase, tstart, path_len)) return WASI_ERRNO_ILSEQ;
    if (wasi_region_byte(tbase, tstart) == WASI_CHAR_SLASH) return WASI_ERRNO_PERM;
  }
  // One call site of the resolution for both paths (see the top of this file).
  bool follow = (flags & WASI_LOOKUP_SYMLINK_FOLLOW) != 0u &&
                (op == WASI_PATH_OP_FILESTAT_GET || op == WASI_PATH_OP_FILESTAT_SET_TIMES || op == WASI_PATH_OP_LINK ||
                 op == WASI_PATH_OP_OPEN);
  WasiLookup a = wasi_lookup_error(WASI_ERRNO_SUCCESS);
  WasiLookup b = a;
  WASI_NO_UNROLL for (uint k = 0u; k < 2u; k++) {
    bool first = op != WASI_PATH_OP_SYMLINK && (op != WASI_PATH_OP_READLINK || wasi_cont(WASI_C_PHASE) == 0u);
    bool wanted = k == 1u ? two : first;
    if (!wanted) continue;
    WasiLookup r = wasi_resolve_arg(k, k == 0u ? path_len : path2_len, k == 0u ? fd : fd2, k == 0u && follow);
    if (k == 1u) {
      b = r;
    } else {
      a = r;
      if (op == WASI_PATH_OP_LINK || op == WASI_PATH_OP_RENAME) {  // the source first, as wasmtime
        if (a.err != WASI_ERRNO_SUCCESS) return a.err;
        if (a.node == WASI_NONE) return WASI_ERRNO_NOENT;
        if (op == WASI_PATH_OP_LINK && wasi_ikind(a.node) == WASI_KIND_DIR) return WASI_ERRNO_PERM;
        if (op == WASI_PATH_OP_RENAME && a.len == 0u) return WASI_ERRNO_BUSY;
      }
    }
  }
  uint result = WASI_ERRNO_SUCCESS;
  if (op == WASI_PATH_OP_CREATE_DIRECTORY) {
    result = wasi_new_name_check(a);
    if (result == WASI_ERRNO_SUCCESS && !wasi_inode_available()) result = WASI_ERRNO_NFILE;
    if (result == WASI_ERRNO_SUCCESS && !wasi_dent_available()) result = WASI_ERRNO_NOSPC;
    if (result == WASI_ERRNO_SUCCESS) {
      uint child = wasi_inode_alloc(WASI_KIND_DIR, now);
      wasi_dir_add(a.dir, child, wasi_path_base(0u), a.start, a.len, a.hash, now);
    }
  } else if (op == WASI_PATH_OP_FILESTAT_GET || op == WASI_PATH_OP_FILESTAT_SET_TIMES) {
    result = a.err;
    if (result == WASI_ERRNO_SUCCESS && a.node == WASI_NONE) result = WASI_ERRNO_NOENT;
    if (result == WASI_ERRNO_SUCCESS) {
      if (op == WASI_PATH_OP_FILESTAT_GET) {
        wasi_write_filestat(x0, a.node);
      } else {
        result = wasi_set_times(a.node, w0, w1, x0, now);
      }
    }
  } else if (op == WASI_PATH_OP_LINK) {
    result = wasi_new_name_check(b);
    if (result == WASI_ERRNO_SUCCESS && b.slash != 0u) result = WASI_ERRNO_NOENT;  // "name/" of a missing file
    if (result == WASI_ERRNO_SUCCESS && !wasi_dent_available()) result = WASI_ERRNO_NOSPC;
    if (result == WASI_ERRNO_SUCCESS) {
      wasi_dir_add(b.dir, a.node, wasi_path_base(1u), b.start, b.len, b.hash, now);
      wasi_iset64(a.node, WASI_I_CTIM, now);
    }
  } else if (op == WASI_PATH_OP_OPEN) {
    result = wasi_path_open_finish(a, fd, x0, w0, w1, x1, x2, now);
  } else if (op == WASI_PATH_OP_READLINK) {
    if (wasi_cont(WASI_C_PHASE) == 0u) {
      result = a.err;
      if (result == WASI_ERRNO_SUCCESS && a.node == WASI_NONE) result = WASI_ERRNO_NOENT;
      if (result == WASI_ERRNO_SUCCESS && wasi_ikind(a.node) != WASI_KIND_SYMLINK) result = WASI_ERRNO_INVAL;
      if (result == WASI_ERRNO_SUCCESS) {
        wasi_set_cont(WASI_C_NODE, a.node);
        wasi_set_cont(WASI_C_TOTAL, min(wasi_iget(a.node, WASI_I_SIZE), x1));
        wasi_set_cont(WASI_C_PHASE, 1u);
      }
    }
    if (result == WASI_ERRNO_SUCCESS) result = wasi_path_readlink_copy(x0, x2, work, progress);
  } else if (op == WASI_PATH_OP_REMOVE_DIRECTORY || op == WASI_PATH_OP_UNLINK_FILE) {
    result = a.err;
    if (result == WASI_ERRNO_SUCCESS && a.node == WASI_NONE) result = WASI_ERRNO_NOENT;
    bool dir = result == WASI_ERRNO_SUCCESS && wasi_ikind(a.node) == WASI_KIND_DIR;
    if (op == WASI_PATH_OP_REMOVE_DIRECTORY) {
      if (result == WASI_ERRNO_SUCCESS && a.len == 0u) result = WASI_ERRNO_INVAL;  // "." or ".."
      if (result == WASI_ERRNO_SUCCESS && !dir) result = WASI_ERRNO_NOTDIR;
      if (result == WASI_ERRNO_SUCCESS && wasi_iget(a.node, WASI_I_ENTRIES) != 0u) result = WASI_ERRNO_NOTEMPTY;
    } else if (dir) {
      result = WASI_ERRNO_ISDIR;
    }
    if (result == WASI_ERRNO_SUCCESS) wasi_dir_remove(a.dent, now);
  } else if (op == WASI_PATH_OP_RENAME) {
    result = wasi_path_rename_finish(a, b, now);
  } else if (op == WASI_PATH_OP_SYMLINK) {
    result = wasi_path_symlink_finish(b, path_len, now);
  } else {
    result = WASI_ERRNO_INVAL;  // not an operation
  }
  return result;
}

uint wasi_path_create_directory(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_CREATE_DIRECTORY, fd, 0u, path, path_len, 0u, 0u, 0u, 0u, 0u, 0u, uvec2(0u, 0u),
                      uvec2(0u, 0u), now, budget, progress);
}

uint wasi_path_filestat_get(uint fd, uint flags, uint path, uint path_len, uint buf, uint budget,
                            INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_FILESTAT_GET, fd, flags, path, path_len, 0u, 0u, 0u, buf, 0u, 0u, uvec2(0u, 0u),
                      uvec2(0u, 0u), uvec2(0u, 0u), budget, progress);
}

uint wasi_path_filestat_set_times(uint fd, uint flags, uint path, uint path_len, uvec2 atim, uvec2 mtim,
                                  uint fst_flags, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_FILESTAT_SET_TIMES, fd, flags, path, path_len, 0u, 0u, 0u, fst_flags, 0u, 0u, atim,
                      mtim, now, budget, progress);
}

// A new name (new_path) for the file old_path names; directories cannot be linked (PERM).
uint wasi_path_link(uint old_fd, uint old_flags, uint old_path, uint old_len, uint new_fd, uint new_path,
                    uint new_len, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_LINK, old_fd, old_flags, old_path, old_len, new_fd, new_path, new_len, 0u, 0u, 0u,
                      uvec2(0u, 0u), uvec2(0u, 0u), now, budget, progress);
}

// Opens (and with CREAT creates) a file or directory. The new descriptor's rights are the
// requested ones that apply to the file type; asking for rights beyond the directory's
// inheriting rights is NOTCAPABLE.
uint wasi_path_open(uint fd, uint dirflags, uint path, uint path_len, uint oflags, uvec2 rights, uvec2 inheriting,
                    uint fdflags, uint fd_ptr, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_OPEN, fd, dirflags, path, path_len, 0u, 0u, 0u, oflags, fdflags, fd_ptr, rights,
                      inheriting, now, budget, progress);
}

// Copies (a prefix of) a symlink's target, without a NUL; bufused = bytes copied.
uint wasi_path_readlink(uint fd, uint path, uint path_len, uint buf, uint buf_len, uint bufused_ptr, uint budget,
                        INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_READLINK, fd, 0u, path, path_len, 0u, 0u, 0u, buf, buf_len, bufused_ptr,
                      uvec2(0u, 0u), uvec2(0u, 0u), uvec2(0u, 0u), budget, progress);
}

uint wasi_path_remove_directory(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_REMOVE_DIRECTORY, fd, 0u, path, path_len, 0u, 0u, 0u, 0u, 0u, 0u, uvec2(0u, 0u),
                      uvec2(0u, 0u), now, budget, progress);
}

// Renames as POSIX rename(2): an existing target is replaced (a file by a file, a directory by
// an empty directory); renaming a name onto another name of the same inode does nothing.
uint wasi_path_rename(uint fd, uint old_path, uint old_len, uint new_fd, uint new_path, uint new_len, uvec2 now,
                      uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_RENAME, fd, 0u, old_path, old_len, new_fd, new_path, new_len, 0u, 0u, 0u,
                      uvec2(0u, 0u), uvec2(0u, 0u), now, budget, progress);
}

// A symlink new_path -> old_path. The target is stored as given (at most 255 bytes, counted in
// storage_size like file content) and resolved when followed; an absolute target is PERM.
uint wasi_path_symlink(uint old_path, uint old_len, uint fd, uint new_path, uint new_len, uvec2 now, uint budget,
                       INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_SYMLINK, 0u, 0u, old_path, old_len, fd, new_path, new_len, 0u, 0u, 0u,
                      uvec2(0u, 0u), uvec2(0u, 0u), now, budget, progress);
}

uint wasi_path_unlink_file(uint fd, uint path, uint path_len, uvec2 now, uint budget, INOUT(uint) progress) {
  return wasi_path_op(WASI_PATH_OP_UNLINK_FILE, fd, 0u, path, path_len, 0u, 0u, 0u, 0u, 0u, 0u, uvec2(0u, 0u),
                      uvec2(0u, 0u), now, budget, progress);
}
