/*
 * Compares the ABI facts of include/cudecomp.h with those of upstream cuDecomp 0.7.0's own
 * cudecomp.h (decomp_header_abi_facts.c, compiled once against each), fact by fact: macro and
 * enum values, struct sizes, alignments, field offsets and sizes, and the type of every entry
 * point. Prints every difference and the number of facts compared; fails on any difference, on
 * an entry point whose type is not upstream's in either header, or when the lists differ in
 * length.
 */
#include <stdio.h>
#include <string.h>

const char* decomp_header_facts_ours(void);
const char* decomp_header_facts_upstream(void);

/* The next line of `*text` (without its newline) into `line`; 0 at the end. */
static int next_line(const char** text, char* line, size_t capacity) {
  if (**text == '\0') return 0;
  const char* end = strchr(*text, '\n');
  size_t length = end != NULL ? (size_t)(end - *text) : strlen(*text);
  if (length >= capacity) length = capacity - 1;
  memcpy(line, *text, length);
  line[length] = '\0';
  *text = end != NULL ? end + 1 : *text + strlen(*text);
  return 1;
}

int main(void) {
  const char* ours = decomp_header_facts_ours();
  const char* upstream = decomp_header_facts_upstream();
  char our_line[256];
  char upstream_line[256];
  int compared = 0;
  int differences = 0;
  int functions = 0;
  for (;;) {
    const int have_ours = next_line(&ours, our_line, sizeof(our_line));
    const int have_upstream = next_line(&upstream, upstream_line, sizeof(upstream_line));
    if (!have_ours && !have_upstream) break;
    if (have_ours != have_upstream) {
      printf("DIFFERENT: the fact lists differ in length (ours: \"%s\", upstream: \"%s\")\n",
             have_ours ? our_line : "<end>", have_upstream ? upstream_line : "<end>");
      ++differences;
      break;
    }
    ++compared;
    if (strcmp(our_line, upstream_line) != 0) {
      printf("DIFFERENT: ours \"%s\", upstream \"%s\"\n", our_line, upstream_line);
      ++differences;
    }
    if (strncmp(our_line, "function ", 9) == 0) {
      ++functions;
      /* Both headers must declare upstream's type, not merely agree with each other. */
      if (strstr(our_line, ": 1") == NULL || strstr(upstream_line, ": 1") == NULL) {
        printf("WRONG TYPE: ours \"%s\", upstream \"%s\"\n", our_line, upstream_line);
        ++differences;
      }
    }
  }
  printf("decomp-header-abi: %d facts compared (%d entry points), %d different\n", compared, functions, differences);
  /* Fewer facts than the list holds means the text was cut short. */
  if (compared < 120 || functions != 29) {
    printf("decomp-header-abi: expected at least 120 facts and 29 entry points\n");
    return 1;
  }
  return differences == 0 ? 0 : 1;
}
