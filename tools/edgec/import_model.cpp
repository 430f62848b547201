// Model formats `edgec compile` reads besides textual IR.
#include "commands.h"
#include "frontends/onnx/importer.h"
#include "ir/diagnostic.h"

namespace edgec::cli {

std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions& options) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".onnx") != 0)
    throw CompileError(path + ": unsupported model format; expected a .onnx or .ir file");
  // The importer applies --dim / --max-dim to dim_params as it reads inputs.
  OnnxImportOptions onnx;
  onnx.dim_sizes = options.dim_sizes;
  onnx.dim_bounds = options.dim_bounds;
  return import_onnx(path, onnx);
}

}  // namespace edgec::cli
