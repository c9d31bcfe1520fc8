/*
 * cudecomp_version.h: the cuDecomp release whose C API wavestack's cudecomp implements, and the
 * versions of the public structs, with upstream 0.7.0's names and values (and no others). A
 * struct's version grows when fields are appended to it, so a program built against an older
 * header keeps working with a newer library.
 */
#ifndef CUDECOMP_VERSION_H
#define CUDECOMP_VERSION_H

#define CUDECOMP_MAJOR 0
#define CUDECOMP_MINOR 7
#define CUDECOMP_PATCH 0

#define CUDECOMP_GRID_DESC_CONFIG_VERSION 1
#define CUDECOMP_GRID_DESC_AUTOTUNE_OPTIONS_VERSION 1
#define CUDECOMP_PENCIL_INFO_VERSION 1

#endif /* CUDECOMP_VERSION_H */
