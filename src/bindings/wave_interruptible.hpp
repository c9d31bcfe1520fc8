// Runs a long native call (an emulator launch) so that Python stays in control. With a
// timeout the work runs on a helper thread while the calling thread, without the GIL, wakes
// every few milliseconds to run Python's signal handlers (Ctrl-C) and to check the deadline.
// Without one it runs on the calling thread (a helper costs more than a small launch), and on
// the main thread a SIGINT handler chained in front of Python's stops it.
#pragma once

#include <atomic>
#include <functional>
#include <string>

namespace wavestack::bindings {

// Runs `work(stop)` and returns when it has finished. The caller holds the GIL. When a signal
// handler raises (KeyboardInterrupt) or `timeout_seconds` (> 0) passes, `stop` becomes
// non-zero; work is expected to end soon after (LaunchStopped), and the Python exception or a
// wave::LaunchTimeout naming `what` is thrown. Exceptions of `work` itself propagate.
void run_interruptible(const std::function<void(const std::atomic<int>& stop)>& work, double timeout_seconds,
                       const std::string& what);

}  // namespace wavestack::bindings
