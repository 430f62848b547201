// `edgec compile` refuses, when the program is made, what the runtime would
// refuse at load: a planned arena past the memory limit (the runtime's
// Method::create rule, its message), and any user input or output that no
// tensor within the limit can hold (a graph input of 2^40 floats compiled
// and was refused only at run). EDGEC_MEMORY_LIMIT is set per test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "base/diagnostic.h"
#include "ir/text.h"
#include "compiler/pipeline.h"
#include "support/scoped_memory_limit.h"

namespace edgec {
namespace {

/// y = sin(x), x a user input of type `type`.
std::string sin_program(const std::string& type) {
  return R"(program dialect = "aten"
signature {
  input user_input %x target = "obs"
  output user_output %y target = "action"
}
graph {
  %x = placeholder : )" + type + R"(
  %y = aten.sin.default(%x) : )" + type + R"(
  output(%y)
}
)";
}

std::string compile_error(const std::string& text) {
  auto p = parse_program(text, "t.ir");
  try {
    compile_program(*p, {}, "none");
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}

// 2^40 floats (4 TiB) under 1 GiB; the check is on the type, before any
// memory for the input exists. At the limit it compiles.
TEST(CompileMemoryLimit, InputOverTheLimitIsRefused) {
  const ScopedMemoryLimit limit("1GiB");
  EXPECT_EQ(compile_error(sin_program("f32[1099511627776]")),
            "input 'obs' has type f32[1099511627776]: 4398046511104 bytes, more than the memory limit of 1073741824 "
            "bytes (set EDGEC_MEMORY_LIMIT to change it)");
  const ScopedMemoryLimit small("8KiB");
  EXPECT_EQ(compile_error(sin_program("f32[1024]")), "(no error)");
  EXPECT_EQ(compile_error(sin_program("f32[4096]")),
            "input 'obs' has type f32[4096]: 16384 bytes, more than the memory limit of 8192 bytes (set "
            "EDGEC_MEMORY_LIMIT to change it)");
}

// The runtime's rule and words, with the largest value named: x within
// the limit, sin(x) and cos(x) too, but both alive at once are not.
TEST(CompileMemoryLimit, ArenaOverTheLimitIsRefused) {
  const std::string two = R"(program dialect = "aten"
signature {
  input user_input %x target = "obs"
  output user_output %a target = "a"
  output user_output %b target = "b"
}
graph {
  %x = placeholder : f32[1024]
  %a = aten.sin.default(%x) : f32[1024]
  %b = aten.cos.default(%x) : f32[1024]
  output(%a, %b)
}
)";
  {
    const ScopedMemoryLimit limit("8KiB");
    EXPECT_EQ(compile_error(two), "(no error)");
  }
  const ScopedMemoryLimit limit("4KiB");
  EXPECT_EQ(compile_error(two),
            "the planned arena of 8192 bytes exceeds the memory limit of 4096 bytes (set EDGEC_MEMORY_LIMIT to "
            "change it); the largest value in it is %a of type f32[1024], 4096 bytes");
}

}  // namespace
}  // namespace edgec
