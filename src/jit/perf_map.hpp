// Names for code JITLink links in Linux perf's profiles (perf_map_file.hpp: the map itself).
#pragma once

#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

#include <memory>

namespace wavestack::jit {

// The plugin that writes the map, or nullptr when WAVESTACK_PERF_MAP is not 1.
[[nodiscard]] std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment();

}  // namespace wavestack::jit
