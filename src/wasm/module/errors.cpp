#include "wasm/module/errors.hpp"

#include <utility>

namespace wavestack::wasm {

ModuleError::ModuleError(const std::string& what_kind, std::size_t offset, std::string reason)
    : std::runtime_error(what_kind + " at byte " + std::to_string(offset) + ": " + reason),
      offset_(offset),
      reason_(std::move(reason)) {}

MalformedModule::MalformedModule(std::size_t offset, std::string reason)
    : ModuleError("malformed module", offset, std::move(reason)) {}

InvalidModule::InvalidModule(std::size_t offset, std::string reason)
    : ModuleError("invalid module", offset, std::move(reason)) {}

UnsupportedFeature::UnsupportedFeature(std::size_t offset, std::string feature, const std::string& detail)
    : ModuleError("unsupported feature", offset, feature + ": " + detail), feature_(std::move(feature)) {}

UnsupportedFeature::UnsupportedFeature(std::size_t offset, std::string feature, const std::string& detail,
                                       SpecVerdict verdict, const std::string& spec_reason)
    : ModuleError("unsupported feature", offset, spec_reason + " (" + feature + ": " + detail + ")"),
      feature_(std::move(feature)),
      verdict_(verdict) {}

}  // namespace wavestack::wasm
