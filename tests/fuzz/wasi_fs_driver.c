/* The WASI file-system fuzzer's guest (tests/fuzz/wasi_fs.py): reads one operation a line
 * from stdin, runs it through wasi-libc against the preopened directory, and prints what
 * happened (results and errno, never file descriptor numbers, which engines may number
 * differently), then prints the whole tree (types, sizes, contents' checksums), so two
 * engines can be compared on stdout alone.
 *
 * Operations (SLOT is 0..7, a file descriptor the driver keeps):
 *   open SLOT PATH FLAGS   FLAGS: letters r w c(create) t(truncate) x(exclusive) a(append) d(directory)
 *   close SLOT | write SLOT COUNT BYTE | read SLOT COUNT | seek SLOT OFFSET WHENCE(0..2)
 *   truncate SLOT LENGTH | fstat SLOT | sync SLOT
 *   rename FROM TO | unlink PATH | mkdir PATH | rmdir PATH | stat PATH | readdir PATH
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 8
static int slots[SLOTS] = {-1, -1, -1, -1, -1, -1, -1, -1};
/* Whether each slot was opened for writing. wasmtime lets a descriptor opened read-only write
 * and truncate, where wasmgpu answers EBADF as POSIX does, and refuses fsync on it (EBADF),
 * where wasmgpu, like Linux, syncs (docs/ARCHITECTURE.md, "Differential fuzzing"): those calls
 * are skipped. */
static int writable[SLOTS];

static void report(const char* what, long result) {
  if (result < 0) {
    printf("%s -> error %d\n", what, errno);
  } else {
    printf("%s -> %ld\n", what, result);
  }
}

static const char* type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "dir";
  if (S_ISREG(mode)) return "file";
  return "other";
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The sorted entries of a directory, "." and ".." left out (engines differ in listing them). */
static int list_directory(const char* path, char*** names_out) {
  DIR* dir = opendir(path);
  if (dir == NULL) return -1;
  char** names = NULL;
  int count = 0;
  struct dirent* entry;
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
    names = realloc(names, sizeof(char*) * (count + 1));
    names[count++] = strdup(entry->d_name);
  }
  closedir(dir);
  qsort(names, count, sizeof(char*), compare_names);
  *names_out = names;
  return count;
}

static unsigned long checksum_file(const char* path) {
  FILE* file = fopen(path, "rb");
  if (file == NULL) return 0;
  unsigned long hash = 5381;
  int c;
  while ((c = fgetc(file)) != EOF) hash = hash * 33u + (unsigned char)c;
  fclose(file);
  return hash;
}

static void print_tree(const char* path, int depth) {
  char** names;
  int count = list_directory(path, &names);
  if (count < 0) {
    printf("tree %s -> error %d\n", path, errno);
    return;
  }
  for (int i = 0; i < count; ++i) {
    char child[512];
    snprintf(child, sizeof child, "%s/%s", path, names[i]);
    struct stat info;
    if (stat(child, &info) != 0) {
      printf("tree %s -> stat error %d\n", child, errno);
    } else if (S_ISDIR(info.st_mode)) {
      printf("tree %s dir\n", child);
      if (depth < 8) print_tree(child, depth + 1);
    } else {
      printf("tree %s %s %lld %lx\n", child, type_name(info.st_mode), (long long)info.st_size, checksum_file(child));
    }
    free(names[i]);
  }
  free(names);
}

static int open_flags(const char* letters) {
  int read = strchr(letters, 'r') != NULL, write = strchr(letters, 'w') != NULL;
  int flags = read && write ? O_RDWR : write ? O_WRONLY : O_RDONLY;
  if (strchr(letters, 'c')) flags |= O_CREAT;
  if (strchr(letters, 't')) flags |= O_TRUNC;
  if (strchr(letters, 'x')) flags |= O_EXCL;
  if (strchr(letters, 'a')) flags |= O_APPEND;
  if (strchr(letters, 'd')) flags |= O_DIRECTORY;
  return flags;
}

static void run(char* line) {
  char op[16], a[256], b[256];
  long x = 0, y = 0;
  int fields = sscanf(line, "%15s %255s %255s", op, a, b);
  if (fields < 1) return;
  char what[600];
  snprintf(what, sizeof what, "%s", line);
  what[strcspn(what, "\n")] = 0;
  int slot = atoi(a) & (SLOTS - 1);
  if (strcmp(op, "open") == 0 && fields == 3) {
    char path[256], letters[16];
    if (sscanf(line, "%*s %*s %255s %15s", path, letters) != 2) return;
    /* wasmtime refuses O_DIRECTORY with write access, O_TRUNC, O_EXCL or O_APPEND (EINVAL)
     * before it looks at the path; wasmgpu, like Linux, answers by what the path names. */
    if (strchr(letters, 'd') && strpbrk(letters, "wtxa")) {
      printf("%s -> skipped (O_DIRECTORY with write, truncate, exclusive or append)\n", what);
      return;
    }
    if (slots[slot] >= 0) close(slots[slot]);
    slots[slot] = open(path, open_flags(letters), 0644);
    writable[slot] = strchr(letters, 'w') != NULL;
    report(what, slots[slot] < 0 ? -1 : 0);
  } else if (strcmp(op, "close") == 0) {
    report(what, close(slots[slot]));
    slots[slot] = -1;
  } else if ((strcmp(op, "write") == 0 || strcmp(op, "truncate") == 0 || strcmp(op, "sync") == 0) && slots[slot] >= 0 &&
             !writable[slot]) {
    printf("%s -> skipped (read-only descriptor)\n", what);
  } else if (strcmp(op, "write") == 0 && sscanf(line, "%*s %*s %ld %ld", &x, &y) == 2) {
    char buffer[4096];
    if (x > (long)sizeof buffer) x = sizeof buffer;
    for (long i = 0; i < x; ++i) buffer[i] = (char)(y + i % 7);
    report(what, (long)write(slots[slot], buffer, (size_t)x));
  } else if (strcmp(op, "read") == 0 && sscanf(line, "%*s %*s %ld", &x) == 1) {
    unsigned char buffer[4096];
    if (x > (long)sizeof buffer) x = sizeof buffer;
    long got = (long)read(slots[slot], buffer, (size_t)x);
    report(what, got);
    if (got > 0) {
      unsigned long hash = 5381;
      for (long i = 0; i < got; ++i) hash = hash * 33u + buffer[i];
      printf("  data %lx\n", hash);
    }
  } else if (strcmp(op, "seek") == 0 && sscanf(line, "%*s %*s %ld %ld", &x, &y) == 2) {
    report(what, (long)lseek(slots[slot], x, (int)y));
  } else if (strcmp(op, "truncate") == 0 && sscanf(line, "%*s %*s %ld", &x) == 1) {
    report(what, ftruncate(slots[slot], x));
  } else if (strcmp(op, "sync") == 0) {
    report(what, fsync(slots[slot]));
  } else if (strcmp(op, "fstat") == 0) {
    struct stat info;
    int result = fstat(slots[slot], &info);
    report(what, result);
    /* A directory's size is the host file system's (4096 under wasmtime): not compared. */
    if (result == 0)
      printf("  %s %lld\n", type_name(info.st_mode), S_ISDIR(info.st_mode) ? 0LL : (long long)info.st_size);
  } else if (strcmp(op, "rename") == 0 && fields == 3) {
    report(what, rename(a, b));
  } else if (strcmp(op, "unlink") == 0) {
    report(what, unlink(a));
  } else if (strcmp(op, "mkdir") == 0) {
    report(what, mkdir(a, 0755));
  } else if (strcmp(op, "rmdir") == 0) {
    report(what, rmdir(a));
  } else if (strcmp(op, "stat") == 0) {
    struct stat info;
    int result = stat(a, &info);
    report(what, result);
    if (result == 0)
      printf("  %s %lld\n", type_name(info.st_mode), S_ISDIR(info.st_mode) ? 0LL : (long long)info.st_size);
  } else if (strcmp(op, "readdir") == 0) {
    char** names;
    int count = list_directory(a, &names);
    report(what, count);
    for (int i = 0; i < count; ++i) {
      printf("  %s\n", names[i]);
      free(names[i]);
    }
    if (count >= 0) free(names);
  } else {
    printf("%s -> unknown\n", what);
  }
}

int main(void) {
  char line[600];
  while (fgets(line, sizeof line, stdin) != NULL) run(line);
  for (int i = 0; i < SLOTS; ++i) {
    if (slots[i] >= 0) close(slots[i]);
  }
  print_tree(".", 0);
  fflush(stdout);
  fprintf(stderr, "done\n");
  return 0;
}
