/*
 * Stand-in for NVML's header, found only where no real one is installed: upstream cuDecomp's
 * include/internal/checks.h includes it for CHECK_NVML, a macro that the test programs built
 * here (tests/cudecomp_upstream) never expand, so they need no declaration from it. A test helper.
 */
#ifndef WAVESTACK_STANDIN_NVML_H
#define WAVESTACK_STANDIN_NVML_H
#endif
