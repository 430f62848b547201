// `--timeout SECONDS` of `edgec run` and `edgec bench`: a watchdog thread
// that cancels the Method's run in progress (runtime::Method::cancel) once
// the time is up, and the error that names the timeout.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include "commands.h"

namespace edgec::cli {

double parse_timeout(const std::string& flag, const std::string& text) {
  size_t used = 0;
  double seconds = 0;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // At most a year: a longer wait is no timeout, and the clock's arithmetic
  // stays far from overflow.
  if (used != text.size() || !std::isfinite(seconds) || !(seconds > 0) || seconds > 31536000)
    throw UsageError(flag + ": expected seconds, a number above 0 and at most 31536000, got '" + text + "'");
  return seconds;
}

std::string timeout_text(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", seconds);
  return buf;
}

Watchdog::Watchdog(runtime::Method& method, double seconds) : method_(method) {
  if (seconds <= 0) return;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(seconds));
  thread_ = std::thread([this, deadline] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_until(lock, deadline, [this] { return done_; })) return;
    fired_ = true;
    // Cancel until the command stops running: a cancel that falls between
    // two runs (bench) is dropped by the Method, and the next run must stop
    // too.
    while (!done_) {
      method_.cancel();
      wake_.wait_for(lock, std::chrono::milliseconds(1));
    }
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool Watchdog::fired() {
  std::lock_guard<std::mutex> lock(mutex_);
  return fired_;
}

void rethrow_if_timed_out(Watchdog& watchdog, const driver::RuntimeFailure& e, double seconds) {
  if (e.error() != Error::Cancelled || !watchdog.fired()) return;
  throw driver::RuntimeFailure("execution stopped: it ran past --timeout " + timeout_text(seconds) + " s (" +
                                   e.what() + ")",
                               e.error());
}

}  // namespace edgec::cli
