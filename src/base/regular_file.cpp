#include "base/regular_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace edgec {

const char* file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

int open_regular_file(const std::string& path, struct stat* st, std::string* why) {
  auto not_regular = [&](mode_t mode) {
    *why = std::string("expected a regular file, got ") + file_type_name(mode);
    return -1;
  };
  if (::stat(path.c_str(), st) != 0) {
    *why = std::string("cannot open: ") + std::strerror(errno);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) return not_regular(st->st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *why = std::string("cannot open: ") + std::strerror(errno);
    return -1;
  }
  if (::fstat(fd, st) != 0) {
    *why = std::string("cannot open: ") + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    return not_regular(st->st_mode);
  }
  // Reads of a regular file never block; cleared so that the descriptor
  // behaves as a plain open's would for whoever takes it over.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace edgec
