#include "bindings/wave_interruptible.hpp"

#include <nanobind/nanobind.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "wave/errors.hpp"

namespace nb = nanobind;

namespace wavestack::bindings {
namespace {

enum StopReason : int { kRunning = 0, kInterrupted = 1, kTimedOut = 2 };

// ---- launches without a timeout: run on the calling thread ----------------------------------
//
// Handing a launch to a helper thread costs tens of microseconds, more than a small launch
// itself. Without a timeout only Ctrl-C matters, and only on the main thread (where Python
// raises KeyboardInterrupt), so the launch runs inline there while a SIGINT handler chained
// in front of Python's sets the stop flag; afterwards Python's handler runs as usual.

std::atomic<int> sigint_seen{kRunning};
#ifndef _WIN32
struct sigaction python_sigint {};  // the handler we chain to while a launch runs

extern "C" void stop_on_sigint(int signal_number) {
  sigint_seen.store(kInterrupted);
  if (python_sigint.sa_handler != SIG_DFL && python_sigint.sa_handler != SIG_IGN) {
    python_sigint.sa_handler(signal_number);  // Python's own handler: trips its flags
  }
}

// Installs stop_on_sigint for its lifetime when SIGINT has a handler (Python's).
class SigintChain {
 public:
  SigintChain() {
    struct sigaction current {};
    if (sigaction(SIGINT, nullptr, &current) != 0) return;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN) {
      return;  // not Python's handler: leave it alone
    }
    python_sigint = current;
    struct sigaction chained = current;
    chained.sa_handler = stop_on_sigint;
    installed_ = sigaction(SIGINT, &chained, nullptr) == 0;
  }
  ~SigintChain() {
    if (installed_) sigaction(SIGINT, &python_sigint, nullptr);
  }
  SigintChain(const SigintChain&) = delete;
  SigintChain& operator=(const SigintChain&) = delete;

 private:
  bool installed_ = false;
};
#else
class SigintChain {};  // Windows: Ctrl-C takes effect when the launch returns
#endif

const unsigned long main_thread = PyThread_get_thread_ident();  // the module is imported there

void run_inline(const std::function<void(const std::atomic<int>& stop)>& work) {
  static const std::atomic<int> never{kRunning};
  if (PyThread_get_thread_ident() != main_thread) {
    const nb::gil_scoped_release release;
    work(never);  // Python delivers KeyboardInterrupt to the main thread only
    return;
  }
  sigint_seen.store(kRunning);
  std::exception_ptr failure;
  {
    const SigintChain chain;
    // A Ctrl-C that arrived before the chain was installed only tripped Python's flag, which
    // the launch would never look at: deliver it now (later ones reach stop_on_sigint).
    if (PyErr_CheckSignals() != 0) throw nb::python_error();
    const nb::gil_scoped_release release;
    try {
      work(sigint_seen);
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (sigint_seen.load() != kRunning && PyErr_CheckSignals() != 0) throw nb::python_error();
  if (failure) std::rethrow_exception(failure);
}

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
  if (timeout_seconds <= 0) {
    run_inline(work);
    return;
  }
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
