// Fuzz target: ONNX bytes -> import -> the whole compile pipeline ->
// program file. Every input must end in a CompileError or a file, never a
// crash, a hang or a leak.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>

#include "frontends/onnx/importer.h"
#include "base/diagnostic.h"
#include "compiler/pipeline.h"
#include "serialize/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto program = edgec::import_onnx_bytes(std::as_bytes(std::span<const uint8_t>(data, size)), "fuzz.onnx");
    edgec::compile_program(*program, {}, "none");
    (void)edgec::serialize_program(*program);
  } catch (const edgec::CompileError&) {
  } catch (const std::bad_alloc&) {
  }
  return 0;
}
