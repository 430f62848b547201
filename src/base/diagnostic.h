// Compiler diagnostics. The compiler (unlike the runtime) reports failures
// by throwing a CompileError whose message reads like a person wrote it:
// what was expected, what was found, and where (file, line:column, node,
// operator).
#pragma once

#include <stdexcept>
#include <string>

namespace edgec {

class CompileError : public std::runtime_error {
 public:
  explicit CompileError(const std::string& message) : std::runtime_error(message) {}
};

/// A textual-IR or file parse error at a 1-based line and column.
class ParseError : public CompileError {
 public:
  ParseError(const std::string& file, int line, int column, const std::string& message)
      : CompileError(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                     message),
        line_(line),
        column_(column) {}
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_;
  int column_;
};

}  // namespace edgec
