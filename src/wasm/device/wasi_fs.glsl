// Inodes and directories of the WASI file system.
//
// Inodes: a fixed table of max_files records with a free list. Inodes 0..3 (stdin, stdout,
// stderr, root) are reserved and never freed. Any other inode is freed, with its content, when
// it has neither a name (WASI_I_NLINK) nor an open descriptor (WASI_I_OPEN): so an open
// descriptor or another hard link keeps an unlinked file alive, and its storage is reclaimed at
// the last close or unlink.
//
// Directories: every name is a dentry (parent directory, inode, name) in a fixed table of
// max_files records, found through a hash table of chains keyed by (parent, name). Lookups cost
// one hash over the name plus the chain; the chain is bounded by max_files (a full scan in the
// worst case, a handful of entries normally). fd_readdir lists a directory in dentry-slot order,
// which is what makes its cookies stable while entries come and go.

// ---- Inodes ---------------------------------------------------------------------------------

uvec2 wasi_iget64(uint i, uint field) { return wasi_get64(wasi_inode_addr(i) + field); }

void wasi_iset64(uint i, uint field, uvec2 v) { wasi_set64(wasi_inode_addr(i) + field, v); }

bool wasi_inode_available() { return wasi_get(WASI_H_INODE_FREE) != WASI_NONE; }

// A new inode of `kind` (the caller checked wasi_inode_available), all times = now.
uint wasi_inode_alloc(uint kind, uvec2 now) {
  uint i = wasi_get(WASI_H_INODE_FREE);
  wasi_set(WASI_H_INODE_FREE, wasi_iget(i, WASI_I_LINK));
  WASI_NO_UNROLL for (uint f = 0u; f < WASI_I_WORDS; f++) wasi_iset(i, f, 0u);
  wasi_iset(i, WASI_I_KIND, kind);
  wasi_iset(i, WASI_I_DENT, WASI_NONE);
  wasi_iset64(i, WASI_I_ATIM, now);
  wasi_iset64(i, WASI_I_MTIM, now);
  wasi_iset64(i, WASI_I_CTIM, now);
  wasi_set(WASI_H_INODES_USED, wasi_get(WASI_H_INODES_USED) + 1u);
  return i;
}

// Frees inode i (and its content) once nothing refers to it.
void wasi_inode_release(uint i) {
  if (i < WASI_RESERVED_INODES || wasi_iget(i, WASI_I_NLINK) != 0u || wasi_iget(i, WASI_I_OPEN) != 0u) return;
  if (wasi_iget(i, WASI_I_KIND) == WASI_KIND_FREE) return;
  wasi_content_free(i);
  wasi_iset(i, WASI_I_KIND, WASI_KIND_FREE);
  wasi_iset(i, WASI_I_LINK, wasi_get(WASI_H_INODE_FREE));
  wasi_set(WASI_H_INODE_FREE, i);
  wasi_set(WASI_H_INODES_USED, wasi_get(WASI_H_INODES_USED) - 1u);
}

uint wasi_ikind(uint i) { return wasi_iget(i, WASI_I_KIND); }

bool wasi_is_dir(uint i) { return i != WASI_NONE && wasi_ikind(i) == WASI_KIND_DIR; }

uint wasi_filetype_of_kind(uint kind) {
  uint t = WASI_FILETYPE_UNKNOWN;  // streams: what wasmtime reports for captured stdio (not a tty)
  if (kind == WASI_KIND_FILE) t = WASI_FILETYPE_REGULAR_FILE;
  if (kind == WASI_KIND_DIR) t = WASI_FILETYPE_DIRECTORY;
  if (kind == WASI_KIND_SYMLINK) t = WASI_FILETYPE_SYMBOLIC_LINK;
  return t;
}

uint wasi_filetype(uint i) { return wasi_filetype_of_kind(wasi_ikind(i)); }

// st_nlink: names for files and symlinks; 2 + subdirectories for a linked directory (its name
// and "."), 0 once removed.
uint wasi_stat_nlink(uint i) {
  uint n = wasi_iget(i, WASI_I_NLINK);
  if (wasi_ikind(i) == WASI_KIND_DIR && n != 0u) n = 2u + wasi_iget(i, WASI_I_SUBDIRS);
  return n;
}

// The parent of directory i (the root's parent is the root).
uint wasi_dir_parent(uint i) { return wasi_iget(i, WASI_I_LINK); }

// mtime and ctime = now (content or entries changed).
void wasi_touch_modified(uint i, uvec2 now) {
  wasi_iset64(i, WASI_I_MTIM, now);
  wasi_iset64(i, WASI_I_CTIM, now);
}

// ---- Dentries -------------------------------------------------------------------------------

uint wasi_dent_addr(uint d) { return wasi_get(WASI_H_DENTS) + d * WASI_D_WORDS; }

uint wasi_dget(uint d, uint field) { return wasi_get(wasi_dent_addr(d) + field); }

void wasi_dset(uint d, uint field, uint v) { wasi_set(wasi_dent_addr(d) + field, v); }

uint wasi_dent_name_byte(uint d, uint k) { return wasi_region_byte(wasi_dent_addr(d) + WASI_D_NAME, k); }

bool wasi_dent_available() { return wasi_get(WASI_H_DENT_FREE) != WASI_NONE; }

// FNV-1a over the name's bytes (len <= 255, at region words `base`, from byte `start`), mixed
// with the parent directory.
uint wasi_name_hash(uint parent, uint base, uint start, uint len) {
  uint h = 0x811C9DC5u;
  for (uint k = 0u; k < len; k++) h = (h ^ wasi_region_byte(base, start + k)) * 0x01000193u;
  h ^= (parent + 1u) * 0x9E3779B1u;
  return h ^ (h >> 16u);
}

uint wasi_bucket_addr(uint hash) { return wasi_get(WASI_H_BUCKETS) + (hash & wasi_get(WASI_H_BUCKET_MASK)); }

bool wasi_dent_name_equals(uint d, uint base, uint start, uint len) {
  if (wasi_dget(d, WASI_D_NAMELEN) != len) return false;
  for (uint k = 0u; k < len; k++) {
    if (wasi_dent_name_byte(d, k) != wasi_region_byte(base, start + k)) return false;
  }
  return true;
}

// The dentry of `name` in directory `dir`, or NONE.
uint wasi_dir_lookup(uint dir, uint base, uint start, uint len, uint hash) {
  uint d = wasi_get(wasi_bucket_addr(hash));
  uint guard = wasi_get(WASI_H_DENT_COUNT);
  while (d != WASI_NONE && guard > 0u) {
    if (wasi_dget(d, WASI_D_HASH) == hash && wasi_dget(d, WASI_D_PARENT) == dir &&
        wasi_dent_name_equals(d, base, start, len)) {
      return d;
    }
    d = wasi_dget(d, WASI_D_NEXT);
    guard--;
  }
  return WASI_NONE;
}

void wasi_dent_hash_insert(uint d) {
  uint bucket = wasi_bucket_addr(wasi_dget(d, WASI_D_HASH));
  wasi_dset(d, WASI_D_NEXT, wasi_get(bucket));
  wasi_set(bucket, d);
}

void wasi_dent_hash_remove(uint d) {
  uint bucket = wasi_bucket_addr(wasi_dget(d, WASI_D_HASH));
  uint at = wasi_get(bucket);
  if (at == d) {
    wasi_set(bucket, wasi_dget(d, WASI_D_NEXT));
    return;
  }
  uint guard = wasi_get(WASI_H_DENT_COUNT);
  while (at != WASI_NONE && guard > 0u) {
    uint next = wasi_dget(at, WASI_D_NEXT);
    if (next == d) {
      wasi_dset(at, WASI_D_NEXT, wasi_dget(d, WASI_D_NEXT));
      return;
    }
    at = next;
    guard--;
  }
}

void wasi_dent_set_name(uint d, uint base, uint start, uint len) {
  uint name = wasi_dent_addr(d) + WASI_D_NAME;
  WASI_NO_UNROLL for (uint w = 0u; w < 64u; w++) wasi_set(name + w, 0u);
  for (uint k = 0u; k < len; k++) wasi_region_set_byte(name, k, wasi_region_byte(base, start + k));
  wasi_dset(d, WASI_D_NAMELEN, len);
}

// Directory bookkeeping when `child` gains (delta = +1) or loses (-1 as 0xFFFFFFFF) a name in dir.
void wasi_dir_count(uint dir, uint child, uint delta) {
  wasi_iset(dir, WASI_I_ENTRIES, wasi_iget(dir, WASI_I_ENTRIES) + delta);
  if (wasi_ikind(child) == WASI_KIND_DIR) wasi_iset(dir, WASI_I_SUBDIRS, wasi_iget(dir, WASI_I_SUBDIRS) + delta);
}

// Adds the name (hash from wasi_name_hash(dir, ...)) for `child` to `dir`; the caller checked
// wasi_dent_available and that the name is new. Counts the link (directories: sets their
// parent and dentry). Returns the dentry.
uint wasi_dir_add(uint dir, uint child, uint base, uint start, uint len, uint hash, uvec2 now) {
  uint d = wasi_get(WASI_H_DENT_FREE);
  wasi_set(WASI_H_DENT_FREE, wasi_dget(d, WASI_D_NEXT));
  wasi_set(WASI_H_DENTS_USED, wasi_get(WASI_H_DENTS_USED) + 1u);
  wasi_dset(d, WASI_D_PARENT, dir);
  wasi_dset(d, WASI_D_INODE, child);
  wasi_dset(d, WASI_D_HASH, hash);
  wasi_dent_set_name(d, base, start, len);
  wasi_dent_hash_insert(d);
  wasi_iset(child, WASI_I_NLINK, wasi_iget(child, WASI_I_NLINK) + 1u);
  if (wasi_ikind(child) == WASI_KIND_DIR) {
    wasi_iset(child, WASI_I_LINK, dir);
    wasi_iset(child, WASI_I_DENT, d);
  }
  wasi_dir_count(dir, child, 1u);
  wasi_touch_modified(dir, now);
  return d;
}

// Removes dentry d: the child loses a name (and is freed if nothing else refers to it).
void wasi_dir_remove(uint d, uvec2 now) {
  uint dir = wasi_dget(d, WASI_D_PARENT);
  uint child = wasi_dget(d, WASI_D_INODE);
  wasi_dent_hash_remove(d);
  wasi_dset(d, WASI_D_PARENT, WASI_NONE);
  wasi_dset(d, WASI_D_NEXT, wasi_get(WASI_H_DENT_FREE));
  wasi_set(WASI_H_DENT_FREE, d);
  wasi_set(WASI_H_DENTS_USED, wasi_get(WASI_H_DENTS_USED) - 1u);
  wasi_dir_count(dir, child, 0xFFFFFFFFu);
  wasi_touch_modified(dir, now);
  wasi_iset(child, WASI_I_NLINK, wasi_iget(child, WASI_I_NLINK) - 1u);
  wasi_iset64(child, WASI_I_CTIM, now);
  if (wasi_ikind(child) == WASI_KIND_DIR) wasi_iset(child, WASI_I_DENT, WASI_NONE);
  wasi_inode_release(child);
}

// Moves dentry d to `dir` under a new name (rename); the slot, and so the entry's readdir
// position among its new siblings, stays.
void wasi_dir_move(uint d, uint dir, uint base, uint start, uint len, uint hash, uvec2 now) {
  uint old_dir = wasi_dget(d, WASI_D_PARENT);
  uint child = wasi_dget(d, WASI_D_INODE);
  wasi_dent_hash_remove(d);
  wasi_dir_count(old_dir, child, 0xFFFFFFFFu);
  wasi_touch_modified(old_dir, now);
  wasi_dset(d, WASI_D_PARENT, dir);
  wasi_dset(d, WASI_D_HASH, hash);
  wasi_dent_set_name(d, base, start, len);
  wasi_dent_hash_insert(d);
  wasi_dir_count(dir, child, 1u);
  wasi_touch_modified(dir, now);
  if (wasi_ikind(child) == WASI_KIND_DIR) wasi_iset(child, WASI_I_LINK, dir);
  wasi_iset64(child, WASI_I_CTIM, now);
}

// Bytes of the canonical path of directory i from the root ("" for the root, "a/b" = 3):
// walks up the parents, at most max_files steps.
uint wasi_dir_path_len(uint i) {
  uint len = 0u;
  uint at = i;
  uint guard = wasi_get(WASI_H_INODE_COUNT);
  while (at != WASI_INODE_ROOT && guard > 0u) {
    uint d = wasi_iget(at, WASI_I_DENT);
    if (d == WASI_NONE) break;  // a removed directory: nothing above it is reachable
    len += wasi_dget(d, WASI_D_NAMELEN) + 1u;
    at = wasi_dir_parent(at);
    guard--;
  }
  return len > 0u ? len - 1u : 0u;
}

// Directory `inner` is `outer` or below it (rename must not move a directory into itself).
bool wasi_dir_within(uint inner, uint outer) {
  uint at = inner;
  uint guard = wasi_get(WASI_H_INODE_COUNT);
  while (guard > 0u) {
    if (at == outer) return true;
    if (at == WASI_INODE_ROOT || wasi_iget(at, WASI_I_DENT) == WASI_NONE) return false;
    at = wasi_dir_parent(at);
    guard--;
  }
  return false;
}
