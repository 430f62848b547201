// io/pending_files.h: a temporary file registered while a process is
// stopped by a signal is removed before the process dies of that signal;
// one no longer registered is left alone. Each case runs in a child process
// (fork), since the signal ends it.
//
// write_file_atomically replaces a regular file or a new path, writes into
// a FIFO or a character device (it renamed a file over them: /dev/null
// became a regular file), refuses a directory, a socket or a block device;
// write_files_atomically writes all of its files or none.
#include "io/pending_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/npz.h"  // IoError

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

// A fresh folder for one test, removed at the end.
struct TempDir {
  TempDir() : path(temp_path("pending_dir")) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  // Names in the folder that look like temporary files.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) out.push_back(e.path().string());
    return out;
  }
  std::string path;
};

// The bytes of `s`, which must outlive them (a literal, or a named string).
std::span<const std::byte> bytes_of(std::string_view s) { return std::as_bytes(std::span(s.data(), s.size())); }

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t type_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & S_IFMT;
}

std::string error_of(const std::function<void()>& write) {
  try {
    write();
  } catch (const IoError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(WriteFileAtomically, WritesIntoAFifo) {
  TempDir dir;
  const std::string fifo = dir.file("out.fifo"), got = dir.file("got");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string data(300000, 'x');  // more than a pipe holds
  const pid_t reader = ::fork();
  if (reader == 0) {
    std::ifstream in(fifo, std::ios::binary);
    std::ofstream(got, std::ios::binary) << in.rdbuf();
    ::_exit(0);
  }
  EXPECT_EQ(error_of([&] { write_file_atomically(fifo, bytes_of(data)); }), "<no error>");
  // A FIFO replaced by a file leaves its reader waiting for a writer.
  const bool still_fifo = type_of(fifo) == S_IFIFO;
  if (!still_fifo) ::kill(reader, SIGKILL);
  ::waitpid(reader, nullptr, 0);
  ASSERT_TRUE(still_fifo) << "the FIFO was replaced";
  EXPECT_EQ(contents(got), data);
  EXPECT_TRUE(dir.temporaries().empty());
}

// A character device: a node made in the folder (as root), else a link to
// /dev/null, which is followed. The real /dev/null is never the path.
TEST(WriteFileAtomically, WritesIntoACharacterDevice) {
  TempDir dir;
  const std::string dev = dir.file("out.dev");
  if (::geteuid() == 0) {
    ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << std::strerror(errno);
  } else {
    std::filesystem::create_symlink("/dev/null", dev);
  }
  EXPECT_EQ(error_of([&] { write_file_atomically(dev, bytes_of("data")); }), "<no error>");
  EXPECT_EQ(type_of(dev), S_IFCHR);
  EXPECT_TRUE(dir.temporaries().empty());
  EXPECT_EQ(type_of("/dev/null"), S_IFCHR);
}

TEST(WriteFileAtomically, RefusesADirectoryASocketAndABlockDevice) {
  TempDir dir;
  const std::string sub = dir.file("sub"), sock = dir.file("sock"), blk = dir.file("blk");
  std::filesystem::create_directory(sub);
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0) << std::strerror(errno);
  ::close(s);
  std::vector<std::pair<std::string, std::string>> cases = {{sub, "a directory"}, {sock, "a socket"}};
  if (::geteuid() == 0) {
    ASSERT_EQ(::mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 200)), 0) << std::strerror(errno);
    cases.emplace_back(blk, "a block device");
  }
  for (const auto& [path, kind] : cases) {
    EXPECT_EQ(error_of([&] { write_file_atomically(path, bytes_of("data")); }),
              path + ": expected a regular file or a new path (or a FIFO or a character device to write into), got " +
                  kind);
  }
  EXPECT_EQ(type_of(sub), S_IFDIR);
  EXPECT_EQ(type_of(sock), S_IFSOCK);
  if (::geteuid() == 0) {
    EXPECT_EQ(type_of(blk), S_IFBLK);
  }
  EXPECT_TRUE(dir.temporaries().empty());
}

// A FIFO whose reader leaves before the end: an IoError (EPIPE), not a
// death by SIGPIPE. In a child, which SIGPIPE would end.
TEST(WriteFileAtomically, AReaderLeavingIsAnErrorNotSigpipe) {
  TempDir dir;
  const std::string fifo = dir.file("out.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int status = in_child([&] {
    const pid_t reader = ::fork();
    if (reader == 0) {
      const int fd = ::open(fifo.c_str(), O_RDONLY);
      char c;
      (void)::read(fd, &c, 1);
      ::_exit(0);
    }
    const std::string data(1 << 20, 'x');
    const std::string error = error_of([&] { write_file_atomically(fifo, bytes_of(data)); });
    ::kill(reader, SIGKILL);  // gone already, unless the FIFO was replaced
    ::waitpid(reader, nullptr, 0);
    ::_exit(error == fifo + ": cannot write: Broken pipe" ? 0 : 3);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << (WIFSIGNALED(status) ? "died of signal " + std::to_string(WTERMSIG(status)) : "status " + std::to_string(status));
  EXPECT_EQ(type_of(fifo), S_IFIFO);
}

TEST(WriteFilesAtomically, AllOrNone) {
  TempDir dir;
  const std::string a = dir.file("a"), b = dir.file("b"), missing = dir.file("missing/c"), sub = dir.file("sub");
  std::ofstream(b) << "previous";
  std::filesystem::create_directory(sub);
  // The second cannot be created: the first is not written either, the
  // existing file keeps its bytes, and no temporary file is left.
  for (const std::string& bad : {missing, sub}) {
    const std::vector<OutputFile> files = {{a, bytes_of("new a")}, {b, bytes_of("new b")}, {bad, bytes_of("c")}};
    const std::string error = error_of([&] { write_files_atomically(files); });
    EXPECT_EQ(error.rfind(bad + ": ", 0), 0u) << error;
    EXPECT_FALSE(std::filesystem::exists(a));
    EXPECT_EQ(contents(b), "previous");
    EXPECT_TRUE(dir.temporaries().empty());
  }
  const std::vector<OutputFile> files = {{a, bytes_of("new a")}, {b, bytes_of("new b")}};
  EXPECT_EQ(error_of([&] { write_files_atomically(files); }), "<no error>");
  EXPECT_EQ(contents(a), "new a");
  EXPECT_EQ(contents(b), "new b");
  EXPECT_TRUE(dir.temporaries().empty());
}

}  // namespace
}  // namespace edgec::io
