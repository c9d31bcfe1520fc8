// Path resolution inside a directory capability.
//
// A path argument sits right-aligned in path buffer A or B (wasi_calls_common.glsl copies it
// there). Resolution walks it component by component from the descriptor's directory:
// - absolute paths, and symlink targets that are absolute, give PERM; ".." above the starting
//   directory gives PERM (wasmtime's answers: the capability cannot be escaped);
// - a symlink met before the last component (or at the last one when following, or with a
//   trailing slash) is expanded in place: its target is written in front of the unresolved
//   rest, which is why the buffer is larger than the longest argument; more than
//   WASI_SYMLINK_FOLLOWS expansions give LOOP, a target that does not fit NAMETOOLONG;
// - names are at most 255 bytes, and so is the canonical path from the root of every directory
//   passed through or name produced (NAMETOOLONG).
// Bounds: every pass consumes a component or expands a link, so a resolution takes at most
// WASI_PATH_BUF_BYTES + WASI_SYMLINK_FOLLOWS * 255 passes, each one hash lookup (a chain of at
// most max_files dentries) and a scan of the component's bytes, plus one walk of at most
// max_files parents for the starting directory's path length.

const uint WASI_CHAR_SLASH = 0x2Fu;
const uint WASI_CHAR_DOT = 0x2Eu;

struct WasiLookup {
  uint err;    // errno; the fields below describe what was found when it is SUCCESS
  uint dir;    // directory holding the final name (NONE when the path ends in "." or "..")
  uint node;   // the final inode, NONE when the final name does not exist
  uint dent;   // the final name's dentry, NONE when it does not exist or the path ends in "."/".."
  uint start;  // the final name: byte offset in the buffer
  uint len;    // its length (0 when the path ends in "." or "..")
  uint hash;   // wasi_name_hash(dir, name), when len > 0
  uint slash;  // 1 when a slash follows the final name
};

WasiLookup wasi_lookup_error(uint err) {
  WasiLookup r;
  r.err = err;
  r.dir = WASI_NONE;
  r.node = WASI_NONE;
  r.dent = WASI_NONE;
  r.start = 0u;
  r.len = 0u;
  r.hash = 0u;
  r.slash = 0u;
  return r;
}

uint wasi_path_base(uint which) { return wasi_get(which == 0u ? WASI_H_PATH_A : WASI_H_PATH_B); }

// First byte of a path of `len` bytes in buffer `which`.
uint wasi_path_start(uint len) { return WASI_PATH_BUF_BYTES - len; }

// UTF-8 well-formedness (shortest forms, no surrogates, nothing above U+10FFFF) of bytes
// [start, start + len) at region words `base`. wasmtime answers ILSEQ for other paths.
bool wasi_utf8_ok(uint base, uint start, uint len) {
  uint k = 0u;
  while (k < len) {
    uint b0 = wasi_region_byte(base, start + k);
    uint n = 0u;
    uint low = 0x80u;
    uint high = 0xBFu;
    if (b0 < 0x80u) {
      n = 0u;
    } else if (b0 >= 0xC2u && b0 <= 0xDFu) {
      n = 1u;
    } else if (b0 >= 0xE0u && b0 <= 0xEFu) {
      n = 2u;
      if (b0 == 0xE0u) low = 0xA0u;
      if (b0 == 0xEDu) high = 0x9Fu;
    } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
      n = 3u;
      if (b0 == 0xF0u) low = 0x90u;
      if (b0 == 0xF4u) high = 0x8Fu;
    } else {
      return false;
    }
    if (len - k - 1u < n) return false;
    for (uint j = 1u; j <= n; j++) {
      uint b = wasi_region_byte(base, start + k + j);
      uint lo = j == 1u ? low : 0x80u;
      uint hi = j == 1u ? high : 0xBFu;
      if (b < lo || b > hi) return false;
    }
    k += n + 1u;
  }
  return true;
}

// Resolves the `len`-byte path in buffer `which` from directory `start_dir`. `follow`: follow a
// symlink named by the last component. Writes only the buffer (expanded link targets).
WasiLookup wasi_resolve(uint which, uint len, uint start_dir, bool follow) {
  uint base = wasi_path_base(which);
  uint end = WASI_PATH_BUF_BYTES;
  uint pos = end - len;
  if (len == 0u) return wasi_lookup_error(WASI_ERRNO_NOENT);
  if (wasi_region_byte(base, pos) == WASI_CHAR_SLASH) return wasi_lookup_error(WASI_ERRNO_PERM);
  uint cur = start_dir;
  uint depth = 0u;  // directories below start_dir
  uint cur_len = wasi_dir_path_len(start_dir);
  uint follows = 0u;
  bool ended = false;
  for (uint pass = 0u; pass < WASI_PATH_BUF_BYTES + (WASI_SYMLINK_FOLLOWS + 1u) * 256u; pass++) {
    while (pos < end && wasi_region_byte(base, pos) == WASI_CHAR_SLASH) pos++;
    if (pos == end) {  // nothing but slashes left: the path names cur
      ended = true;
      break;
    }
    uint e = pos;
    while (e < end && wasi_region_byte(base, e) != WASI_CHAR_SLASH) e++;
    uint clen = e - pos;
    uint q = e;
    while (q < end && wasi_region_byte(base, q) == WASI_CHAR_SLASH) q++;
    bool last = q == end;
    uint slash = e < end ? 1u : 0u;
    bool is_dot = clen == 1u && wasi_region_byte(base, pos) == WASI_CHAR_DOT;
    bool is_dotdot = clen == 2u && wasi_region_byte(base, pos) == WASI_CHAR_DOT &&
                  wasi_region_byte(base, pos + 1u) == WASI_CHAR_DOT;
    if (is_dot || is_dotdot) {
      if (is_dotdot) {
        if (depth == 0u) return wasi_lookup_error(WASI_ERRNO_PERM);
        if (wasi_iget(cur, WASI_I_NLINK) == 0u) return wasi_lookup_error(WASI_ERRNO_NOENT);
        uint parent = wasi_dir_parent(cur);
        uint own = wasi_dget(wasi_iget(cur, WASI_I_DENT), WASI_D_NAMELEN);
        cur_len = parent == WASI_INODE_ROOT ? 0u : cur_len - own - 1u;
        cur = parent;
        depth--;
      }
      pos = q;
      if (last) {
        ended = true;
        break;
      }
      continue;
    }
    if (clen > WASI_NAME_MAX) return wasi_lookup_error(WASI_ERRNO_NAMETOOLONG);
    uint full = cur_len + (cur_len > 0u ? 1u : 0u) + clen;
    if (full > WASI_NAME_MAX) return wasi_lookup_error(WASI_ERRNO_NAMETOOLONG);
    if (wasi_iget(cur, WASI_I_NLINK) == 0u) return wasi_lookup_error(WASI_ERRNO_NOENT);  // removed
    uint hash = wasi_name_hash(cur, base, pos, clen);
    uint d = wasi_dir_lookup(cur, base, pos, clen, hash);
    WasiLookup r = wasi_lookup_error(WASI_ERRNO_SUCCESS);
    r.dir = cur;
    r.start = pos;
    r.len = clen;
    r.hash = hash;
    r.slash = slash;
    if (d == WASI_NONE) {
      if (!last) return wasi_lookup_error(WASI_ERRNO_NOENT);
      return r;
    }
    uint child = wasi_dget(d, WASI_D_INODE);
    uint kind = wasi_ikind(child);
    if (kind == WASI_KIND_SYMLINK && (!last || follow || slash != 0u)) {
      follows++;
      if (follows > WASI_SYMLINK_FOLLOWS) return wasi_lookup_error(WASI_ERRNO_LOOP);
      uint tlen = wasi_iget(child, WASI_I_SIZE);
      if (tlen == 0u) return wasi_lookup_error(WASI_ERRNO_NOENT);
      if (wasi_content_byte(child, 0u) == WASI_CHAR_SLASH) return wasi_lookup_error(WASI_ERRNO_PERM);
      if (tlen > e) return wasi_lookup_error(WASI_ERRNO_NAMETOOLONG);
      pos = e - tlen;  // the target replaces the component, in front of the rest
      for (uint k = 0u; k < tlen; k++) wasi_region_set_byte(base, pos + k, wasi_content_byte(child, k));
      continue;
    }
    if (last) {
      r.node = child;
      r.dent = d;
      if (slash != 0u && kind != WASI_KIND_DIR) r.err = WASI_ERRNO_NOTDIR;
      return r;
    }
    if (kind != WASI_KIND_DIR) return wasi_lookup_error(WASI_ERRNO_NOTDIR);
    cur = child;
    depth++;
    cur_len = full;
    pos = q;
  }
  if (!ended) return wasi_lookup_error(WASI_ERRNO_NAMETOOLONG);  // unreachable: the pass bound
  // The path ended in "." or ".." (or slashes after them): it names directory cur itself.
  WasiLookup r = wasi_lookup_error(WASI_ERRNO_SUCCESS);
  r.node = cur;
  return r;
}
