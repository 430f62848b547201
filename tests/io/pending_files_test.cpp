// io/pending_files.h: a temporary file registered while a process is
// stopped by a signal is removed before the process dies of that signal;
// one no longer registered is left alone. Each case runs in a child process
// (fork), since the signal ends it.
#include "io/pending_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace edgec::io {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()))).string();
}

void touch(const std::string& path) { std::ofstream(path) << "partial"; }

// Forks; the child runs `body` (which should end in a signal) and
// otherwise exits 0. Returns the child's wait status.
template <typename F>
int in_child(F&& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(PendingFiles, RemovedWhenASignalStopsTheProcess) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    const std::string path = temp_path("pending_" + std::to_string(sig));
    const int status = in_child([&] {
      remove_pending_files_on_signals();
      std::optional<PendingFile> pending;
      {
        SignalsHeld held;
        touch(path);
        pending.emplace(path);
      }
      ::raise(sig);
    });
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig << ", status " << status;
    EXPECT_FALSE(std::filesystem::exists(path)) << "signal " << sig;
    std::filesystem::remove(path);
  }
}

TEST(PendingFiles, OnlyRegisteredFilesAreRemoved) {
  const std::string done = temp_path("renamed"), other = temp_path("other");
  const int status = in_child([&] {
    remove_pending_files_on_signals();
    touch(done);
    touch(other);
    { PendingFile finished(done); }  // registered, then written and renamed
    PendingFile live(other);
    ::raise(SIGTERM);
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_TRUE(std::filesystem::exists(done));
  EXPECT_FALSE(std::filesystem::exists(other));
  std::filesystem::remove(done);
}

// A signal that arrives while SignalsHeld is alive waits for it: the file
// is registered by then, so it is still removed.
TEST(PendingFiles, SignalHeldUntilTheFileIsRegistered) {
  const std::string path = temp_path("held");
  const int status = in_child([&] {
    remove_pending_files_on_signals();
    std::optional<PendingFile> pending;
    {
      SignalsHeld held;
      ::raise(SIGTERM);  // pending until `held` ends
      touch(path);
      pending.emplace(path);
    }
    ::_exit(3);  // not reached
  });
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace edgec::io
