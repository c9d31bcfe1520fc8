/*
 * Stand-in for cuTENSOR's header, found only where no real one is installed: upstream cuDecomp's
 * include/internal/checks.h includes it for CHECK_CUTENSOR, a macro that the test programs built
 * here (tests/cudecomp_upstream) never expand, so they need no declaration from it. A test helper.
 */
#ifndef WAVESTACK_STANDIN_CUTENSOR_H
#define WAVESTACK_STANDIN_CUTENSOR_H
#endif
