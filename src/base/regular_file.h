// Opening a file to read it whole (a program file, a model, an npz, a
// textual program) when anything but a regular file must be refused: a
// FIFO would block the open or the read forever, a device could stream
// without end.
#pragma once

#include <sys/stat.h>

#include <string>

namespace edgec {

/// What `mode` (st_mode) is, for messages: "a regular file", "a directory",
/// "a FIFO", "a character device", "a block device", "a socket", "a
/// symbolic link" or "a special file".
const char* file_type_name(mode_t mode);

/// Opens `path` for reading, without blocking: it is stat'ed first, so that
/// nothing but a regular file is opened at all, then opened with
/// O_NONBLOCK (should a FIFO replace it in between, the open returns at
/// once) and fstat'ed again, which is the check that counts; O_NONBLOCK is
/// then cleared. Returns the descriptor (O_CLOEXEC) with `*st` filled, or
/// -1 with `*why` set to "cannot open: REASON" or "expected a regular
/// file, got a FIFO" (or the type found).
int open_regular_file(const std::string& path, struct stat* st, std::string* why);

}  // namespace edgec
