// Block storage of the WASI file system: 64-byte blocks, a free list with lazy reclaim, and the
// content tree of each inode.
//
// Content tree. An inode of size s holds d = ceil(s / 64) data blocks. With height h = 0 the
// root is the only data block; otherwise the root is an index block of 16 child block numbers
// (0 = none) and every level below it is the same, down to the data blocks (16^h >= d, h
// minimal). Only the blocks that cover bytes [0, s) exist, so the shape, and therefore the
// number of blocks, is a function of s alone (wasi_tree_blocks). Bytes of the last data block
// beyond s are always zero, so growing never has to clear old bytes. Finding the block of a
// byte walks h <= WASI_MAX_HEIGHT levels.
//
// Free list with lazy reclaim. Each block has a link word: bits 0..27 the next free block,
// bits 28..31 a level. A freed subtree goes onto the list as its root alone, tagged with its
// level, in O(1); when allocation pops a block of level L > 0 it pushes that block's children
// (level L - 1) and then reuses it. So deleting or truncating a file of any size is constant
// work, and every allocation is at most 16 pushes and 16 stores. Allocation returns zeroed
// blocks. The quota (WASI_H_QUOTA, bytes of content) is checked by the callers before anything
// changes; the block count of the layout guarantees that a change within the quota finds its
// blocks (wasi_layout.glsl).

uint wasi_block_addr(uint b) { return wasi_get(WASI_H_BLOCKS) + b * WASI_BLOCK_WORDS; }

uint wasi_block_link(uint b) { return wasi_get(wasi_get(WASI_H_BLOCK_LINKS) + b); }

void wasi_block_set_link(uint b, uint v) { wasi_set(wasi_get(WASI_H_BLOCK_LINKS) + b, v); }

void wasi_free_push(uint b, uint level) {
  wasi_block_set_link(b, wasi_get(WASI_H_FREE_HEAD) | (level << WASI_LINK_LEVEL_SHIFT));
  wasi_set(WASI_H_FREE_HEAD, b);
}

// A zeroed block, or 0 when none is left (never within the quota).
uint wasi_block_alloc() {
  uint b = wasi_get(WASI_H_FREE_HEAD);
  if (b == 0u) return 0u;
  uint link = wasi_block_link(b);
  wasi_set(WASI_H_FREE_HEAD, link & WASI_LINK_NEXT_MASK);
  uint level = link >> WASI_LINK_LEVEL_SHIFT;
  uint base = wasi_block_addr(b);
  WASI_NO_UNROLL for (uint k = 0u; k < WASI_BLOCK_WORDS; k++) {
    if (level > 0u) {
      uint child = wasi_get(base + k);
      if (child != 0u) wasi_free_push(child, level - 1u);
    }
    wasi_set(base + k, 0u);
  }
  wasi_block_set_link(b, 0u);
  wasi_set(WASI_H_BLOCKS_USED, wasi_get(WASI_H_BLOCKS_USED) + 1u);
  return b;
}

// Data blocks for `size` bytes.
uint wasi_data_blocks(uint size) { return (size >> 6u) + ((size & 63u) != 0u ? 1u : 0u); }

// Minimal height for d data blocks (16^h >= d).
uint wasi_height_for(uint d) {
  uint h = 0u;
  uint capacity = 1u;
  while (capacity < d && h < WASI_MAX_HEIGHT) {  // at most 16^7 = 2^28: no overflow
    h++;
    capacity *= WASI_BLOCK_FANOUT;
  }
  return h;
}

// Blocks (data and index) of the content tree of `size` bytes.
uint wasi_tree_blocks(uint size) {
  uint d = wasi_data_blocks(size);
  if (d == 0u) return 0u;
  uint total = d;
  uint n = d;
  uint h = wasi_height_for(d);
  for (uint l = 0u; l < h; l++) {
    n = (n >> 4u) + ((n & 15u) != 0u ? 1u : 0u);
    total += n;
  }
  return total;
}

uint wasi_inode_addr(uint i) { return wasi_get(WASI_H_INODES) + i * WASI_I_WORDS; }

uint wasi_iget(uint i, uint field) { return wasi_get(wasi_inode_addr(i) + field); }

void wasi_iset(uint i, uint field, uint v) { wasi_set(wasi_inode_addr(i) + field, v); }

// Child `digit` of index block `node`.
uint wasi_child(uint node, uint digit) { return wasi_get(wasi_block_addr(node) + digit); }

void wasi_set_child(uint node, uint digit, uint child) { wasi_set(wasi_block_addr(node) + digit, child); }

// Digit of data-block index k at `level` (1 = the index blocks right above the data).
uint wasi_digit(uint k, uint level) { return (k >> (4u * (level - 1u))) & 15u; }

// The data block holding content byte `pos` of inode i (pos < size), 0 if there is none.
uint wasi_content_block(uint i, uint pos) {
  uint node = wasi_iget(i, WASI_I_ROOT);
  uint k = pos >> 6u;
  for (uint level = wasi_iget(i, WASI_I_HEIGHT); level > 0u && node != 0u; level--) {
    node = wasi_child(node, wasi_digit(k, level));
  }
  return node;
}

uint wasi_content_byte(uint i, uint pos) {
  return wasi_region_byte(wasi_block_addr(wasi_content_block(i, pos)), pos & 63u);
}

// The whole content tree goes back to the free list (O(1)); the size becomes 0.
void wasi_content_free(uint i) {
  uint root = wasi_iget(i, WASI_I_ROOT);
  if (root != 0u) wasi_free_push(root, wasi_iget(i, WASI_I_HEIGHT));
  uint size = wasi_iget(i, WASI_I_SIZE);
  wasi_set(WASI_H_BLOCKS_USED, wasi_get(WASI_H_BLOCKS_USED) - wasi_tree_blocks(size));
  wasi_set(WASI_H_USED, wasi_get(WASI_H_USED) - size);
  wasi_iset(i, WASI_I_ROOT, 0u);
  wasi_iset(i, WASI_I_HEIGHT, 0u);
  wasi_iset(i, WASI_I_SIZE, 0u);
}

// Shrinks inode i to new_size <= size: the subtrees right of the last kept block are freed,
// extra root levels removed, and the tail of the last kept block zeroed. Constant work
// (at most 15 pushes per level and 64 bytes).
void wasi_content_shrink(uint i, uint new_size) {
  uint size = wasi_iget(i, WASI_I_SIZE);
  if (new_size >= size) return;
  uint d_new = wasi_data_blocks(new_size);
  if (d_new == 0u) {
    wasi_content_free(i);
    return;
  }
  uint root = wasi_iget(i, WASI_I_ROOT);
  uint height = wasi_iget(i, WASI_I_HEIGHT);
  uint last = d_new - 1u;
  uint node = root;
  for (uint level = height; level > 0u; level--) {
    uint digit = wasi_digit(last, level);
    for (uint j = digit + 1u; j < WASI_BLOCK_FANOUT; j++) {
      uint child = wasi_child(node, j);
      if (child != 0u) {
        wasi_free_push(child, level - 1u);
        wasi_set_child(node, j, 0u);
      }
    }
    node = wasi_child(node, digit);
  }
  uint h_new = wasi_height_for(d_new);
  while (height > h_new) {  // the root keeps only child 0 now: it becomes the root
    uint old = root;
    root = wasi_child(old, 0u);
    wasi_set_child(old, 0u, 0u);
    wasi_free_push(old, 0u);
    height--;
  }
  // Zero the tail of the last data block (node) beyond new_size.
  uint base = wasi_block_addr(node);
  for (uint k = new_size & 63u; k != 0u && k < WASI_BLOCK_BYTES; k++) wasi_region_set_byte(base, k, 0u);
  wasi_set(WASI_H_BLOCKS_USED, wasi_get(WASI_H_BLOCKS_USED) - (wasi_tree_blocks(size) - wasi_tree_blocks(new_size)));
  wasi_set(WASI_H_USED, wasi_get(WASI_H_USED) - (size - new_size));
  wasi_iset(i, WASI_I_ROOT, root);
  wasi_iset(i, WASI_I_HEIGHT, height);
  wasi_iset(i, WASI_I_SIZE, new_size);
}

// Grows inode i toward `target` bytes (new bytes read as zero), one data block per step, each
// allocation costing WASI_COST_BLOCK units. Returns true once size == target. The caller has
// checked the quota for target - size; an interrupted growth simply continues on the next call
// (the size and the quota's use always agree).
bool wasi_content_grow(uint i, uint target, INOUT(WasiWork) work) {
  while (wasi_iget(i, WASI_I_SIZE) < target) {
    if (!wasi_work_left(work)) return false;
    uint size = wasi_iget(i, WASI_I_SIZE);
    uint have = wasi_data_blocks(size);
    uint room = have * WASI_BLOCK_BYTES;
    uint next = target;
    if (size < room) {
      next = min(target, room);  // the last block has zeroed room left
    } else {
      uint k = have;  // data block k is needed
      uint root = wasi_iget(i, WASI_I_ROOT);
      uint height = wasi_iget(i, WASI_I_HEIGHT);
      if (root == 0u) {
        root = wasi_block_alloc();
        height = 0u;
        work.used += WASI_COST_BLOCK;
      } else {
        while (wasi_height_for(k + 1u) > height) {  // a new root above the old one
          uint top = wasi_block_alloc();
          wasi_set_child(top, 0u, root);
          root = top;
          height++;
          work.used += WASI_COST_BLOCK;
        }
        uint node = root;
        for (uint level = height; level > 0u; level--) {
          uint digit = wasi_digit(k, level);
          uint child = wasi_child(node, digit);
          if (child == 0u) {
            child = wasi_block_alloc();
            wasi_set_child(node, digit, child);
            work.used += WASI_COST_BLOCK;
          }
          node = child;
        }
      }
      wasi_iset(i, WASI_I_ROOT, root);
      wasi_iset(i, WASI_I_HEIGHT, height);
      next = min(target, room + WASI_BLOCK_BYTES);  // sizes stay below 2^30 (wasi_config.cpp)
    }
    wasi_set(WASI_H_USED, wasi_get(WASI_H_USED) + (next - size));
    wasi_iset(i, WASI_I_SIZE, next);
  }
  return true;
}

// Bytes that growing inode i to `target` would add, and whether the quota allows them.
bool wasi_quota_allows(uint i, uint target) {
  uint size = wasi_iget(i, WASI_I_SIZE);
  if (target <= size) return true;
  uint quota = wasi_get(WASI_H_QUOTA);
  uint used = wasi_get(WASI_H_USED);
  return target - size <= quota - used;
}
