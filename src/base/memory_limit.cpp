#include "base/memory_limit.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace edgec {

uint64_t parse_memory_size(const char* text) {
  if (!text || *text < '0' || *text > '9') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || !end) return 0;
  struct Unit {
    std::string_view letter, binary, decimal_looking;
    int shift;
  };
  static constexpr Unit kUnits[] = {{"", "B", "B", 0},         {"K", "KiB", "KB", 10}, {"M", "MiB", "MB", 20},
                                    {"G", "GiB", "GB", 30}, {"T", "TiB", "TB", 40}};
  const std::string_view suffix(end);
  for (const Unit& u : kUnits)
    if (suffix == u.letter || suffix == u.binary || suffix == u.decimal_looking)
      return v > (UINT64_MAX >> u.shift) ? 0 : static_cast<uint64_t>(v) << u.shift;
  return 0;
}

uint64_t memory_limit() {
  // An explicit limit wins (EDGEC_MEMORY_LIMIT); otherwise the machine's
  // physical memory: a plan larger than that cannot run here.
  if (const uint64_t v = parse_memory_size(std::getenv("EDGEC_MEMORY_LIMIT")); v > 0) return v;
  // Read once: sysconf(_SC_PHYS_PAGES) is a system call, and folding or
  // importing checks a size per tensor.
  static const uint64_t physical = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return UINT64_MAX;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
  }();
  return physical;
}

}  // namespace edgec
