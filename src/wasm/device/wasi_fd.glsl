// The descriptor table and its rights.
//
// max_fds records; a descriptor is open when its inode is not NONE. New descriptors take the
// lowest free number (POSIX). Each open descriptor counts in its inode's WASI_I_OPEN, so closing
// the last one of an unlinked file frees it. Rights are the spec's: an operation needs its
// right in the descriptor's base rights (else NOTCAPABLE), path_open may only ask for rights
// within the directory's inheriting rights, and fd_fdstat_set_rights may only drop rights.
// All 30 rights are in the low word, so the high word of every stored rights value is zero.

uint wasi_fd_addr(uint fd) { return wasi_get(WASI_H_FDS) + fd * WASI_FD_WORDS; }

bool wasi_fd_valid(uint fd) {
  return fd < wasi_get(WASI_H_FD_COUNT) && wasi_get(wasi_fd_addr(fd) + WASI_F_INODE) != WASI_NONE;
}

uint wasi_fd_inode(uint fd) { return wasi_get(wasi_fd_addr(fd) + WASI_F_INODE); }

uint wasi_fd_flags(uint fd) { return wasi_get(wasi_fd_addr(fd) + WASI_F_FLAGS) & WASI_FDFLAGS_ALL; }

bool wasi_fd_is_preopen(uint fd) { return (wasi_get(wasi_fd_addr(fd) + WASI_F_FLAGS) & WASI_F_PREOPEN_BIT) != 0u; }

uint wasi_fd_rights(uint fd) { return wasi_get(wasi_fd_addr(fd) + WASI_F_RIGHTS); }

uint wasi_fd_inheriting(uint fd) { return wasi_get(wasi_fd_addr(fd) + WASI_F_INHERITING); }

uvec2 wasi_fd_offset(uint fd) { return wasi_get64(wasi_fd_addr(fd) + WASI_F_OFFSET); }

void wasi_fd_set_offset(uint fd, uvec2 offset) { wasi_set64(wasi_fd_addr(fd) + WASI_F_OFFSET, offset); }

uint wasi_fd_kind(uint fd) { return wasi_ikind(wasi_fd_inode(fd)); }

// BADF for a closed descriptor, NOTCAPABLE when a right of `rights` is missing.
uint wasi_fd_check(uint fd, uint rights) {
  if (!wasi_fd_valid(fd)) return WASI_ERRNO_BADF;
  if ((wasi_fd_rights(fd) & rights) != rights) return WASI_ERRNO_NOTCAPABLE;
  return WASI_ERRNO_SUCCESS;
}

// A directory descriptor with `rights`. A regular file's descriptor gives `file_err` (wasmtime:
// NOTDIR for path_open, BADF for the other path calls), a stream's BADF.
uint wasi_fd_check_dir(uint fd, uint rights, uint file_err) {
  if (!wasi_fd_valid(fd) || wasi_fd_kind(fd) == WASI_KIND_STREAM) return WASI_ERRNO_BADF;
  if (wasi_fd_kind(fd) != WASI_KIND_DIR) return file_err;
  if ((wasi_fd_rights(fd) & rights) != rights) return WASI_ERRNO_NOTCAPABLE;
  return WASI_ERRNO_SUCCESS;
}

// The lowest closed descriptor number, or NONE (MFILE).
uint wasi_fd_free_slot() {
  uint count = wasi_get(WASI_H_FD_COUNT);
  for (uint fd = 0u; fd < count; fd++) {
    if (wasi_get(wasi_fd_addr(fd) + WASI_F_INODE) == WASI_NONE) return fd;
  }
  return WASI_NONE;
}

void wasi_fd_install(uint fd, uint inode, uint flags, uint rights, uint inheriting) {
  uint a = wasi_fd_addr(fd);
  wasi_set(a + WASI_F_INODE, inode);
  wasi_set(a + WASI_F_FLAGS, flags);
  wasi_set64(a + WASI_F_RIGHTS, uvec2(rights, 0u));
  wasi_set64(a + WASI_F_INHERITING, uvec2(inheriting, 0u));
  wasi_set64(a + WASI_F_OFFSET, uvec2(0u, 0u));
  wasi_iset(inode, WASI_I_OPEN, wasi_iget(inode, WASI_I_OPEN) + 1u);
}

// Closes an open descriptor; its inode is freed if that was the last reference.
void wasi_fd_release(uint fd) {
  uint a = wasi_fd_addr(fd);
  uint inode = wasi_get(a + WASI_F_INODE);
  WASI_NO_UNROLL for (uint k = 0u; k < WASI_FD_WORDS; k++) wasi_set(a + k, 0u);
  wasi_set(a + WASI_F_INODE, WASI_NONE);
  wasi_iset(inode, WASI_I_OPEN, wasi_iget(inode, WASI_I_OPEN) - 1u);
  wasi_inode_release(inode);
}

// Base rights a new descriptor of inode kind `kind` can hold.
uint wasi_rights_for_kind(uint kind) {
  uint r = WASI_RIGHTS_REGULAR;
  if (kind == WASI_KIND_DIR) r = WASI_RIGHTS_DIRECTORY;
  return r;
}
