#include "jit/perf_map.hpp"

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace wavestack::jit {
namespace {

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  explicit PerfMapPlugin(std::FILE* map) : map_(map) {}
  PerfMapPlugin(const PerfMapPlugin&) = delete;
  PerfMapPlugin& operator=(const PerfMapPlugin&) = delete;
  ~PerfMapPlugin() override { std::fclose(map_); }

  void modifyPassConfig(llvm::orc::MaterializationResponsibility& /*responsibility*/,
                        llvm::jitlink::LinkGraph& /*graph*/, llvm::jitlink::PassConfiguration& config) override {
    // After fix-up every symbol has its final address.
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph& graph) {
      write(graph);
      return llvm::Error::success();
    });
  }

  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility& /*responsibility*/) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::ResourceKey /*key*/) override { return llvm::Error::success(); }
  void notifyTransferringResources(llvm::orc::ResourceKey /*to*/, llvm::orc::ResourceKey /*from*/) override {}

 private:
  // One line per function: "START SIZE NAME" in hexadecimal, the object's name first (units
  // define the same entry names). A unit's own functions have internal linkage and no symbols
  // in its object, so the rest of each code block is named after the object alone.
  void write(llvm::jitlink::LinkGraph& graph) {
    const std::lock_guard lock(mutex_);
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
          if (covered < start) line(covered, start - covered, object + ":code");
          line(start, symbol->getSize(), object + ":" + symbol->getName().str());
          covered = std::max(covered, start + symbol->getSize());
        }
        const std::uint64_t block_end = block->getAddress().getValue() + block->getSize();
        if (covered < block_end) line(covered, block_end - covered, object + ":code");
      }
    }
    std::fflush(map_);
  }

  void line(std::uint64_t start, std::uint64_t size, const std::string& name) {
    std::fprintf(map_, "%llx %llx %s\n", static_cast<unsigned long long>(start), static_cast<unsigned long long>(size),
                 name.c_str());
  }

  std::FILE* map_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> perf_map_plugin_from_environment() {
  const char* wanted = std::getenv("WAVESTACK_PERF_MAP");
  if (wanted == nullptr || std::strcmp(wanted, "1") != 0) return nullptr;
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::FILE* map = std::fopen(path.c_str(), "a");
  if (map == nullptr) return nullptr;  // profiling aid only: no map, no names
  return std::make_unique<PerfMapPlugin>(map);
}

}  // namespace wavestack::jit
