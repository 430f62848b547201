#include <cerrno>
#include <cstring>
#include <fstream>
#include <span>
#include <sstream>

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
  io::write_file_atomically(path, std::as_bytes(std::span<const char>(data.data(), data.size())));
}

}  // namespace edgec::cli
