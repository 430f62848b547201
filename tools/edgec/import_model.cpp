// Model formats `edgec compile` reads besides textual IR.
#include "commands.h"
#include "frontends/onnx/importer.h"
#include "io/npz.h"
#include "base/diagnostic.h"

namespace edgec::cli {

std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions& options,
                                      const ImportFlags& flags) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".onnx") != 0)
    throw CompileError(path + ": unsupported model format; expected a .onnx or .ir file");
  // Checked here too, for the same message as every other file the CLI
  // reads (the importer refuses a non-regular file in its own words).
  check_regular_file(path);
  // The importer applies --dim / --max-dim / --shape / --max-shape as it reads inputs.
  OnnxImportOptions onnx;
  onnx.dim_sizes = options.dim_sizes;
  onnx.dim_bounds = options.dim_bounds;
  onnx.input_shapes = flags.shapes;
  onnx.input_max_shapes = flags.max_shapes;
  if (!flags.fixed_inputs.empty()) {
    for (io::NpyArray& a : io::read_npz(flags.fixed_inputs)) {
      auto bytes = std::make_shared<const std::vector<std::byte>>(std::move(a.data));
      onnx.input_values[a.name] = TensorData{TensorType::of(a.dtype, a.shape), std::move(bytes)};
    }
  }
  return import_onnx(path, onnx);
}

}  // namespace edgec::cli
