/*
 * cudecomp_version.h: the cuDecomp release whose C API wavestack's cudecomp implements, and the
 * versions of the public structs. A struct's version grows when fields are appended to it, so
 * a program built against an older header keeps working with a newer library.
 */
#ifndef CUDECOMP_VERSION_H
#define CUDECOMP_VERSION_H

#define CUDECOMP_MAJOR 0
#define CUDECOMP_MINOR 7
#define CUDECOMP_PATCH 0

/* The aliases and CUDECOMP_VERSION below are wavestack additions; upstream defines only the rest. */
#define CUDECOMP_VERSION_MAJOR CUDECOMP_MAJOR
#define CUDECOMP_VERSION_MINOR CUDECOMP_MINOR
#define CUDECOMP_VERSION_PATCH CUDECOMP_PATCH
/* One number for preprocessor comparisons: major * 10000 + minor * 100 + patch. */
#define CUDECOMP_VERSION (CUDECOMP_MAJOR * 10000 + CUDECOMP_MINOR * 100 + CUDECOMP_PATCH)

#define CUDECOMP_GRID_DESC_CONFIG_VERSION 1
#define CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION 1
#define CUDECOMP_PENCIL_INFO_VERSION 1

#endif /* CUDECOMP_VERSION_H */
