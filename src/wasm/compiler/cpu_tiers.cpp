#include "wasm/compiler/cpu_tiers.hpp"

#include <cstdlib>
#include <string_view>
#include <vector>

#include "jit/jit_loader.hpp"
#include "runtime/error.hpp"
#include "wasm/baseline/block_compiler.hpp"
#include "wasm/instances/build_ahead_setting.hpp"

namespace wavestack::wasm::compiler {
namespace {

constexpr const char* kVariable = "WAVESTACK_WASM_CPU_TIERS";

std::optional<CpuTier> parse_tier(std::string_view name) {
  if (name == "baseline") return CpuTier::kBaseline;
  if (name == "fast") return CpuTier::kFast;
  if (name == "optimized") return CpuTier::kOptimized;
  if (name == "host") return CpuTier::kHost;
  return std::nullopt;
}

}  // namespace

const char* cpu_tier_name(CpuTier tier) {
  switch (tier) {
    case CpuTier::kBaseline:
      return "baseline";
    case CpuTier::kFast:
      return "fast";
    case CpuTier::kOptimized:
      return "optimized";
    case CpuTier::kHost:
      return "host";
  }
  return "?";
}

bool cpu_tier_is_in_process(CpuTier tier) {
  return tier != CpuTier::kHost;
}

bool cpu_tier_needs_jit(CpuTier tier) {
  return tier == CpuTier::kFast || tier == CpuTier::kOptimized;
}

CpuTierPlan cpu_tier_plan(const char* value, bool jit_available, const std::string& why_no_jit) {
  if (value == nullptr || *value == '\0') {
    // The baseline first (a first run waits for no compiler), hot units rebuilt optimised.
    if (baseline::baseline_supported()) {
      return jit_available ? CpuTierPlan{CpuTier::kBaseline, CpuTier::kOptimized, CpuTier::kFast}
                           : CpuTierPlan{CpuTier::kBaseline, CpuTier::kHost, CpuTier::kHost};
    }
    return jit_available ? CpuTierPlan{CpuTier::kFast, CpuTier::kOptimized, CpuTier::kFast}
                         : CpuTierPlan{CpuTier::kHost, std::nullopt, CpuTier::kHost};
  }
  const std::string text = value;
  std::vector<CpuTier> tiers;
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {  // every part, empty ones included ("fast," has two)
    const std::size_t comma = text.find(',', at);
    parts.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  for (const std::string& part : parts) {
    const auto tier = parse_tier(part);
    if (!tier) {
      throw runtime::InvalidArgument(kVariable, "unknown tier '" + part + "' in '" + text +
                                                    "' (tiers: baseline, fast, optimized, host; e.g. 'fast,host')");
    }
    if (cpu_tier_needs_jit(*tier) && !jit_available) {
      throw runtime::InvalidArgument(kVariable, "tier '" + part + "' needs the in-process compiler: " + why_no_jit);
    }
    for (const CpuTier earlier : tiers) {
      if (earlier == *tier)
        throw runtime::InvalidArgument(kVariable, "tier '" + part + "' given twice in '" + text + "'");
    }
    if (*tier == CpuTier::kBaseline && !tiers.empty()) {
      throw runtime::InvalidArgument(kVariable, "the baseline tier can only come first, in '" + text + "'");
    }
    if (*tier == CpuTier::kBaseline && !baseline::baseline_supported()) {
      throw runtime::InvalidArgument(kVariable, "the baseline tier needs an x86-64 Linux host");
    }
    tiers.push_back(*tier);
  }
  if (tiers.empty() || tiers.size() > 2) {
    throw runtime::InvalidArgument(kVariable,
                                   "expected a first tier and at most one tier for hot units, got '" + text + "'");
  }
  CpuTierPlan plan{tiers[0], std::nullopt, tiers[0]};
  if (tiers.size() == 2) plan.hot = tiers[1];
  if (plan.first == CpuTier::kBaseline) plan.prefixes = jit_available ? CpuTier::kFast : CpuTier::kHost;
  return plan;
}

CpuTierPlan cpu_tier_plan_from_environment() {
  const char* value = std::getenv(kVariable);
  // The in-process compiler is loaded (LLVM: a tenth of a second) only where the plan may use it.
  const std::string_view text = value != nullptr ? value : "";
  // (A baseline plan builds its prefixes, when fuel runs out inside a block, with it.)
  const bool may_use_it = text.empty() || text.find("fast") != std::string_view::npos ||
                          text.find("optimized") != std::string_view::npos ||
                          text.find("baseline") != std::string_view::npos;
  std::string why_not = "not needed";
  // The default plan with the baseline first needs the compiler only for hot units and
  // prefixes: it is planned from its library's presence and loaded when first used (a warm
  // start that finds its hot units cached never loads it; see CpuUnitCode::load_or_build for a
  // library that then does not load).
  const bool deferred = text.empty() && baseline::baseline_supported() && !jit::cxx_jit_identity_inputs().empty();
  const bool available = deferred || (may_use_it && jit::cxx_jit(&why_not) != nullptr);
  CpuTierPlan plan = cpu_tier_plan(value, available, why_not);
  // (Baseline units compile on need in microseconds: none are built ahead.)
  plan.ahead = build_ahead_enabled_from_environment(true) && plan.first != CpuTier::kBaseline;
  return plan;
}

}  // namespace wavestack::wasm::compiler
