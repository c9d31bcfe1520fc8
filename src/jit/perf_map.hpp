// Names for JIT-compiled code in Linux perf's profiles: with WAVESTACK_PERF_MAP=1, every
// function the in-process compiler links is appended to /tmp/perf-<pid>.map (perf's format for
// code it cannot find in a file), so `perf report` names a unit's run and block functions
// instead of showing bare addresses.
#pragma once

#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>

#include <memory>

namespace wavestack::jit {

// The plugin that writes the map, or nullptr when WAVESTACK_PERF_MAP is not 1.
[[nodiscard]] std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment();

}  // namespace wavestack::jit
