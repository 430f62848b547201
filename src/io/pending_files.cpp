#include "io/pending_files.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <list>
#include <optional>
#include <vector>

#include "base/regular_file.h"
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

namespace {

// Where an output goes.
enum class Target {
  Replace,    // a regular file or a new path: a temporary file, renamed over it
  WriteInto,  // a FIFO or a character device: opened and written into
};

Target target_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    // A new path (or a dangling link, which the rename replaces); a missing
    // folder fails when the temporary file is created, with its reason.
    if (errno == ENOENT) return Target::Replace;
    throw IoError(path + ": cannot create file: " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return Target::Replace;
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return Target::WriteInto;
  throw IoError(path + ": expected a regular file or a new path (or a FIFO or a character device to write into), got " +
                file_type_name(st.st_mode));
}

// Writes all of `data` to `fd`; false with errno set on failure.
bool write_all(int fd, std::span<const std::byte> data) {
  const std::byte* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    const ssize_t wrote = ::write(fd, p, left);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += wrote;
    left -= static_cast<size_t>(wrote);
  }
  return true;
}

// Holds SIGPIPE for the calling thread while alive, so that a FIFO whose
// reader has gone fails the write with EPIPE instead of killing the
// process; a SIGPIPE raised meanwhile is consumed.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    const sigset_t set = sigpipe();
    pthread_sigmask(SIG_BLOCK, &set, &saved_);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeHeld() {
    if (!was_pending_) {
      const sigset_t set = sigpipe();
      const timespec now{};
      while (sigtimedwait(&set, nullptr, &now) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;

 private:
  static sigset_t sigpipe() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    return set;
  }
  sigset_t saved_;
  bool was_pending_ = false;
};

void write_into(const std::string& path, std::span<const std::byte> data) {
  SigpipeHeld held;
  // No O_CREAT, no O_TRUNC: the FIFO or device exists, and is not replaced.
  // A FIFO's open waits for a reader, as any writer's would.
  int fd = -1;
  do fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw IoError(path + ": cannot open: " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    ::close(fd);
    throw IoError(path + ": " + what);
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(std::string("cannot write: ") + std::strerror(errno));
  if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
    fail(std::string("changed while opened: expected a FIFO or a character device, got ") + file_type_name(st.st_mode));
  if (!write_all(fd, data)) fail(std::string("cannot write: ") + std::strerror(errno));
  if (::close(fd) != 0) throw IoError(path + ": cannot write: " + std::strerror(errno));
}

// The temporary files of one write_files_atomically, registered while they
// exist; the destructor removes those not renamed yet.
class Temporaries {
 public:
  ~Temporaries() {
    for (Temp& t : temps_) {
      if (t.fd >= 0) ::close(t.fd);
      if (!t.renamed) ::unlink(t.path.c_str());
    }
  }

  /// Creates a temporary file next to `path` and writes `data` into it.
  void write(const std::string& path, std::span<const std::byte> data) {
    Temp& t = temps_.emplace_back();
    t.target = path;
    t.path = path + ".tmp.XXXXXX";
    {
      SignalsHeld held;
      t.fd = ::mkostemp(t.path.data(), O_CLOEXEC);
      if (t.fd >= 0) t.pending.emplace(t.path);
    }
    if (t.fd < 0) {
      const std::string reason = std::strerror(errno);
      t.renamed = true;  // nothing to remove
      throw IoError(path + ": cannot create file: " + reason);
    }
    auto fail = [&](const char* doing) { throw IoError(path + ": " + doing + ": " + std::strerror(errno)); };
    if (!write_all(t.fd, data)) fail("cannot write");
    // Without the fsync a crash after the rename can leave an empty file.
    if (::fsync(t.fd) != 0) fail("cannot write");
    // mkostemp makes the file 0600; outputs are for others to read too.
    if (::fchmod(t.fd, 0644) != 0) fail("cannot set the file's permissions");
    const int closed = ::close(t.fd);
    t.fd = -1;
    if (closed != 0) fail("cannot write");
  }

  /// Renames every temporary file over its target.
  void rename_all() {
    for (Temp& t : temps_) {
      if (::rename(t.path.c_str(), t.target.c_str()) != 0)
        throw IoError(t.target + ": cannot replace the file: " + std::strerror(errno));
      t.renamed = true;
    }
  }

 private:
  struct Temp {
    std::string target, path;
    int fd = -1;
    bool renamed = false;
    std::optional<PendingFile> pending;
  };
  std::list<Temp> temps_;  // stable: a PendingFile does not move
};

}  // namespace

void write_files_atomically(std::span<const OutputFile> files) {
  // Every target checked before anything is written.
  std::vector<Target> targets;
  for (const OutputFile& f : files) targets.push_back(target_of(f.path));
  Temporaries temps;
  for (size_t i = 0; i < files.size(); ++i)
    if (targets[i] == Target::Replace) temps.write(files[i].path, files[i].data);
  for (size_t i = 0; i < files.size(); ++i)
    if (targets[i] == Target::WriteInto) write_into(files[i].path, files[i].data);
  temps.rename_all();
}

void write_file_atomically(const std::string& path, std::span<const std::byte> data) {
  const OutputFile file{path, data};
  write_files_atomically({&file, 1});
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
