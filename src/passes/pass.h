// Passes: small classes that take a Program and say whether they changed it
// (MLIR style). Every pass is declared once in the registry
// (compiler/pass_registry.cpp) with its name and a one-line summary; `edgec
// opt --help` prints them.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ir/program.h"

namespace edgec {

class Pass {
 public:
  virtual ~Pass() = default;
  /// Runs on `program`; returns whether it changed anything. Throws
  /// CompileError on failure.
  virtual bool run(Program& program) = 0;
};

struct PassInfo {
  std::string name;
  std::string summary;
  /// Creates the pass from its option string (the text after "NAME=" in
  /// --pass=NAME=OPTIONS; empty when none was given). Throws CompileError on
  /// bad options.
  std::function<std::unique_ptr<Pass>(std::string_view options)> create;
};

}  // namespace edgec
