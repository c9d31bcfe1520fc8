// Attributes a Vulkan context's submissions and transfers to one spawn. The context is shared
// by every spawn on the device, so a spawn counts only what happens while it holds the
// device mutex: a tally opened after taking the lock adds the context's growth since then to
// the spawn's running totals when it closes.
#pragma once

#include <cstdint>

#include "runtime/compute_context.hpp"
#include "wasm/instances/instance_set.hpp"

namespace wavestack::wasm {

class TransferTally {
 public:
  TransferTally(const runtime::ComputeContext& context, TransferCounts& totals) noexcept
      : context_(context), totals_(totals), before_(context.timings()) {}
  ~TransferTally() {
    const runtime::PhaseTimings& now = context_.timings();
    totals_.submits += grown(before_.submits, now.submits);
    totals_.fence_waits += grown(before_.fence_waits, now.fence_waits);
    totals_.bytes_uploaded += grown(before_.bytes_uploaded, now.bytes_uploaded);
    totals_.bytes_downloaded += grown(before_.bytes_downloaded, now.bytes_downloaded);
  }
  TransferTally(const TransferTally&) = delete;
  TransferTally& operator=(const TransferTally&) = delete;

 private:
  // reset_timings() in between restarts the context's counters from zero.
  static std::uint64_t grown(std::uint64_t before, std::uint64_t now) noexcept {
    return now >= before ? now - before : now;
  }

  const runtime::ComputeContext& context_;
  TransferCounts& totals_;
  runtime::PhaseTimings before_;
};

}  // namespace wavestack::wasm
