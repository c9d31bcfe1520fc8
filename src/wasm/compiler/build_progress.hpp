// Progress of unit builds on stderr, so that a first run that builds for a while never waits in
// silence. A call that has built units for more than a second (or a precompile of every unit)
// reports them: on a terminal one line redrawn in place, a bar when the total is known
//   wasmgpu: building units [#########...........] 893/1787 12.3 s
// and elsewhere (a log, CI) a line every five seconds and one at the end
//   wasmgpu: built 571 units in 34.2 s (410 for the call, 161 ahead of need)
// WAVESTACK_PROGRESS: "on" (the default), "off" or "0" (never), "always" (from the first unit,
// for tests); a module's own setting (Module(progress=...)) overrides it.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace wavestack::wasm::compiler {

enum class ProgressMode : std::uint8_t { kOff, kOn, kAlways };

// `value`: the variable's text (null or empty: kOn). Throws runtime::InvalidArgument naming
// WAVESTACK_PROGRESS for anything else.
[[nodiscard]] ProgressMode progress_mode(const char* value);
[[nodiscard]] ProgressMode progress_mode_from_environment();

class BuildProgress {
 public:
  explicit BuildProgress(std::string label) : label_(std::move(label)) {}

  // The module's own setting; nullopt follows the environment (read at each burst's start).
  void set_mode(std::optional<ProgressMode> mode);

  // A unit became ready: built or loaded for a call (`ahead`: beside it, ahead of need).
  void note_unit(bool ahead);
  // A precompile of `total` units begins (a bar), and ends with finish().
  void begin_total(std::uint32_t total);
  void note_done(std::uint32_t done);
  // The call (or precompile) ended: the line ends, with a summary if anything was shown.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void start_burst_locked();
  void show_locked(bool final);

  std::string label_;
  std::mutex mutex_;
  std::optional<ProgressMode> mode_;
  bool active_ = false;  // a burst (call or precompile) has built something
  ProgressMode burst_mode_ = ProgressMode::kOn;
  Clock::time_point start_{};
  Clock::time_point last_shown_{};
  bool shown_ = false;
  bool terminal_ = false;
  std::uint32_t for_call_ = 0;
  std::uint32_t ahead_ = 0;
  std::uint32_t total_ = 0;  // 0: unknown (lazy builds)
  std::uint32_t done_ = 0;
};

}  // namespace wavestack::wasm::compiler
