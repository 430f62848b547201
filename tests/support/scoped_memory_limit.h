// EDGEC_MEMORY_LIMIT set for the life of one object (one test's scope) and
// restored after it, for tests of what is refused past the memory limit.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace edgec {

class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(const char* value) {
    if (const char* old = std::getenv("EDGEC_MEMORY_LIMIT")) old_ = old;
    ::setenv("EDGEC_MEMORY_LIMIT", value, 1);
  }
  ~ScopedMemoryLimit() {
    if (old_) ::setenv("EDGEC_MEMORY_LIMIT", old_->c_str(), 1);
    else ::unsetenv("EDGEC_MEMORY_LIMIT");
  }
  ScopedMemoryLimit(const ScopedMemoryLimit&) = delete;
  ScopedMemoryLimit& operator=(const ScopedMemoryLimit&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace edgec
