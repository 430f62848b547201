// Fuzz target: the textual IR parser, then the verifier and the passes
// `edgec opt` would run. Errors are ParseError / CompileError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/diagnostic.h"
#include "ir/text.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto program = edgec::parse_program(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.ir");
    (void)edgec::verify(*program);
    (void)edgec::print_program(*program);
  } catch (const edgec::ParseError&) {
  } catch (const edgec::CompileError&) {
  }
  return 0;
}
