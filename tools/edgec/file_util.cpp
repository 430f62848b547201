#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "io/pending_files.h"
#include "ir/diagnostic.h"

namespace edgec::cli {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw CompileError(path + ": read failed");
  return ss.str();
}

void write_file_atomically(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp.XXXXXX";
  // Removed by the signal handlers if the process is stopped before the
  // rename (io/pending_files.h).
  std::optional<io::PendingFile> pending;
  int fd;
  {
    io::SignalsHeld held;
    fd = mkstemp(tmp.data());
    if (fd >= 0) pending.emplace(tmp);
  }
  if (fd < 0) throw CompileError(path + ": cannot create a temporary file: " + std::strerror(errno));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw CompileError(path + ": write failed: " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw CompileError(path + ": write failed: " + why);
  }
  ::chmod(tmp.c_str(), 0644);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw CompileError(path + ": cannot rename the temporary file into place: " + why);
  }
}

}  // namespace edgec::cli
