#include "jit/perf_map.hpp"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "jit/perf_map_file.hpp"

namespace wavestack::jit {
namespace {

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility& /*responsibility*/,
                        llvm::jitlink::LinkGraph& /*graph*/, llvm::jitlink::PassConfiguration& config) override {
    // After fix-up every symbol has its final address.
    config.PostFixupPasses.push_back([](llvm::jitlink::LinkGraph& graph) {
      write_perf_map(entries(graph));
      return llvm::Error::success();
    });
  }

  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility& /*responsibility*/) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::ResourceKey /*key*/) override { return llvm::Error::success(); }
  void notifyTransferringResources(llvm::orc::ResourceKey /*to*/, llvm::orc::ResourceKey /*from*/) override {}

 private:
  // One entry per function, the object's name first (units define the same entry names). A
  // unit's own functions have internal linkage and no symbols in its object, so the rest of
  // each code block is named after the object alone.
  static std::vector<PerfMapEntry> entries(llvm::jitlink::LinkGraph& graph) {
    std::vector<PerfMapEntry> lines;
    const std::string object = graph.getName();
    for (llvm::jitlink::Section& section : graph.sections()) {
      const auto exec = static_cast<unsigned>(llvm::jitlink::MemProt::Exec);
      if ((static_cast<unsigned>(section.getMemProt()) & exec) == 0) continue;
      for (llvm::jitlink::Block* block : section.blocks()) {
        std::vector<const llvm::jitlink::Symbol*> named;
        for (const llvm::jitlink::Symbol* symbol : section.symbols()) {
          if (&symbol->getBlock() == block && symbol->hasName() && symbol->getSize() != 0) named.push_back(symbol);
        }
        std::sort(named.begin(), named.end(),
                  [](const auto* a, const auto* b) { return a->getAddress().getValue() < b->getAddress().getValue(); });
        std::uint64_t covered = block->getAddress().getValue();  // what the lines so far name
        for (const llvm::jitlink::Symbol* symbol : named) {
          const std::uint64_t start = symbol->getAddress().getValue();
          if (covered < start) lines.push_back({covered, start - covered, object + ":code"});
          lines.push_back({start, symbol->getSize(), object + ":" + symbol->getName().str()});
          covered = std::max(covered, start + symbol->getSize());
        }
        const std::uint64_t block_end = block->getAddress().getValue() + block->getSize();
        if (covered < block_end) lines.push_back({covered, block_end - covered, object + ":code"});
      }
    }
    return lines;
  }
};

}  // namespace

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment() {
  if (!perf_map_enabled()) return nullptr;
  return std::make_unique<PerfMapPlugin>();
}

}  // namespace wavestack::jit
