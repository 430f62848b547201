#include "io/pending_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "io/npz.h"  // IoError

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

void write_file_atomically(const std::string& path, std::span<const std::byte> data) {
  std::string temp = path + ".tmp.XXXXXX";
  int fd = -1;
  std::optional<PendingFile> pending;
  {
    SignalsHeld held;
    fd = ::mkostemp(temp.data(), O_CLOEXEC);
    if (fd >= 0) pending.emplace(temp);
  }
  if (fd < 0) throw IoError(path + ": cannot create file: " + std::strerror(errno));
  auto abandon = [&](const char* doing) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw IoError(path + ": " + doing + ": " + reason);
  };
  const std::byte* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t wrote = ::write(fd, p, left);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      abandon("cannot write");
    }
    p += wrote;
    left -= static_cast<size_t>(wrote);
  }
  // Without the fsync a crash after the rename can leave an empty file.
  if (::fsync(fd) != 0) abandon("cannot write");
  // mkostemp makes the file 0600; outputs are for others to read too.
  if (::fchmod(fd, 0644) != 0) abandon("cannot set the file's permissions");
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("cannot write");
  if (::rename(temp.c_str(), path.c_str()) != 0) abandon("cannot replace the file");
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
