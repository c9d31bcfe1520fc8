// WASI preview 1 on the device: the numbers of the per-instance WASI region, shared by the
// device library (wasi_*.glsl) and the host (wasi_config.cpp builds the initial image,
// wasi_inspect.cpp reads it back). Every name is prefixed WASI_/wasi_/Wasi so the files can be
// concatenated with the interpreter into one shader.
//
// The region is an array of uint words reached only through the integrator's accessors
// wasi_get(w) / wasi_set(w, v) (word w of this instance's region, 0-based). Layout, in order:
//
//   header          WASI_HEADER_WORDS words (WASI_H_*), then
//   args            argc words (byte offset of each argument in the data), then the data:
//                   every argument followed by a NUL byte, packed 4 bytes per word (LE)
//   environ         the same for the KEY=VALUE strings
//   preopen name    the root's preopen name, packed bytes (no NUL)
//   inodes          max_files records of WASI_I_WORDS words; inodes 0, 1, 2 are stdin,
//                   stdout, stderr (kind STREAM), inode 3 is the root directory
//   dentries        max_files records of WASI_D_WORDS words (directory entries = names)
//   buckets         a power of two (>= 16, >= max_files) of dentry chain heads (name hash)
//   fds             max_fds records of WASI_FD_WORDS words
//   path buffers    two buffers (A and B) of WASI_PATH_BUF_WORDS words for the path
//                   arguments of the current call (paths are right-aligned in them)
//   block links     one word per block: the free-list link (see wasi_blocks.glsl)
//   blocks          block_count blocks of WASI_BLOCK_WORDS words (64 bytes) of file content
//
// Block 0 is never used, so 0 is the null block. block_count = 1 + D + ceil(D / 15) +
// WASI_MAX_HEIGHT * max_files with D = ceil(storage_size / 64) + max_files: enough for any set
// of at most max_files inodes whose contents total storage_size bytes (each file wastes at most
// one partial data block, and its index nodes number at most d / 15 + height), so a write
// that passes the byte quota can never run out of blocks midway.
//
// All 64-bit values (times, offsets, rights) are two words, low word first.

// WASI_NO_UNROLL before a loop with a constant trip count: compilers unroll such loops at every
// inlined call site (GLSL inlines every function), which multiplied the code of a shader
// calling all entry points and made lavapipe's compile several times slower (a shader of the
// six transfer calls: 25 s cold, 4 s with the loops kept). In C++ it is nothing.
#ifndef WASI_NO_UNROLL
#ifdef __cplusplus
#define WASI_NO_UNROLL
#else
#extension GL_EXT_control_flow_attributes : enable
#define WASI_NO_UNROLL [[dont_unroll]]
#endif
#endif

const uint WASI_MAGIC = 0x31495357u;  // "WSI1", little-endian
const uint WASI_NONE = 0xFFFFFFFFu;   // no inode / dentry / fd

// ---- Header -------------------------------------------------------------------------------
const uint WASI_H_MAGIC = 0u;
const uint WASI_H_WORDS = 1u;          // total words of the region
const uint WASI_H_INSTANCE = 2u;       // the instance index: ChaCha20 nonce word 0 (set per instance)
const uint WASI_H_EXIT_STATE = 3u;     // WASI_EXIT_RUNNING / _EXITED / _SIGNALLED
const uint WASI_H_EXIT_CODE = 4u;      // proc_exit's code, or proc_raise's signal
const uint WASI_H_RANDOM_POS = 5u;     // u64 (5, 6): bytes of this instance's random stream used
const uint WASI_H_CLOCK_RES = 8u;      // u64 (8, 9): clock_res_get's answer for every clock
const uint WASI_H_CLOCK_EPOCH = 10u;   // u64 (10, 11): where the integrator's virtual clock starts
const uint WASI_H_KEY = 12u;           // 8 words (12..19): ChaCha20 key words
const uint WASI_H_ARGC = 20u;
const uint WASI_H_ARGS_BYTES = 21u;    // bytes of all arguments with their NULs
const uint WASI_H_ARGS = 22u;          // word offset of the argument offsets table
const uint WASI_H_ARGS_DATA = 23u;     // word offset of the argument bytes
const uint WASI_H_ENVC = 24u;
const uint WASI_H_ENV_BYTES = 25u;
const uint WASI_H_ENV = 26u;
const uint WASI_H_ENV_DATA = 27u;
const uint WASI_H_PREOPEN_LEN = 28u;   // bytes of the preopen name
const uint WASI_H_PREOPEN = 29u;       // word offset of the preopen name bytes
const uint WASI_H_INODES = 30u;        // word offset of the inode table
const uint WASI_H_INODE_COUNT = 31u;   // = max_files
const uint WASI_H_INODE_FREE = 32u;    // first free inode (chained through WASI_I_LINK), or NONE
const uint WASI_H_INODES_USED = 33u;
const uint WASI_H_DENTS = 34u;         // word offset of the dentry table
const uint WASI_H_DENT_COUNT = 35u;    // = max_files
const uint WASI_H_DENT_FREE = 36u;     // first free dentry (chained through WASI_D_NEXT), or NONE
const uint WASI_H_DENTS_USED = 37u;
const uint WASI_H_BUCKETS = 38u;       // word offset of the hash buckets
const uint WASI_H_BUCKET_MASK = 39u;   // bucket count - 1
const uint WASI_H_FDS = 40u;           // word offset of the descriptor table
const uint WASI_H_FD_COUNT = 41u;      // = max_fds
const uint WASI_H_BLOCK_LINKS = 42u;   // word offset of the block link words
const uint WASI_H_BLOCKS = 43u;        // word offset of block 0
const uint WASI_H_BLOCK_COUNT = 44u;
const uint WASI_H_FREE_HEAD = 45u;     // first free block (0 = none)
const uint WASI_H_BLOCKS_USED = 46u;   // blocks inside content trees (data and index)
const uint WASI_H_QUOTA = 47u;         // storage_size in bytes
const uint WASI_H_USED = 48u;          // content bytes stored (sum of stream, file, symlink sizes)
const uint WASI_H_PATH_A = 49u;        // word offset of path buffer A
const uint WASI_H_PATH_B = 50u;        // word offset of path buffer B
const uint WASI_H_LAYOUT = 51u;        // WASI_LAYOUT_VERSION
// Words 52..63 are reserved (zero). Words 64..95 hold the state of a resumable call that
// returned WASI_AGAIN (see wasi_calls_*.glsl); they mean nothing between calls.
const uint WASI_H_CONT = 64u;
const uint WASI_CONT_WORDS = 32u;
const uint WASI_HEADER_WORDS = 96u;
const uint WASI_LAYOUT_VERSION = 1u;

const uint WASI_EXIT_RUNNING = 0u;
const uint WASI_EXIT_EXITED = 1u;     // proc_exit: WASI_H_EXIT_CODE holds the code
const uint WASI_EXIT_SIGNALLED = 2u;  // proc_raise: WASI_H_EXIT_CODE holds the signal

// ---- Inodes (WASI_I_WORDS words each) -------------------------------------------------------
// Inode numbers (d_ino, st_ino) are index + 1; st_dev is WASI_DEV for everything.
const uint WASI_I_KIND = 0u;       // WASI_KIND_*
const uint WASI_I_NLINK = 1u;      // names (files, symlinks); dirs: 1 while linked, 0 once removed
const uint WASI_I_OPEN = 2u;       // open descriptors referring to it
const uint WASI_I_SIZE = 3u;       // content bytes (files, streams, symlink target)
const uint WASI_I_ROOT = 4u;       // root block of the content tree (0 = empty)
const uint WASI_I_HEIGHT = 5u;     // levels of index blocks above the data blocks
const uint WASI_I_ATIM = 6u;       // u64
const uint WASI_I_MTIM = 8u;       // u64
const uint WASI_I_CTIM = 10u;      // u64
const uint WASI_I_LINK = 12u;      // dirs: parent inode (the root's is itself); free: next free
const uint WASI_I_DENT = 13u;      // dirs: the dentry naming it (NONE for the root / removed)
const uint WASI_I_ENTRIES = 14u;   // dirs: entries
const uint WASI_I_SUBDIRS = 15u;   // dirs: entries that are directories (st_nlink = 2 + this)
const uint WASI_I_WORDS = 16u;

const uint WASI_KIND_FREE = 0u;
const uint WASI_KIND_FILE = 1u;
const uint WASI_KIND_DIR = 2u;
const uint WASI_KIND_SYMLINK = 3u;
const uint WASI_KIND_STREAM = 4u;  // stdin / stdout / stderr

const uint WASI_INODE_STDIN = 0u;
const uint WASI_INODE_STDOUT = 1u;
const uint WASI_INODE_STDERR = 2u;
const uint WASI_INODE_ROOT = 3u;
const uint WASI_RESERVED_INODES = 4u;  // never freed
const uint WASI_DEV = 1u;

// ---- Directory entries (WASI_D_WORDS words each) --------------------------------------------
const uint WASI_D_PARENT = 0u;   // directory inode, NONE when the slot is free
const uint WASI_D_INODE = 1u;
const uint WASI_D_NAMELEN = 2u;
const uint WASI_D_NEXT = 3u;     // next dentry in the hash chain (or in the free list)
const uint WASI_D_HASH = 4u;     // wasi_name_hash(parent, name)
const uint WASI_D_NAME = 5u;     // up to 255 bytes, packed
const uint WASI_D_WORDS = 69u;
const uint WASI_NAME_MAX = 255u;  // bytes of one name, and of a resolved path

// ---- Descriptors (WASI_FD_WORDS words each) -------------------------------------------------
const uint WASI_F_INODE = 0u;        // NONE when the descriptor is closed
const uint WASI_F_FLAGS = 1u;        // fdflags, plus WASI_F_PREOPEN_BIT
const uint WASI_F_RIGHTS = 2u;       // u64 base rights
const uint WASI_F_INHERITING = 4u;   // u64 inheriting rights
const uint WASI_F_OFFSET = 6u;       // u64 file offset (stdin: bytes consumed)
const uint WASI_FD_WORDS = 8u;
const uint WASI_F_PREOPEN_BIT = 0x10000u;  // this descriptor is the preopened root
const uint WASI_PREOPEN_FD = 3u;

// ---- Path buffers ---------------------------------------------------------------------------
// A path argument is copied into a buffer right-aligned ([WASI_PATH_BUF_BYTES - len, end));
// symbolic link targets are spliced in front of the unresolved rest, so the buffer needs room
// beyond the longest argument.
const uint WASI_PATH_BUF_WORDS = 512u;
const uint WASI_PATH_BUF_BYTES = 2048u;
const uint WASI_PATH_ARG_MAX = 1024u;   // longest path argument (longer: NAMETOOLONG)
const uint WASI_SYMLINK_FOLLOWS = 32u;  // more follows in one resolution: LOOP

// ---- Blocks ---------------------------------------------------------------------------------
const uint WASI_BLOCK_BYTES = 64u;
const uint WASI_BLOCK_WORDS = 16u;
const uint WASI_BLOCK_FANOUT = 16u;    // children of an index block
const uint WASI_MAX_HEIGHT = 7u;       // 16^7 blocks of 64 bytes > 4 GiB
const uint WASI_LINK_NEXT_MASK = 0x0FFFFFFFu;
const uint WASI_LINK_LEVEL_SHIFT = 28u;

// ---- Private status codes (never WASI errnos, which are < 77) -------------------------------
// WASI_AGAIN: the call used up its budget; call it again with the same arguments and the
// updated progress word. WASI_STATUS_EXIT / WASI_STATUS_RAISE: the instance ends
// (proc_exit / proc_raise); the code or signal is in WASI_H_EXIT_CODE.
const uint WASI_AGAIN = 0x10000u;
const uint WASI_STATUS_EXIT = 0x10001u;
const uint WASI_STATUS_RAISE = 0x10002u;

// Work units of the budget: one per byte moved or record examined, and these for the
// heavier steps.
const uint WASI_COST_BLOCK = 32u;   // allocating (and zeroing) one block
const uint WASI_COST_CHACHA = 64u;  // one ChaCha20 block
const uint WASI_COST_EVENT = 32u;   // writing one poll event

// ---- errno (wasi_snapshot_preview1 witx, all of them) ---------------------------------------
const uint WASI_ERRNO_SUCCESS = 0u;
const uint WASI_ERRNO_2BIG = 1u;
const uint WASI_ERRNO_ACCES = 2u;
const uint WASI_ERRNO_ADDRINUSE = 3u;
const uint WASI_ERRNO_ADDRNOTAVAIL = 4u;
const uint WASI_ERRNO_AFNOSUPPORT = 5u;
const uint WASI_ERRNO_AGAIN = 6u;
const uint WASI_ERRNO_ALREADY = 7u;
const uint WASI_ERRNO_BADF = 8u;
const uint WASI_ERRNO_BADMSG = 9u;
const uint WASI_ERRNO_BUSY = 10u;
const uint WASI_ERRNO_CANCELED = 11u;
const uint WASI_ERRNO_CHILD = 12u;
const uint WASI_ERRNO_CONNABORTED = 13u;
const uint WASI_ERRNO_CONNREFUSED = 14u;
const uint WASI_ERRNO_CONNRESET = 15u;
const uint WASI_ERRNO_DEADLK = 16u;
const uint WASI_ERRNO_DESTADDRREQ = 17u;
const uint WASI_ERRNO_DOM = 18u;
const uint WASI_ERRNO_DQUOT = 19u;
const uint WASI_ERRNO_EXIST = 20u;
const uint WASI_ERRNO_FAULT = 21u;
const uint WASI_ERRNO_FBIG = 22u;
const uint WASI_ERRNO_HOSTUNREACH = 23u;
const uint WASI_ERRNO_IDRM = 24u;
const uint WASI_ERRNO_ILSEQ = 25u;
const uint WASI_ERRNO_INPROGRESS = 26u;
const uint WASI_ERRNO_INTR = 27u;
const uint WASI_ERRNO_INVAL = 28u;
const uint WASI_ERRNO_IO = 29u;
const uint WASI_ERRNO_ISCONN = 30u;
const uint WASI_ERRNO_ISDIR = 31u;
const uint WASI_ERRNO_LOOP = 32u;
const uint WASI_ERRNO_MFILE = 33u;
const uint WASI_ERRNO_MLINK = 34u;
const uint WASI_ERRNO_MSGSIZE = 35u;
const uint WASI_ERRNO_MULTIHOP = 36u;
const uint WASI_ERRNO_NAMETOOLONG = 37u;
const uint WASI_ERRNO_NETDOWN = 38u;
const uint WASI_ERRNO_NETRESET = 39u;
const uint WASI_ERRNO_NETUNREACH = 40u;
const uint WASI_ERRNO_NFILE = 41u;
const uint WASI_ERRNO_NOBUFS = 42u;
const uint WASI_ERRNO_NODEV = 43u;
const uint WASI_ERRNO_NOENT = 44u;
const uint WASI_ERRNO_NOEXEC = 45u;
const uint WASI_ERRNO_NOLCK = 46u;
const uint WASI_ERRNO_NOLINK = 47u;
const uint WASI_ERRNO_NOMEM = 48u;
const uint WASI_ERRNO_NOMSG = 49u;
const uint WASI_ERRNO_NOPROTOOPT = 50u;
const uint WASI_ERRNO_NOSPC = 51u;
const uint WASI_ERRNO_NOSYS = 52u;
const uint WASI_ERRNO_NOTCONN = 53u;
const uint WASI_ERRNO_NOTDIR = 54u;
const uint WASI_ERRNO_NOTEMPTY = 55u;
const uint WASI_ERRNO_NOTRECOVERABLE = 56u;
const uint WASI_ERRNO_NOTSOCK = 57u;
const uint WASI_ERRNO_NOTSUP = 58u;
const uint WASI_ERRNO_NOTTY = 59u;
const uint WASI_ERRNO_NXIO = 60u;
const uint WASI_ERRNO_OVERFLOW = 61u;
const uint WASI_ERRNO_OWNERDEAD = 62u;
const uint WASI_ERRNO_PERM = 63u;
const uint WASI_ERRNO_PIPE = 64u;
const uint WASI_ERRNO_PROTO = 65u;
const uint WASI_ERRNO_PROTONOSUPPORT = 66u;
const uint WASI_ERRNO_PROTOTYPE = 67u;
const uint WASI_ERRNO_RANGE = 68u;
const uint WASI_ERRNO_ROFS = 69u;
const uint WASI_ERRNO_SPIPE = 70u;
const uint WASI_ERRNO_SRCH = 71u;
const uint WASI_ERRNO_STALE = 72u;
const uint WASI_ERRNO_TIMEDOUT = 73u;
const uint WASI_ERRNO_TXTBSY = 74u;
const uint WASI_ERRNO_XDEV = 75u;
const uint WASI_ERRNO_NOTCAPABLE = 76u;

// ---- Rights (bit n of the low word; the high word of every rights value is zero) ------------
const uint WASI_RIGHT_FD_DATASYNC = 0x1u;
const uint WASI_RIGHT_FD_READ = 0x2u;
const uint WASI_RIGHT_FD_SEEK = 0x4u;
const uint WASI_RIGHT_FD_FDSTAT_SET_FLAGS = 0x8u;
const uint WASI_RIGHT_FD_SYNC = 0x10u;
const uint WASI_RIGHT_FD_TELL = 0x20u;
const uint WASI_RIGHT_FD_WRITE = 0x40u;
const uint WASI_RIGHT_FD_ADVISE = 0x80u;
const uint WASI_RIGHT_FD_ALLOCATE = 0x100u;
const uint WASI_RIGHT_PATH_CREATE_DIRECTORY = 0x200u;
const uint WASI_RIGHT_PATH_CREATE_FILE = 0x400u;
const uint WASI_RIGHT_PATH_LINK_SOURCE = 0x800u;
const uint WASI_RIGHT_PATH_LINK_TARGET = 0x1000u;
const uint WASI_RIGHT_PATH_OPEN = 0x2000u;
const uint WASI_RIGHT_FD_READDIR = 0x4000u;
const uint WASI_RIGHT_PATH_READLINK = 0x8000u;
const uint WASI_RIGHT_PATH_RENAME_SOURCE = 0x10000u;
const uint WASI_RIGHT_PATH_RENAME_TARGET = 0x20000u;
const uint WASI_RIGHT_PATH_FILESTAT_GET = 0x40000u;
const uint WASI_RIGHT_PATH_FILESTAT_SET_SIZE = 0x80000u;
const uint WASI_RIGHT_PATH_FILESTAT_SET_TIMES = 0x100000u;
const uint WASI_RIGHT_FD_FILESTAT_GET = 0x200000u;
const uint WASI_RIGHT_FD_FILESTAT_SET_SIZE = 0x400000u;
const uint WASI_RIGHT_FD_FILESTAT_SET_TIMES = 0x800000u;
const uint WASI_RIGHT_PATH_SYMLINK = 0x1000000u;
const uint WASI_RIGHT_PATH_REMOVE_DIRECTORY = 0x2000000u;
const uint WASI_RIGHT_PATH_UNLINK_FILE = 0x4000000u;
const uint WASI_RIGHT_POLL_FD_READWRITE = 0x8000000u;
const uint WASI_RIGHT_SOCK_SHUTDOWN = 0x10000000u;
const uint WASI_RIGHT_SOCK_ACCEPT = 0x20000000u;
const uint WASI_RIGHTS_ALL = 0x3FFFFFFFu;

// What a descriptor of each kind can hold (path_open drops the rest, as the spec allows for
// rights that do not apply to the file type). The root and opened directories start with
// WASI_RIGHTS_DIRECTORY as base and WASI_RIGHTS_DIRECTORY | WASI_RIGHTS_REGULAR as inheriting.
const uint WASI_RIGHTS_REGULAR = 0x08E001FFu;    // fd_* on bytes, filestat, poll
const uint WASI_RIGHTS_DIRECTORY = 0x07BFFE19u;  // path_*, readdir, filestat get/set_times, fdstat flags, (data)sync
const uint WASI_RIGHTS_STDIN = 0x0820001Bu;      // read, fdstat flags, sync, datasync, filestat_get, poll
const uint WASI_RIGHTS_STDOUT = 0x08200059u;     // write, fdstat flags, sync, datasync, filestat_get, poll

// ---- Other enumerations ---------------------------------------------------------------------
const uint WASI_FILETYPE_UNKNOWN = 0u;
const uint WASI_FILETYPE_BLOCK_DEVICE = 1u;
const uint WASI_FILETYPE_CHARACTER_DEVICE = 2u;
const uint WASI_FILETYPE_DIRECTORY = 3u;
const uint WASI_FILETYPE_REGULAR_FILE = 4u;
const uint WASI_FILETYPE_SOCKET_DGRAM = 5u;
const uint WASI_FILETYPE_SOCKET_STREAM = 6u;
const uint WASI_FILETYPE_SYMBOLIC_LINK = 7u;

const uint WASI_FDFLAG_APPEND = 1u;
const uint WASI_FDFLAG_DSYNC = 2u;
const uint WASI_FDFLAG_NONBLOCK = 4u;
const uint WASI_FDFLAG_RSYNC = 8u;
const uint WASI_FDFLAG_SYNC = 16u;
const uint WASI_FDFLAGS_ALL = 31u;

const uint WASI_OFLAG_CREAT = 1u;
const uint WASI_OFLAG_DIRECTORY = 2u;
const uint WASI_OFLAG_EXCL = 4u;
const uint WASI_OFLAG_TRUNC = 8u;
const uint WASI_OFLAGS_ALL = 15u;

const uint WASI_LOOKUP_SYMLINK_FOLLOW = 1u;

const uint WASI_FSTFLAG_ATIM = 1u;
const uint WASI_FSTFLAG_ATIM_NOW = 2u;
const uint WASI_FSTFLAG_MTIM = 4u;
const uint WASI_FSTFLAG_MTIM_NOW = 8u;

const uint WASI_WHENCE_SET = 0u;
const uint WASI_WHENCE_CUR = 1u;
const uint WASI_WHENCE_END = 2u;

const uint WASI_ADVICE_MAX = 5u;  // normal, sequential, random, willneed, dontneed, noreuse

const uint WASI_CLOCK_COUNT = 4u;  // realtime, monotonic, process_cputime_id, thread_cputime_id

const uint WASI_EVENTTYPE_CLOCK = 0u;
const uint WASI_EVENTTYPE_FD_READ = 1u;
const uint WASI_EVENTTYPE_FD_WRITE = 2u;
const uint WASI_SUBCLOCK_ABSTIME = 1u;

const uint WASI_SIGNAL_MAX = 30u;  // none = 0 ... sys = 30

// Sizes of the ABI records in guest memory (bytes).
const uint WASI_IOVEC_SIZE = 8u;          // buf u32, len u32 (ciovec the same)
const uint WASI_FDSTAT_SIZE = 24u;        // filetype u8 @0, flags u16 @2, rights u64 @8, inheriting u64 @16
// filestat: dev @0, ino @8, filetype u8 @16, nlink @24, size @32, atim @40, mtim @48, ctim @56
const uint WASI_FILESTAT_SIZE = 64u;
const uint WASI_PRESTAT_SIZE = 8u;        // tag u8 @0 (0 = dir), name_len u32 @4
const uint WASI_DIRENT_SIZE = 24u;        // d_next u64 @0, d_ino u64 @8, d_namlen u32 @16, d_type u8 @20
// subscription: userdata @0, tag u8 @8; clock: id u32 @16, timeout u64 @24, precision @32,
// flags u16 @40; fd_read / fd_write: fd u32 @16
const uint WASI_SUBSCRIPTION_SIZE = 48u;
const uint WASI_EVENT_SIZE = 32u;         // userdata @0, error u16 @8, type u8 @10, nbytes u64 @16, flags u16 @24
