// `edgec compile IN -o OUT.edgec`: imports a model (.onnx, or a textual-IR
// program .ir), lowers it and writes one self-contained program file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <span>
#include <vector>

#include "commands.h"
#include "io/pending_files.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "compiler/pipeline.h"
#include "quantize/quantize.h"
#include "serialize/writer.h"

namespace edgec::cli {
namespace {

struct CompileOptions {
  std::string input;
  std::string output;
  std::vector<std::string> dims;
  std::vector<std::string> max_dims;
  std::vector<std::string> shapes;
  std::vector<std::string> max_shapes;
  std::string fixed_inputs;
  std::string backends;
  std::string target;
  std::string emit_ir;
  bool keep_qdq = false;
  std::string quantize, calibration, method = "minmax", keep_float;
  bool no_measure = false;
};

// --quantize int8 --calibration DIR: the model quantized in memory as
// `edgec quantize` writes it (every calibration file used, no report), then
// compiled.
std::unique_ptr<Program> compile_quantized(const CompileOptions& o, const LowerOptions& lower,
                                           const ImportFlags& flags) {
  if (o.quantize != "int8") throw UsageError("--quantize: expected int8, got '" + o.quantize + "'");
  if (o.calibration.empty())
    throw UsageError("--quantize int8 needs --calibration DIR (a folder of .npz files keyed by the model's input names)");
  if (driver::is_textual_ir(o.input)) throw UsageError("--quantize applies to ONNX models, not to textual IR");
  quantize::Options options;
  quantize::parse_method(o.method, options);
  if (!o.keep_float.empty()) options.keep_float = quantize::parse_node_list(o.keep_float, "--keep-float");
  options.report = false;
  options.import_flags = flags;
  options.backends = o.backends;
  // Layers are timed on this CPU: not for a program of another target, nor
  // when the QDQ pairs are kept as written (the timed int8 layers are fused).
  options.measure = !o.no_measure && lower.target == kHostTarget && lower.fuse_qdq;
  const quantize::Result q = quantize::quantize_model(o.input, o.calibration, options);
  return driver::compile_onnx_bytes(std::as_bytes(std::span(q.model)), o.input + " (quantized)", lower, flags,
                                    o.backends);
}

// The same file named twice (links and relative paths resolved, as far as
// they exist).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return ea || eb ? a == b : ca == cb;
}

void run_compile(const CompileOptions& o) {
  prefer_large_pages();
  LowerOptions lower;
  lower.fuse_qdq = !o.keep_qdq;
  lower.dim_sizes = parse_dim_options(o.dims, "--dim");
  lower.dim_bounds = parse_dim_options(o.max_dims, "--max-dim");
  if (!o.target.empty()) {
    const std::optional<Target> target = parse_target(o.target);
    if (!target) throw UsageError("--target '" + o.target + "' is not a target edgec compiles for; expected x86-64 or aarch64");
    lower.target = *target;
  }
  if (!o.emit_ir.empty() && o.emit_ir != "-" && same_file(o.emit_ir, o.output))
    throw UsageError("--emit-ir and -o name the same file, '" + o.output + "'");
  // Importers apply the dimension options themselves, as they read inputs.
  ImportFlags flags;
  flags.fixed_inputs = o.fixed_inputs;
  if (!driver::is_textual_ir(o.input)) {
    flags.shapes = parse_shape_options(o.shapes, "--shape", 0);
    flags.max_shapes = parse_shape_options(o.max_shapes, "--max-shape", 1);
  } else if (!o.shapes.empty() || !o.max_shapes.empty()) {
    flags.shapes[""];  // Refused for textual IR by compile_model, before the values are read.
  }
  if (o.quantize.empty() && (!o.calibration.empty() || !o.keep_float.empty() || o.method != "minmax" || o.no_measure))
    throw UsageError("--calibration, --method, --keep-float and --no-measure apply with --quantize int8");
  std::unique_ptr<Program> program = o.quantize.empty() ? driver::compile_model(o.input, lower, flags, o.backends)
                                                        : compile_quantized(o, lower, flags);
  std::string text;
  if (!o.emit_ir.empty()) {
    PrintOptions print;
    print.elide_data_over_bytes = 64;
    text = print_program(*program, print);
  }
  const auto bytes = serialize_program(*program);
  // Both files or neither: the IR is not left behind when the program file
  // cannot be written (nor printed: stdout gets it once both are done).
  std::vector<io::OutputFile> files{{o.output, bytes}};
  if (!o.emit_ir.empty() && o.emit_ir != "-") files.push_back({o.emit_ir, std::as_bytes(std::span(text))});
  io::write_files_atomically(files);
  if (o.emit_ir == "-") std::cout << text;
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto [cmd, opts] =
      add_command(app, "compile", "compile a model (.onnx, or textual IR .ir) into a program file", run_compile);
  cmd->add_option("model", opts->input, "the model to compile")->required();
  cmd->add_option("-o,--output", opts->output, "the program file to write (atomically)")->required();
  cmd->add_option("--dim", opts->dims, "fix a symbolic dimension: NAME=SIZE (repeatable)");
  cmd->add_option("--max-dim", opts->max_dims, "bound a symbolic dimension: NAME=MAX (repeatable)");
  cmd->add_option("--shape", opts->shapes,
                  "size every dim of a graph input, named or not: INPUT=1x3x224x224 (repeatable; a named dim takes "
                  "that size everywhere)");
  cmd->add_option("--max-shape", opts->max_shapes,
                  "bound every symbolic dim of a graph input: INPUT=8x3x640x640 (repeatable)");
  cmd->add_option("--fix-inputs", opts->fixed_inputs,
                  "an .npz whose arrays fix the graph inputs of the same names at compile time; they become "
                  "constants (for inputs that determine shapes: a Reshape target, Slice starts, Resize sizes)");
  std::string backends_help =
      "backends to delegate to, comma-separated in priority order: ID or ID:OPTIONS (reference:OP+OP... takes "
      "those edge operators, without the dialect prefix; plain reference takes every operator); 'none' keeps "
      "everything on the portable kernels; default: the target's delegates (x86-64: onednn; aarch64: xnnpack)";
  cmd->add_option("--backends", opts->backends, backends_help);
  cmd->add_option("--target", opts->target,
                  "the machine the program is for: x86-64 or aarch64 (default: this machine's, " +
                      std::string(target_name(kHostTarget)) +
                      "); it picks the default delegates and the layouts of their stored weights");
  cmd->add_option("--emit-ir", opts->emit_ir,
                  "also write the lowered program as textual IR (tensors over 64 bytes elided) to this file, or - "
                  "for stdout");
  cmd->add_flag("--keep-qdq", opts->keep_qdq,
                "run a QDQ model's QuantizeLinear / DequantizeLinear pairs as written, around float operators, "
                "instead of fusing them into integer operators (the fuse_qdq pass; for comparing the two)");
  cmd->add_option("--quantize", opts->quantize,
                  "int8: quantize the float32 model first, as edgec quantize does (QDQ, per-channel int8 weights), "
                  "from --calibration's samples");
  cmd->add_option("--calibration", opts->calibration,
                  "with --quantize: a folder of .npz files, one per sample, keyed by the model's input names");
  cmd->add_option("--method", opts->method, "with --quantize: minmax (default) or percentile[=P] (see edgec quantize)");
  cmd->add_option("--keep-float", opts->keep_float,
                  "with --quantize: ONNX node names to leave in float32, comma-separated");
  cmd->add_flag("--no-measure", opts->no_measure,
                "with --quantize: quantize every Conv / Gemm / MatMul without timing it (by default one whose int8 "
                "form is not at least 10% faster than float32 on this CPU stays float32; see edgec quantize)");
}

}  // namespace edgec::cli
