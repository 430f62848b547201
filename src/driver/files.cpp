// Reading and writing files as the CLI does (driver.h).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>

#include "base/memory_limit.h"
#include "base/regular_file.h"
#include "driver/driver.h"
#include "io/pending_files.h"
#include "base/diagnostic.h"

namespace edgec::driver {

std::string read_file(const std::string& path) {
  // A FIFO or a device would block or stream forever: only a regular file.
  struct stat st {};
  std::string why;
  const int fd = open_regular_file(path, &st, &why);
  if (fd < 0) throw CompileError(path + ": " + why);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (const uint64_t limit = memory_limit(); size > limit)
    throw CompileError(path + ": the file has " + std::to_string(size) + " bytes, more than the memory limit of " +
                       std::to_string(limit) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  std::string text(static_cast<size_t>(size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw CompileError(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;  // shrunk since the fstat
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

void check_regular_file(const std::string& path) {
  struct stat st {};
  std::string why;
  const int fd = open_regular_file(path, &st, &why);
  if (fd < 0) throw CompileError(path + ": " + why);
  ::close(fd);
}

void write_file_atomically(const std::string& path, std::string_view data) {
  io::write_file_atomically(path, std::as_bytes(std::span<const char>(data.data(), data.size())));
}

}  // namespace edgec::driver
