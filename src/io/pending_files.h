// Writing a file atomically: to a temporary name next to it, then a
// rename, so that OUT holds the old file or the complete new one, never a
// part. The temporary files are registered while they exist, so that a
// process stopped by a signal (Ctrl-C, kill, a hang-up) removes them before
// it dies instead of leaving OUT.tmp.XXXXXX behind. SIGKILL cannot be
// caught; nothing can clean up after it.
#pragma once

#include <csignal>
#include <cstddef>
#include <span>
#include <string>

namespace edgec::io {

/// Holds the signals the handlers catch (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
/// while alive: create the temporary file and register it inside one, so
/// no signal lands between the two.
class SignalsHeld {
 public:
  SignalsHeld();
  ~SignalsHeld();
  SignalsHeld(const SignalsHeld&) = delete;
  SignalsHeld& operator=(const SignalsHeld&) = delete;

 private:
  sigset_t saved_;
};

/// Registers `path` (a temporary file just created) until destroyed; the
/// file itself is not touched. A path too long for the registry (over
/// 4095 bytes) or a full registry (8 at once) is not registered.
class PendingFile {
 public:
  explicit PendingFile(const std::string& path);
  ~PendingFile();
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;

 private:
  int slot_ = -1;
};

/// Replaces `path` with `data`: a temporary file next to it (registered
/// while it exists), written, synced, made 0644, renamed over `path`.
/// That is for a regular file or a new path; a FIFO or a character device
/// (what `path` names, links followed: `-o /dev/stdout`, `-o /dev/null`,
/// a FIFO a reader drains) is opened and written into instead, never
/// replaced (renaming a file over /dev/null made it a regular file). A
/// directory, a socket or a block device is refused. Throws IoError naming
/// `path` and the reason; the temporary file is removed on every failure.
/// A write into a FIFO whose reader has gone is an IoError (EPIPE), not a
/// SIGPIPE.
void write_file_atomically(const std::string& path, std::span<const std::byte> data);

/// One output of write_files_atomically.
struct OutputFile {
  std::string path;
  std::span<const std::byte> data;
};

/// Writes every file as write_file_atomically does, all or none: every
/// target is checked first, then every temporary file is written, then
/// the FIFOs and devices, and only then are the temporary files renamed,
/// so that a failure to check, create or write any one leaves none of the
/// regular files changed and no temporary file behind. (A rename failing
/// after another succeeded, which needs the folder to change under the
/// writer, leaves the files renamed before it.)
void write_files_atomically(std::span<const OutputFile> files);

/// Unlinks every registered file. Async-signal-safe.
void remove_pending_files() noexcept;

/// For programs (the CLI), once at start: SIGINT, SIGTERM, SIGHUP and
/// SIGQUIT remove the pending files, then end the process as the signal
/// would have; SIGXFSZ is ignored, so a write past the file size limit
/// fails with EFBIG (a clear error, the temporary file removed) instead of
/// killing the process.
void remove_pending_files_on_signals();

}  // namespace edgec::io
