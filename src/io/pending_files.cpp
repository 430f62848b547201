#include "io/pending_files.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace edgec::io {
namespace {

constexpr int kSlots = 8;
constexpr size_t kPathMax = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// A slot is claimed (`used`), filled, then published (`ready`); the signal
// handler reads only published slots. Lock-free atomics: safe in a handler.
static_assert(std::atomic<bool>::is_always_lock_free);
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> ready{false};
  char path[kPathMax];
};
Slot slots[kSlots];

sigset_t caught() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kSignals) sigaddset(&set, s);
  return set;
}

extern "C" void on_signal(int sig) {
  const int saved = errno;
  remove_pending_files();
  errno = saved;
  // SA_RESETHAND restored the default action: die of the same signal.
  raise(sig);
}

}  // namespace

SignalsHeld::SignalsHeld() {
  const sigset_t set = caught();
  sigprocmask(SIG_BLOCK, &set, &saved_);
}

SignalsHeld::~SignalsHeld() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }

PendingFile::PendingFile(const std::string& path) {
  if (path.size() >= kPathMax) return;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!slots[i].used.compare_exchange_strong(expected, true)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].ready.store(true);
    slot_ = i;
    return;
  }
}

PendingFile::~PendingFile() {
  if (slot_ < 0) return;
  slots[slot_].ready.store(false);
  slots[slot_].used.store(false);
}

void remove_pending_files() noexcept {
  for (Slot& s : slots)
    if (s.ready.load()) ::unlink(s.path);
}

void remove_pending_files_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  for (int s : kSignals) {
    // A signal the caller ignores (nohup's SIGHUP) stays ignored.
    struct sigaction old {};
    if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(s, &sa, nullptr);
  }
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGXFSZ, &ignore, nullptr);
}

}  // namespace edgec::io
