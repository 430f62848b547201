#include "runtime/contention.h"

#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace edgec::runtime {
namespace {

// Asked once per thread: threads_for_run compares it before every run.
pid_t current_tid() noexcept {
  thread_local const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  return tid;
}

// Reads up to n-1 bytes of a small /proc file into buf (NUL-terminated);
// the length read, or -1.
ssize_t read_proc(const char* path, char* buf, size_t n) noexcept {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t got = read(fd, buf, n - 1);
  close(fd);
  if (got < 0) return -1;
  buf[got] = '\0';
  return got;
}

// /proc/loadavg: "0.25 0.06 0.02 3/80 8665"; the 3 (runnable now).
int runnable_tasks() noexcept {
  char buf[128];
  if (read_proc("/proc/loadavg", buf, sizeof buf) <= 0) return -1;
  const char* p = buf;
  for (int field = 0; field < 3; ++field) {
    p = std::strchr(p, ' ');
    if (!p) return -1;
    ++p;
  }
  char* end = nullptr;
  const long n = std::strtol(p, &end, 10);
  return end != p && *end == '/' && n > 0 ? static_cast<int>(n) : -1;
}

// Whether thread `tid` of this process is running or runnable (state R in
// /proc/self/task/TID/stat: the field after the command's closing paren).
bool thread_running(pid_t tid) noexcept {
  char path[64], buf[512];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(tid));
  if (read_proc(path, buf, sizeof buf) <= 0) return false;
  const char* paren = std::strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] == 'R';
}

// Whether the process asked OpenMP to bind its threads to CPUs itself.
bool openmp_binds() noexcept {
  const char* bind = std::getenv("OMP_PROC_BIND");
  if (bind && *bind && strcasecmp(bind, "false") != 0) return true;
  const char* affinity = std::getenv("GOMP_CPU_AFFINITY");
  return affinity && *affinity;
}

}  // namespace

int threads_for_sample(int wanted, const CoreSample& s) {
  const int others = std::max(0, s.runnable - s.own_running);
  return std::clamp(s.online - others, 1, std::max(wanted, 1));
}

Result<bool> ContentionGovernor::enabled_by_environment() {
  const char* v = std::getenv("EDGEC_ADAPTIVE_THREADS");
  if (!v) return true;
  const std::string_view s(v);
  if (s == "1" || s == "on") return true;
  if (s == "0" || s == "off") return false;
  return fail(Error::InvalidArgument,
              "EDGEC_ADAPTIVE_THREADS='" + std::string(s) + "': expected 1 or on (the default), 0 or off");
}

ContentionGovernor::ContentionGovernor(int wanted, bool enabled)
    : wanted_(std::max(wanted, 1)),
      enabled_(enabled && wanted > 1),
      place_(wanted > 1 && !openmp_binds()),
      current_(wanted_) {
  if (wanted_ <= 1) return;
  online_ = std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
  team_.assign(static_cast<size_t>(wanted_ - 1), 0);
}

void ContentionGovernor::find_team() noexcept {
  caller_ = current_tid();
  placed_off_ = -1;
  CPU_ZERO(&allowed_);
  if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) place_ = false;  // more CPUs than a cpu_set_t
  std::fill(team_.begin(), team_.end(), 0);
  pid_t* team = team_.data();
  const int wanted = wanted_;
#pragma omp parallel num_threads(wanted)
  {
    const int i = omp_get_thread_num();
    if (i > 0 && i < wanted) team[i - 1] = current_tid();
  }
}

void ContentionGovernor::place_team() noexcept {
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu == placed_off_ || cpu >= CPU_SETSIZE) return;
  cpu_set_t mask = allowed_;
  CPU_CLR(cpu, &mask);
  if (CPU_COUNT(&mask) == 0) return;  // the caller has one CPU: the workers share it whatever we do
  for (pid_t tid : team_)
    if (tid > 0) sched_setaffinity(tid, sizeof mask, &mask);
  placed_off_ = cpu;
}

bool ContentionGovernor::sample(CoreSample& out) noexcept {
  // Our workers first, then the machine: a worker that stops spinning in
  // between is counted as ours and missing from the runnable count, which
  // errs towards fewer "others", never more.
  int own = 1;
  for (pid_t tid : team_)
    if (tid > 0 && thread_running(tid)) ++own;
  const int runnable = runnable_tasks();
  if (runnable < 0) return false;
  out.online = online_;
  out.runnable = runnable;
  out.own_running = own;
  return true;
}

int ContentionGovernor::observe(int proposal) noexcept {
  proposal = std::clamp(proposal, 1, wanted_);
  if (proposal == current_) {
    pending_ = 0;
  } else if (proposal == pending_) {
    current_ = proposal;
    pending_ = 0;
  } else {
    pending_ = proposal;
  }
  return current_;
}

int ContentionGovernor::threads_for_run() noexcept {
  if (wanted_ <= 1) return 1;
  if (current_tid() != caller_) find_team();
  const int threads = enabled_ ? govern() : wanted_;
  if (threads > 1 && place_) place_team();
  return threads;
}

int ContentionGovernor::govern() noexcept {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_sample_ < kSamplePeriod) return current_;
  last_sample_ = now;
  CoreSample s;
  if (!sample(s)) return current_;
  int proposal = threads_for_sample(wanted_, s);
  // A task seen once may be passing by, or one of ours between two states:
  // a count below the one runs take now is read a second time, and the
  // larger of the two stands.
  if (proposal < current_ && sample(s)) proposal = std::max(proposal, threads_for_sample(wanted_, s));
  return observe(proposal);
}

}  // namespace edgec::runtime
