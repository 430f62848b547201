// The threads a run takes when other processes want the cores too
// (docs/architecture.md, "Threads under contention").
//
// A parallel region ends when its slowest thread does. When another
// process keeps a core busy, a Method's second thread waits for that core
// at every region, and two threads ran 5-10x slower than one. So before a
// run, at most once per sample period, the governor counts the tasks the
// machine is running besides this run's own threads (/proc/loadavg's
// runnable count, minus the caller and the OpenMP workers of its team found
// running in /proc/self/task/TID/stat), and gives the run the cores left
// over, between 1 and the Method's threads. A new count takes effect after
// two samples in a row agree, so that a kernel thread passing by does not
// halve a run. Reading /proc costs a few microseconds; nothing allocates.
//
// It also places the team: before a run of more than one thread, the
// workers are kept off the CPU the caller is on (their affinity is the
// caller's, less that CPU; set again only when the caller has moved). A
// worker woken or spinning on the caller's CPU would share that core with
// the thread it works for, and the run would take as long as on one
// thread; OpenMP's own binding (OMP_PROC_BIND) would pin the caller too,
// which is the application's business, so a process that sets
// OMP_PROC_BIND keeps its binding and the team is left alone.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <chrono>
#include <vector>

#include "base/error.h"

namespace edgec::runtime {

/// What one sample of the machine found.
struct CoreSample {
  int online = 1;        ///< CPUs online.
  int runnable = 1;      ///< Tasks running or waiting for a CPU, machine-wide (this one included).
  int own_running = 1;   ///< Of those, the caller and its team's workers.
};

/// The threads a run may take after `sample`: `wanted`, less the CPUs that
/// other runnable tasks hold, and at least 1.
int threads_for_sample(int wanted, const CoreSample& sample);

class ContentionGovernor {
 public:
  static constexpr std::chrono::milliseconds kSamplePeriod{10};

  /// Whether governing is on: EDGEC_ADAPTIVE_THREADS unset, "1" or "on"
  /// (on), "0" or "off" (off). Errors: InvalidArgument for another value.
  static Result<bool> enabled_by_environment();

  ContentionGovernor() = default;
  /// For a Method of `wanted` threads; `enabled` false: every run gets them.
  ContentionGovernor(int wanted, bool enabled);

  /// The threads for the run that starts now. Samples the machine when the
  /// last sample is a period old. Does not allocate or throw.
  int threads_for_run() noexcept;

  /// Feeds one proposal (threads_for_sample of a sample) through the
  /// two-in-a-row rule and returns the threads runs take now (tests).
  int observe(int proposal) noexcept;

  int wanted() const { return wanted_; }

  /// The team's workers' thread ids (0 until a run of the calling thread
  /// found them) and the CPU the last placement kept them off (-1: none).
  const std::vector<pid_t>& team() const { return team_; }
  int placed_off() const { return placed_off_; }

 private:
  // The tids of the OpenMP team the calling thread forks (its libgomp pool),
  // found by a parallel region the first time a thread runs this Method,
  // and the CPUs the caller may run on then.
  void find_team() noexcept;
  bool sample(CoreSample& out) noexcept;
  // The threads the machine leaves this run (samples at most once a period).
  int govern() noexcept;
  // Keeps the workers off the caller's current CPU (see above).
  void place_team() noexcept;

  int wanted_ = 1;
  bool enabled_ = false;
  bool place_ = false;  ///< Whether to place the team (more than one thread, no OMP_PROC_BIND).
  int current_ = 1;
  int pending_ = 0;  ///< The proposal seen last, 0 when none differs from current_.
  int online_ = 1;
  pid_t caller_ = 0;
  std::vector<pid_t> team_;  ///< Workers 1..wanted-1 (sized at construction).
  cpu_set_t allowed_{};      ///< The caller's CPUs when the team was found.
  int placed_off_ = -1;
  std::chrono::steady_clock::time_point last_sample_{};
};

}  // namespace edgec::runtime
