/*
 * EXPECT for the C test programs run under mpiexec (decomp_c_abi_test.c, decomp_legacy_abi_test.c):
 * a failed check prints the rank and line and is counted; main sums the counts over ranks.
 */
#ifndef WAVESTACK_TESTS_C_TEST_EXPECT_H
#define WAVESTACK_TESTS_C_TEST_EXPECT_H

#include <stdio.h>

static int failures = 0;
static int rank = 0;

#define EXPECT(condition)                                                                    \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      fprintf(stderr, "rank %d: %s:%d: failed: %s\n", rank, __FILE__, __LINE__, #condition); \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

#endif
