// CxxJit on clang 15 and LLVM 15: the frontend parses a unit against its preamble's
// precompiled header (built once, kept in memory), LLVM optimises the module at the requested
// level and emits an object in memory, and ORC's JITLink links objects into the process, each
// into a dylib of its own (units export the same entry names). Everything the compiler reads
// comes from an in-memory file system: no file is read or written.
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/ADT/Triple.h>
#include <llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "jit/cxx_jit.hpp"
#include "jit/fast_isel_selects.hpp"
#include "jit/object_loader.hpp"
#include "jit/perf_map.hpp"

namespace wavestack::jit {
namespace {

constexpr const char* kPreambleHeader = "/wavestack-jit/preamble.hpp";
constexpr const char* kPreamblePch = "/wavestack-jit/preamble.pch";
constexpr const char* kUnitSource = "/wavestack-jit/unit.cpp";

std::string take_message(llvm::Error error) {
  return llvm::toString(std::move(error));
}

// The frontend's flags, the same for the precompiled header and every unit of a preamble (a
// header is only usable with the language options it was built with). No exceptions, no RTTI:
// the units use neither. Floating-point contraction off: a fused multiply-add would round once
// where WebAssembly rounds twice. Optimisation is ours (below), so the frontend runs no passes.
// For a preamble compiled into every unit it generates code as for -O1 (type-based alias
// information for -O3, the preamble's functions emitted where units use them, for inlining).
// For a shared preamble (PreambleCode::kShared), as for -O0 without optnone: its functions are
// then only declared in units (at -O1 their bodies would be generated for the inliner), but
// the always-inline ones, which the fast passes inline. No IR verifier: the frontend's output
// is checked by LLVM's own tests, not by every unit's build (a tenth of the frontend's time).
std::vector<std::string> frontend_flags(const std::string& triple, const std::string& cpu, PreambleCode code) {
  std::vector<std::string> flags{"-triple",
                                 triple,
                                 "-target-cpu",
                                 cpu,
                                 "-std=c++20",
                                 "-disable-llvm-passes",
                                 "-discard-value-names",
                                 "-disable-llvm-verifier",
                                 "-ffp-contract=off",
                                 "-fno-rtti",
                                 "-w",
                                 "-nostdsysteminc",
                                 "-nobuiltininc",
                                 "-mrelocation-model",
                                 "pic",
                                 "-pic-level",
                                 "2"};
  if (code == PreambleCode::kShared) {
    flags.insert(flags.end(), {"-O0", "-disable-O0-optnone"});
  } else {
    flags.emplace_back("-O1");
  }
  return flags;
}

// Collects the compiler's messages for the exception that reports a failed build.
class MessageCollector {
 public:
  MessageCollector() : stream_(text_) {}
  clang::DiagnosticConsumer* consumer() {
    return new clang::TextDiagnosticPrinter(stream_, new clang::DiagnosticOptions());
  }
  std::string text() {
    stream_.flush();
    return text_.substr(0, 4000);
  }

 private:
  std::string text_;
  llvm::raw_string_ostream stream_;
};

// A compiler instance over `files` only, its invocation made from cc1 `args`.
std::unique_ptr<clang::CompilerInstance> make_instance(const std::vector<std::string>& args,
                                                       llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files,
                                                       MessageCollector& messages) {
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  auto instance = std::make_unique<clang::CompilerInstance>();
  instance->createDiagnostics(messages.consumer(), /*ShouldOwnClient=*/true);
  if (!clang::CompilerInvocation::CreateFromArgs(instance->getInvocation(), argv, instance->getDiagnostics())) {
    throw std::runtime_error("in-process compiler: bad flags: " + messages.text());
  }
  instance->createFileManager(std::move(files));
  // Not "N errors generated." on stderr: the messages go into the exception.
  instance->setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
  return instance;
}

// Writes the precompiled header into memory instead of a file.
class PchToMemoryAction final : public clang::ASTFrontendAction {
 public:
  explicit PchToMemoryAction(std::shared_ptr<clang::PCHBuffer> buffer) : buffer_(std::move(buffer)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& instance,
                                                        llvm::StringRef /*file*/) override {
    return std::make_unique<clang::PCHGenerator>(instance.getPreprocessor(), instance.getModuleCache(), kPreamblePch,
                                                 /*isysroot=*/"", buffer_,
                                                 instance.getFrontendOpts().ModuleFileExtensions);
  }
  clang::TranslationUnitKind getTranslationUnitKind() override { return clang::TU_Prefix; }
  bool hasASTFileSupport() const override { return false; }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_;
};

// Skips every optional pass of a build once `cancelled` says so (LLVM consults the context's
// gate before each legacy and machine-function pass).
class CancelGate final : public llvm::OptPassGate {
 public:
  explicit CancelGate(std::function<bool()> cancelled) : cancelled_(std::move(cancelled)) {}
  bool shouldRunPass(const llvm::Pass* /*pass*/, llvm::StringRef /*description*/) override { return !cancelled_(); }
  bool isEnabled() const override { return true; }

 private:
  std::function<bool()> cancelled_;
};

// One preamble and its precompiled header, built by the first unit that needs it.
struct Preamble {
  std::string_view text;
  PreambleCode code = PreambleCode::kInEveryUnit;
  std::mutex mutex;
  bool built = false;
  std::string failure;  // the build's messages when it failed
  std::unique_ptr<llvm::MemoryBuffer> pch;
};

class ClangJit final : public CxxJit {
 public:
  ClangJit(std::unique_ptr<llvm::orc::LLJIT> jit, std::unique_ptr<ObjectLoader> loader)
      : jit_(std::move(jit)),
        loader_(std::move(loader)),
        triple_(llvm::sys::getProcessTriple()),
        cpu_(target_cpu(triple_)),
        identity_("clang " CLANG_VERSION_STRING " " + triple_ + " " + cpu_) {}

  const std::string& identity() const override { return identity_; }

  std::string compile(std::string_view preamble_text, std::string_view source, OptLevel level,
                      PreambleCode code) override {
    Preamble& preamble = preamble_for(preamble_text, code);
    const llvm::MemoryBuffer& pch = precompiled(preamble);
    auto files = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    add_file(*files, kPreambleHeader, preamble.text);
    add_file(*files, kPreamblePch, pch.getBuffer());
    add_file(*files, kUnitSource, source);
    std::vector<std::string> args = frontend_flags(triple_, cpu_, code);
    // The fast tier's passes use neither lifetime markers nor type-based alias information;
    // generating them cost about a tenth of its build.
    if (level == OptLevel::kFast) args.insert(args.end(), {"-disable-lifetime-markers", "-relaxed-aliasing"});
    args.insert(args.end(), {"-include-pch", kPreamblePch, "-x", "c++", kUnitSource});
    return build(args, files, level, "the unit");
  }

  // The preamble compiled as a unit of its own that emits every function it declares, the
  // inline ones too. (Compiling the precompiled header itself into an object, as clang's driver
  // does for -fpch-codegen, reads the header from the real file system in clang 15.) Its
  // functions have the names the units' declarations of them have.
  std::string compile_preamble_object(std::string_view preamble_text) override {
    auto files = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    add_file(*files, kUnitSource, preamble_text);
    std::vector<std::string> args = frontend_flags(triple_, cpu_, PreambleCode::kShared);
    args.insert(args.end(), {"-femit-all-decls", "-x", "c++", kUnitSource});
    return build(args, files, OptLevel::kFast, "the preamble's object");
  }

  void load_shared(std::string_view object) override {
    if (loader_ && loader_->load(object, "preamble", {}, true, nullptr)) {
      // Units JITLink links (those the loader refuses) find the runtime here too.
      llvm::orc::SymbolMap definitions;
      for (const auto& [name, address] : loader_->exported()) {
        if (!published_.insert(name).second) continue;  // an earlier preamble's, defined already
        definitions[jit_->mangleAndIntern(name)] =
            llvm::JITEvaluatedSymbol(address, llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
      }
      if (llvm::Error error = jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(definitions)))) {
        throw std::runtime_error("in-process compiler: cannot publish a preamble: " + take_message(std::move(error)));
      }
      return;
    }
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), "preamble");
    if (llvm::Error error = jit_->addObjectFile(jit_->getMainJITDylib(), std::move(buffer))) {
      throw std::runtime_error("in-process compiler: cannot link a preamble: " + take_message(std::move(error)));
    }
  }

  void cancel_running() override { cancel_generation_.fetch_add(1, std::memory_order_relaxed); }

  std::vector<void*> load(std::string_view object, std::span<const char* const> symbols) override {
    const std::uint64_t serial = next_dylib_.fetch_add(1, std::memory_order_relaxed);
    if (loader_) {
      if (auto addresses = loader_->load(object, "unit-" + std::to_string(serial), symbols, false, nullptr)) {
        return std::move(*addresses);
      }
    }
    // What the loader does not handle (or a missing symbol, which JITLink reports in full).
    auto dylib = jit_->createJITDylib("unit-" + std::to_string(serial));
    if (!dylib) throw std::runtime_error("in-process compiler: " + take_message(dylib.takeError()));
    // The unit's own definitions first, then the process's (memcpy, the C math library).
    dylib->addToLinkOrder(jit_->getMainJITDylib());
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()),
                                                       "unit-" + std::to_string(serial));
    if (llvm::Error error = jit_->addObjectFile(*dylib, std::move(buffer))) {
      throw std::runtime_error("in-process compiler: cannot link a unit: " + take_message(std::move(error)));
    }
    std::vector<void*> addresses;
    addresses.reserve(symbols.size());
    for (const char* symbol : symbols) {
      auto address = jit_->lookup(*dylib, symbol);
      if (!address) {
        throw std::runtime_error(std::string("in-process compiler: a unit lacks ") + symbol + ": " +
                                 take_message(address.takeError()));
      }
      addresses.push_back(address->toPtr<void*>());
    }
    return addresses;
  }

 private:
  // The frontend with `args` over `files`, then our passes and code generator at `level`: an
  // object, or empty when cancel_running() was called meanwhile.
  std::string build(const std::vector<std::string>& args, llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> files,
                    OptLevel level, const char* what) {
    const std::uint64_t generation = cancel_generation_.load(std::memory_order_relaxed);
    const std::function<bool()> cancelled = [this, generation] {
      return cancel_generation_.load(std::memory_order_relaxed) != generation;
    };
    MessageCollector messages;
    auto instance = make_instance(args, std::move(files), messages);
    auto context = std::make_unique<llvm::LLVMContext>();
    clang::EmitLLVMOnlyAction action(context.get());
    if (!instance->ExecuteAction(action)) {
      throw std::runtime_error(std::string("in-process compiler: ") + what + " does not compile:\n" + messages.text());
    }
    std::unique_ptr<llvm::Module> module = action.takeModule();
    if (!module) throw std::runtime_error("in-process compiler: no module produced:\n" + messages.text());
    if (cancelled()) return {};
    CancelGate gate(cancelled);
    context->setOptPassGate(gate);
    std::string object = emit_object(*module, level, cancelled);
    return cancelled() ? std::string() : object;
  }

  // The processor the code is generated for. On x86-64 a micro-architecture level the host
  // has, not the host itself: the level's features are all this code can use (scalar integer
  // and double arithmetic, bit manipulation), every machine of the level runs the cached
  // objects, and LLVM 15 failed in type legalisation ("Do not know how to split the result of
  // this operator") on a few units when given this host's AVX-512 FP16 features.
  static std::string target_cpu(const std::string& triple) {
    if (llvm::Triple(triple).getArch() != llvm::Triple::x86_64) return llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    if (!llvm::sys::getHostCPUFeatures(features)) return "x86-64";
    auto has = [&](std::initializer_list<const char*> names) {
      return std::all_of(names.begin(), names.end(), [&](const char* name) { return features.lookup(name); });
    };
    if (has({"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave", "sse4.2", "popcnt", "cx16"})) {
      return "x86-64-v3";
    }
    if (has({"sse4.2", "popcnt", "cx16", "ssse3", "sse4.1"})) return "x86-64-v2";
    return "x86-64";
  }

  static void add_file(llvm::vfs::InMemoryFileSystem& files, const char* path, std::string_view text) {
    files.addFile(path, /*ModificationTime=*/0,
                  llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(text.data(), text.size()), path,
                                                   /*RequiresNullTerminator=*/false));
  }

  Preamble& preamble_for(std::string_view text, PreambleCode code) {
    const std::lock_guard lock(preambles_mutex_);
    auto& slot = preambles_[{text.data(), text.size(), code}];
    if (!slot) {
      slot = std::make_unique<Preamble>();
      slot->text = text;
      slot->code = code;
    }
    return *slot;
  }

  // The preamble's precompiled header, built on first use (other units wait for it).
  const llvm::MemoryBuffer& precompiled(Preamble& preamble) {
    const std::lock_guard lock(preamble.mutex);
    if (!preamble.built) {
      preamble.built = true;
      auto files = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
      add_file(*files, kPreambleHeader, preamble.text);
      std::vector<std::string> args = frontend_flags(triple_, cpu_, preamble.code);
      // A shared preamble's header as a module whose code is generated once, by
      // compile_preamble_object; units then take its functions as defined elsewhere.
      if (preamble.code == PreambleCode::kShared) args.emplace_back("-fmodules-codegen");
      args.insert(args.end(), {"-emit-pch", "-x", "c++-header", kPreambleHeader});
      MessageCollector messages;
      auto instance = make_instance(args, files, messages);
      auto buffer = std::make_shared<clang::PCHBuffer>();
      PchToMemoryAction action(buffer);
      if (!instance->ExecuteAction(action) || !buffer->IsComplete) {
        preamble.failure = "in-process compiler: the preamble does not compile:\n" + messages.text();
      } else {
        preamble.pch = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(buffer->Data.data(), buffer->Data.size()),
                                                            kPreamblePch);
      }
    }
    if (!preamble.pch) throw std::runtime_error(preamble.failure);
    return *preamble.pch;
  }

  std::unique_ptr<llvm::TargetMachine> target_machine(OptLevel level) const {
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple_, error);
    if (target == nullptr) throw std::runtime_error("in-process compiler: " + error);
    llvm::TargetOptions options;
    options.AllowFPOpFusion = llvm::FPOpFusion::Strict;  // WebAssembly rounds every operation
    std::unique_ptr<llvm::TargetMachine> machine(
        target->createTargetMachine(triple_, cpu_, "", options, llvm::Reloc::PIC_, llvm::CodeModel::Small,
                                    level == OptLevel::kFast ? llvm::CodeGenOpt::None : llvm::CodeGenOpt::Default));
    if (!machine) throw std::runtime_error("in-process compiler: no target machine for " + triple_);
    return machine;
  }

  // kFast: scalar replacement of the frontend's stack slots, the device library's leaf
  // helpers inlined (always_inline), early CSE and CFG cleanup, then the fast instruction
  // selector and register allocator (no other inlining: docs/PERFORMANCE.md has what inlining
  // small functions cost and bought). The slots are replaced before the helpers are inlined
  // too, so each helper's body is inlined clean rather than with its stack slots, which
  // halved these passes (they had become two thirds of a unit's build). kOptimized: LLVM's
  // -O3 (-O2's code was a third slower on call-heavy code, fib, and no faster elsewhere; -O3
  // builds about 30% longer).
  static void optimise(llvm::Module& module, llvm::TargetMachine& machine, OptLevel level,
                       const std::function<bool()>& cancelled) {
    llvm::LoopAnalysisManager loops;
    llvm::FunctionAnalysisManager functions;
    llvm::CGSCCAnalysisManager sccs;
    llvm::ModuleAnalysisManager modules;
    llvm::PassInstrumentationCallbacks instrumentation;
    instrumentation.registerShouldRunOptionalPassCallback(
        [&](llvm::StringRef, const llvm::Any&) { return !cancelled(); });
    llvm::PassBuilder builder(&machine, llvm::PipelineTuningOptions(), llvm::None, &instrumentation);
    builder.registerModuleAnalyses(modules);
    builder.registerCGSCCAnalyses(sccs);
    builder.registerFunctionAnalyses(functions);
    builder.registerLoopAnalyses(loops);
    builder.crossRegisterProxies(loops, functions, sccs, modules);
    llvm::ModulePassManager passes;
    if (level == OptLevel::kOptimized) {
      passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    } else if (llvm::Error error = builder.parsePassPipeline(
                   passes, "function(sroa),always-inline,function(sroa,early-cse,simplifycfg)")) {
      throw std::runtime_error("in-process compiler: " + take_message(std::move(error)));
    }
    passes.run(module, modules);
    if (level == OptLevel::kFast) boolean_selects_as_logic(module);
  }

  std::string emit_object(llvm::Module& module, OptLevel level, const std::function<bool()>& cancelled) const {
    std::unique_ptr<llvm::TargetMachine> machine = target_machine(level);
    module.setDataLayout(machine->createDataLayout());
    module.setTargetTriple(triple_);
    optimise(module, *machine, level, cancelled);
    // A cancelled build's object is dropped: skip code generation, which would run in full on
    // the unoptimised module (its passes are not optional), the longest part of a cancelled
    // -O3 build that an exiting process waited for (0.2 to 0.8 s).
    if (cancelled()) return {};
    llvm::SmallVector<char, 0> object;
    llvm::raw_svector_ostream stream(object);
    llvm::legacy::PassManager emit;
    if (machine->addPassesToEmitFile(emit, stream, nullptr, llvm::CGFT_ObjectFile)) {
      throw std::runtime_error("in-process compiler: the target cannot emit objects");
    }
    emit.run(module);
    return {object.data(), object.size()};
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::unique_ptr<ObjectLoader> loader_;  // null: JITLink links everything
  std::set<std::string> published_;       // the loader's exports defined for JITLink's units
  std::string triple_;
  std::string cpu_;
  std::string identity_;
  std::mutex preambles_mutex_;
  std::map<std::tuple<const char*, std::size_t, PreambleCode>, std::unique_ptr<Preamble>> preambles_;
  std::atomic<std::uint64_t> next_dylib_{0};
  std::atomic<std::uint64_t> cancel_generation_{0};
};

// Our loader unless WAVESTACK_JIT_LINKER=jitlink (to compare the two) or the process cannot
// use one.
std::unique_ptr<ObjectLoader> object_loader_from_environment() {
  const char* linker = std::getenv("WAVESTACK_JIT_LINKER");
  if (linker != nullptr && std::string_view(linker) == "jitlink") return nullptr;
  return ObjectLoader::create(nullptr);
}

std::unique_ptr<CxxJit> create() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto jit = llvm::orc::LLJITBuilder()
                 .setObjectLinkingLayerCreator(
                     [](llvm::orc::ExecutionSession& session,
                        const llvm::Triple& /*triple*/) -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                       // JITLink places each object's sections in one allocation, so its PC-relative
                       // references always reach.
                       auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(session);
                       if (auto plugin = perf_map_plugin_from_environment()) layer->addPlugin(std::move(plugin));
                       return layer;
                     })
                 .create();
  if (!jit) throw std::runtime_error(take_message(jit.takeError()));
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!process) throw std::runtime_error(take_message(process.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  return std::make_unique<ClangJit>(std::move(*jit), object_loader_from_environment());
}

}  // namespace
}  // namespace wavestack::jit

extern "C" __attribute__((visibility("default"))) wavestack::jit::CxxJit* wavestack_jit_create(char* error,
                                                                                               std::size_t error_size) {
  try {
    return wavestack::jit::create().release();
  } catch (const std::exception& failure) {
    if (error != nullptr && error_size > 0) {
      std::strncpy(error, failure.what(), error_size - 1);
      error[error_size - 1] = '\0';
    }
    return nullptr;
  }
}
