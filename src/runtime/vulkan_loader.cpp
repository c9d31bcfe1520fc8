#include "runtime/vulkan_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "runtime/error.hpp"

namespace wavestack::runtime {
namespace {

struct LoadedVulkan {
  VulkanAvailability availability;
  VkInstance instance = VK_NULL_HANDLE;
};

// volkInitialize only knows the system loader's name; the override lets tests (and users with
// a loader in an unusual place) point at another library, or at nothing.
bool initialize_loader(std::string& reason) {
  const char* override_path = std::getenv("WAVESTACK_VULKAN_LIBRARY");
  if (override_path == nullptr || *override_path == '\0') {
    if (volkInitialize() != VK_SUCCESS) {
      reason = "no Vulkan loader (libvulkan.so.1) was found";
      return false;
    }
    return true;
  }
  void* library = dlopen(override_path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    reason = std::string("the Vulkan loader named by WAVESTACK_VULKAN_LIBRARY could not be loaded: ") + override_path;
    return false;
  }
  auto* get_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (get_proc == nullptr) {
    reason = std::string("not a Vulkan loader (no vkGetInstanceProcAddr): ") + override_path;
    return false;
  }
  volkInitializeCustom(get_proc);
  return true;
}

bool has_instance_extension(const char* name) {
  uint32_t count = 0;
  if (vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data()) != VK_SUCCESS) return false;
  for (const auto& extension : extensions) {
    if (std::string_view(extension.extensionName) == name) return true;
  }
  return false;
}

LoadedVulkan load() {
  LoadedVulkan loaded;
  if (!initialize_loader(loaded.availability.reason)) return loaded;

  const uint32_t loader_version = volkGetInstanceVersion();
  if (loader_version < VK_API_VERSION_1_1) {
    loaded.availability.reason = "the Vulkan loader only supports Vulkan 1.0; 1.1 or newer is required";
    return loaded;
  }

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "wavestack";
  app.pEngineName = "wavestack";
  // Ask for the newest version the loader knows; devices report what they really support.
  app.apiVersion = loader_version >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : loader_version;

  std::vector<const char*> extensions;
  VkInstanceCreateFlags flags = 0;
  // MoltenVK (Apple) only shows up when portability enumeration is requested.
  if (has_instance_extension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME)) {
    extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
  }

  VkInstanceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.flags = flags;
  create.pApplicationInfo = &app;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();

  const VkResult result = vkCreateInstance(&create, nullptr, &loaded.instance);
  if (result != VK_SUCCESS) {
    loaded.availability.reason =
        std::string("vkCreateInstance failed with ") + vulkan_result_name(result) + " (no usable Vulkan driver)";
    loaded.instance = VK_NULL_HANDLE;
    return loaded;
  }
  volkLoadInstanceOnly(loaded.instance);
  loaded.availability.available = true;
  return loaded;
}

// The instance lives for the whole process on purpose: destroying it at exit races with
// driver threads on some ICDs, and the OS reclaims everything anyway.
LoadedVulkan& loaded_vulkan() {
  static LoadedVulkan* loaded = new LoadedVulkan(load());
  return *loaded;
}

}  // namespace

const VulkanAvailability& vulkan_availability() {
  return loaded_vulkan().availability;
}

VkInstance vulkan_instance() {
  return loaded_vulkan().instance;
}

}  // namespace wavestack::runtime
