// The project's single include of the Vulkan API. Vulkan is loaded at run time through volk,
// so no translation unit may link against libvulkan or call a prototype directly.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.h>
