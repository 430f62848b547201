// Model formats `edgec compile` reads besides textual IR. The ONNX importer
// plugs in here when it is built in.
#include "commands.h"
#include "ir/diagnostic.h"

namespace edgec::cli {

std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions&) {
  throw CompileError(path + ": unsupported model format; expected a .ir file (ONNX import is not built in)");
}

}  // namespace edgec::cli
