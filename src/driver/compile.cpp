// Compiling a model as `edgec compile` does (driver.h): ONNX through the
// importer, which applies the dimension options as it reads inputs, or a
// textual-IR program; then the compiler's pipeline with the backends asked.
#include <memory>

#include "base/diagnostic.h"
#include "compiler/pipeline.h"
#include "driver/driver.h"
#include "frontends/onnx/importer.h"
#include "io/npz.h"
#include "kernels/isa.h"
#include "ir/text.h"

namespace edgec::driver {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The importer's options: --dim / --max-dim / --shape / --max-shape and
// the fixed inputs, from the .npz and given as values.
OnnxImportOptions onnx_options(const LowerOptions& options, const ImportFlags& flags) {
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
  for (const auto& [name, value] : flags.fixed_values) {
    if (onnx.input_values.count(name))
      throw UsageError("input '" + name + "' is fixed twice (in " + flags.fixed_inputs + " and as a value)");
    onnx.input_values[name] = value;
  }
  return onnx;
}

}  // namespace

bool is_textual_ir(const std::string& path) { return ends_with(path, ".ir"); }

std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions& options,
                                      const ImportFlags& flags) {
  if (!ends_with(path, ".onnx"))
    throw CompileError(path + ": unsupported model format; expected a .onnx or .ir file");
  // Checked here too, for the same message as every other file the CLI
  // reads (the importer refuses a non-regular file in its own words).
  check_regular_file(path);
  return import_onnx(path, onnx_options(options, flags));
}

namespace {
// What the pipeline still needs of `options` after an importer applied the
// dimension options: the target and which passes run.
LowerOptions target_only(const LowerOptions& options) {
  LowerOptions out;
  out.target = options.target;
  out.fuse_qdq = options.fuse_qdq;
  return out;
}
}  // namespace

void require_isa() {
  const Error err = check_isa();
  if (err != Error::Ok) runtime_error("cannot choose the kernels' instruction set", err);
}

std::unique_ptr<Program> compile_model(const std::string& path, const LowerOptions& options, const ImportFlags& flags,
                                       const std::string& backends) {
  require_isa();
  std::unique_ptr<Program> program;
  if (is_textual_ir(path)) {
    if (!flags.fixed_inputs.empty() || !flags.fixed_values.empty())
      throw UsageError("--fix-inputs applies to ONNX models, not to textual IR");
    if (!flags.shapes.empty() || !flags.max_shapes.empty())
      throw UsageError("--shape and --max-shape apply to ONNX models, not to textual IR (use --dim and --max-dim)");
    program = parse_program(read_file(path), path);
    compile_program(*program, options, backends);
  } else {
    // Importers apply the dimension options themselves, as they read inputs.
    program = import_model(path, options, flags);
    compile_program(*program, target_only(options), backends);
  }
  return program;
}

std::unique_ptr<Program> compile_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                            const LowerOptions& options, const ImportFlags& flags,
                                            const std::string& backends) {
  require_isa();
  std::unique_ptr<Program> program = import_onnx_bytes(bytes, what, onnx_options(options, flags));
  compile_program(*program, target_only(options), backends);
  return program;
}

}  // namespace edgec::driver
