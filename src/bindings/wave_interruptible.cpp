#include "bindings/wave_interruptible.hpp"

#include <nanobind/nanobind.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "wave/errors.hpp"

namespace nb = nanobind;

namespace wavestack::bindings {
namespace {

enum StopReason : int { kRunning = 0, kInterrupted = 1, kTimedOut = 2 };

// How often the waiting thread looks at signals and the clock: well under the one second a
// Ctrl-C may take, and rare enough to cost nothing.
constexpr std::chrono::milliseconds kPollInterval{20};

std::string seconds_text(double seconds) {
  std::ostringstream text;
  text << seconds;
  return text.str();
}

}  // namespace

void run_interruptible(const std::function<void(const std::atomic<int>& stop)>& work, double timeout_seconds,
                       const std::string& what) {
  std::atomic<int> stop{kRunning};
  std::mutex mutex;
  std::condition_variable done_signal;
  bool done = false;
  std::exception_ptr failure;
  bool python_error = false;
  {
    nb::gil_scoped_release release;
    const auto start = std::chrono::steady_clock::now();
    std::thread worker([&] {
      try {
        work(stop);
      } catch (...) {
        failure = std::current_exception();
      }
      const std::lock_guard lock(mutex);
      done = true;
      done_signal.notify_all();
    });
    std::unique_lock lock(mutex);
    while (!done) {
      done_signal.wait_for(lock, kPollInterval);
      if (done || stop.load() != kRunning) continue;
      lock.unlock();
      {
        // Python runs signal handlers only on the main thread; elsewhere this is a no-op.
        const nb::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) {
          python_error = true;
          stop.store(kInterrupted);
        }
      }
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      if (stop.load() == kRunning && timeout_seconds > 0 && elapsed.count() > timeout_seconds) {
        stop.store(kTimedOut);
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (python_error) throw nb::python_error();  // the handler's exception (KeyboardInterrupt)
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const wave::LaunchStopped&) {
      if (stop.load() == kTimedOut) {
        throw wave::LaunchTimeout(what + " ran longer than its timeout of " + seconds_text(timeout_seconds) +
                                  " s and was stopped");
      }
      throw;
    }
  }
}

}  // namespace wavestack::bindings
