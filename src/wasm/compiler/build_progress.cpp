#include "wasm/compiler/build_progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "runtime/error.hpp"

namespace wavestack::wasm::compiler {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);                 // a burst shorter than this shows nothing
constexpr auto kTerminalInterval = std::chrono::milliseconds(100);  // redraws of the line
constexpr auto kLogInterval = std::chrono::seconds(5);              // lines in a log
constexpr int kBarWidth = 24;

double seconds_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Written with one write(2) to stderr's descriptor: no stdio buffer between processes'
// streams, and it works while Python holds its own sys.stderr.
void write_stderr(const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

ProgressMode progress_mode(const char* value) {
  if (value == nullptr || *value == '\0') return ProgressMode::kOn;
  const std::string_view text = value;
  if (text == "on" || text == "1") return ProgressMode::kOn;
  if (text == "off" || text == "0") return ProgressMode::kOff;
  if (text == "always") return ProgressMode::kAlways;
  throw runtime::InvalidArgument("WAVESTACK_PROGRESS",
                                 "must be 'on', 'off' (or '0') or 'always', got '" + std::string(text) + "'");
}

ProgressMode progress_mode_from_environment() {
  return progress_mode(std::getenv("WAVESTACK_PROGRESS"));
}

void BuildProgress::set_mode(std::optional<ProgressMode> mode) {
  const std::lock_guard lock(mutex_);
  mode_ = mode;
}

void BuildProgress::start_burst_locked() {
  active_ = true;
  burst_mode_ = mode_ ? *mode_ : progress_mode_from_environment();
  start_ = Clock::now();
  last_shown_ = start_;
  shown_ = false;
  terminal_ = isatty(STDERR_FILENO) != 0;
  for_call_ = 0;
  ahead_ = 0;
  total_ = 0;
  done_ = 0;
}

void BuildProgress::note_unit(bool ahead) {
  const std::lock_guard lock(mutex_);
  if (!active_) {
    if (ahead) return;  // a background build between calls belongs to no call
    start_burst_locked();
  }
  ++(ahead ? ahead_ : for_call_);
  show_locked(false);
}

void BuildProgress::begin_total(std::uint32_t total) {
  const std::lock_guard lock(mutex_);
  start_burst_locked();
  total_ = total;
}

void BuildProgress::note_done(std::uint32_t done) {
  const std::lock_guard lock(mutex_);
  if (!active_) return;
  done_ = done;
  show_locked(false);
}

void BuildProgress::finish() {
  const std::lock_guard lock(mutex_);
  if (!active_) return;
  show_locked(true);
  active_ = false;
}

void BuildProgress::show_locked(bool final) {
  if (burst_mode_ == ProgressMode::kOff) return;
  const auto now = Clock::now();
  const double elapsed = seconds_between(start_, now);
  if (burst_mode_ == ProgressMode::kOn && now - start_ < kQuietFor) return;
  if (!final && shown_ && now - last_shown_ < (terminal_ ? kTerminalInterval : kLogInterval)) return;
  last_shown_ = now;
  shown_ = true;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f s", elapsed);
  std::string line = "wasmgpu: ";
  if (total_ != 0) {
    const int filled = static_cast<int>(static_cast<std::uint64_t>(kBarWidth) * done_ / total_);
    line += (final ? "built units " : "building units ") + label_ + " [" + std::string(filled, '#') +
            std::string(kBarWidth - filled, '.') + "] " + std::to_string(done_) + "/" + std::to_string(total_) + " " +
            seconds;
  } else {
    const std::uint32_t units = for_call_ + ahead_;
    line += (final ? "built " : "building: ") + std::to_string(units) + " units of " + label_ +
            (final ? " in " : ", ") + seconds + " (" + std::to_string(for_call_) + " for the call, " +
            std::to_string(ahead_) + " ahead of need)";
  }
  if (terminal_) {
    // Redrawn in place; padded so a shorter line covers a longer one.
    write_stderr("\r" + line + "   " + (final ? "\n" : ""));
  } else {
    write_stderr(line + "\n");
  }
}

}  // namespace wavestack::wasm::compiler
