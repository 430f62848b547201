// How the ONNX importer says no. Every refusal of a model (a value, an
// attribute or a structure the importer will not import) goes through
// refuse(), which records the line of the importer that refused; context
// (the file, the node, the graph output) is added to the message on the way
// out without changing that line. tests/frontends/onnx_refusals_test.cpp
// walks every such line with a model that reaches it, so that each refusal
// is known to name its node, operator, opset and operand.
//
// A throw that is not a refusal is an internal_error() (an importer bug) or
// an I/O failure reading the model file (io_error()); the test checks that
// the importer throws nothing else.
#pragma once

#include <source_location>
#include <string>

#include "base/diagnostic.h"

namespace edgec::onnx_import {

class ImportRefusal : public CompileError {
 public:
  ImportRefusal(std::string message, std::source_location site)
      : CompileError(std::string()), message_(std::move(message)), site_(site) {}

  const char* what() const noexcept override { return message_.c_str(); }
  /// The importer's line that refused.
  const std::source_location& site() const { return site_; }
  /// Prefixes the message ("FILE: node '...' (...): ").
  void add_context(const std::string& prefix) { message_.insert(0, prefix); }

 private:
  std::string message_;
  std::source_location site_;
};

[[noreturn]] inline void refuse(const std::string& message,
                                std::source_location site = std::source_location::current()) {
  throw ImportRefusal(message, site);
}

/// The importer broke one of its own invariants; the message says so.
[[noreturn]] inline void internal_error(const std::string& message) {
  throw CompileError("internal error: " + message + " (an importer bug; please report it with the model)");
}

/// The model file cannot be read (as opposed to read and refused).
[[noreturn]] inline void io_error(const std::string& message) { throw CompileError(message); }

}  // namespace edgec::onnx_import
