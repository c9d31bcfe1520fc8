/* volk ships as a single source file in Debian's libvulkan-volk-dev; compiling it here keeps
   the loader a run-time dependency only (DESIGN decision 2). */
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.c>
