// A textual program compiled for some backends and loaded from aligned
// memory, as an application loads an mmapped file, for tests of what the
// runtime does with it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/error.h"
#include "ir/text.h"
#include "compiler/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"

namespace edgec {

struct CompiledProgram {
  // `backends` as compile_program takes them; `name` names the text in
  // parse errors. A load failure is a test failure and leaves `program` null.
  CompiledProgram(const std::string& text, const std::string& name, const std::string& backends)
      : bytes(compile(text, name, backends)) {
    auto loaded = runtime::Program::load_from_bytes(bytes.span());
    EXPECT_TRUE(loaded.ok()) << error_detail();
    if (loaded.ok()) program = std::move(*loaded);
  }

  static std::vector<std::byte> compile(const std::string& text, const std::string& name,
                                        const std::string& backends) {
    auto p = parse_program(text, name);
    compile_program(*p, {}, backends);
    return serialize_program(*p);
  }

  AlignedBytes bytes;
  std::unique_ptr<runtime::Program> program;
};

}  // namespace edgec
