// The three ways a WebAssembly binary can be refused at load, as distinct types so callers
// (and the Python bindings) can tell "not a WebAssembly binary" from "ill-typed" from
// "valid, but outside what this engine runs". Each carries the byte offset where the
// problem was found and the reason in the spec's wording where the spec has one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wavestack::wasm {

class ModuleError : public std::runtime_error {
 public:
  ModuleError(const std::string& what_kind, std::size_t offset, std::string reason);
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::size_t offset_;
  std::string reason_;
};

// The bytes do not decode as a WebAssembly 2.0 binary (spec: assert_malformed).
class MalformedModule : public ModuleError {
 public:
  MalformedModule(std::size_t offset, std::string reason);
};

// The binary decodes but fails validation (spec: assert_invalid).
class InvalidModule : public ModuleError {
 public:
  InvalidModule(std::size_t offset, std::string reason);
};

// What WebAssembly 2.0 itself says about an encoding that a later proposal defines.
// The spec's tests pin a few of these (a tag import kind, shared-memory limit flags, a
// second memory): the error is then both the unsupported feature and the 2.0 verdict.
enum class SpecVerdict : std::uint8_t { kNone, kMalformed, kInvalid };

// The module uses something outside the supported profile (SIMD, threads, memory64, ...).
// `feature` is the short name of the feature; the reason says what was found. With a
// spec verdict the reason starts with the spec's wording, then names the feature.
class UnsupportedFeature : public ModuleError {
 public:
  UnsupportedFeature(std::size_t offset, std::string feature, const std::string& detail);
  UnsupportedFeature(std::size_t offset, std::string feature, const std::string& detail, SpecVerdict verdict,
                     const std::string& spec_reason);
  [[nodiscard]] const std::string& feature() const noexcept { return feature_; }
  [[nodiscard]] SpecVerdict spec_verdict() const noexcept { return verdict_; }

 private:
  std::string feature_;
  SpecVerdict verdict_ = SpecVerdict::kNone;
};

// Short feature names, used by the decoder and validator and matched by the tests.
namespace feature {
inline constexpr const char* kSimd = "SIMD";
inline constexpr const char* kThreads = "threads";
inline constexpr const char* kExceptions = "exception handling";
inline constexpr const char* kTailCalls = "tail calls";
inline constexpr const char* kGc = "GC";
inline constexpr const char* kTypedFunctionReferences = "typed function references";
inline constexpr const char* kMemory64 = "memory64";
inline constexpr const char* kMultipleMemories = "multiple memories";
inline constexpr const char* kCustomPageSizes = "custom page sizes";
inline constexpr const char* kImportedMemory = "imported memories";
inline constexpr const char* kImportedTable = "imported tables";
inline constexpr const char* kImportedGlobal = "imported globals";
inline constexpr const char* kModuleLinking = "module linking";
inline constexpr const char* kImplementationLimits = "implementation limits";
}  // namespace feature

}  // namespace wavestack::wasm
