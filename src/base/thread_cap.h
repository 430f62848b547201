// The threads the run in progress on this thread may use (docs/architecture.md,
// "Threads under contention"). A Method sets it around each execute from
// what the machine has free (runtime/contention.h); the portable kernels get
// it through KernelContext::num_threads, and a delegate, which is called
// without a context, reads it here. Per calling thread, so that Methods run
// by different threads never see each other's cap.
#pragma once

#include <climits>

namespace edgec {

namespace detail {
inline thread_local int run_thread_cap = INT_MAX;
}  // namespace detail

/// The cap of the run in progress on this thread (INT_MAX outside a run).
inline int run_thread_cap() noexcept { return detail::run_thread_cap; }

/// `threads` held to the cap of the run in progress, and at least 1.
inline int capped_threads(int threads) noexcept {
  const int cap = detail::run_thread_cap;
  const int t = threads < cap ? threads : cap;
  return t < 1 ? 1 : t;
}

/// Sets the cap for its lifetime and restores the one before.
class RunThreadCap {
 public:
  explicit RunThreadCap(int cap) noexcept : saved_(detail::run_thread_cap) { detail::run_thread_cap = cap; }
  ~RunThreadCap() { detail::run_thread_cap = saved_; }
  RunThreadCap(const RunThreadCap&) = delete;
  RunThreadCap& operator=(const RunThreadCap&) = delete;

 private:
  int saved_;
};

}  // namespace edgec
