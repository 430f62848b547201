// `edgec compile IN -o OUT.edgec`: imports a model (.onnx, or a textual-IR
// program .ir), lowers it and writes one self-contained program file.
#include <iostream>
#include <memory>

#include "commands.h"
#include "ir/diagnostic.h"
#include "ir/text.h"
#include "lowering/pipeline.h"
#include "serialize/writer.h"

namespace edgec::cli {
namespace {

struct CompileOptions {
  std::string input;
  std::string output;
  std::vector<std::string> dims;
  std::vector<std::string> max_dims;
  std::string fixed_inputs;
  std::string backends;
  std::string emit_ir;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void run_compile(const CompileOptions& o) {
  LowerOptions lower;
  lower.dim_sizes = parse_dim_options(o.dims, "--dim");
  lower.dim_bounds = parse_dim_options(o.max_dims, "--max-dim");
  std::unique_ptr<Program> program;
  if (ends_with(o.input, ".ir")) {
    if (!o.fixed_inputs.empty()) throw CompileError("--fix-inputs applies to ONNX models, not to textual IR");
    program = parse_program(read_file(o.input), o.input);
    compile_program(*program, lower, o.backends);
  } else {
    // Importers apply the dimension options themselves, as they read inputs.
    program = import_model(o.input, lower, o.fixed_inputs);
    compile_program(*program, {}, o.backends);
  }
  if (!o.emit_ir.empty()) {
    PrintOptions print;
    print.elide_data_over_bytes = 64;
    const std::string text = print_program(*program, print);
    if (o.emit_ir == "-") {
      std::cout << text;
    } else {
      write_file_atomically(o.emit_ir, text);
    }
  }
  const auto bytes = serialize_program(*program);
  write_file_atomically(o.output, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

void add_compile_command(CLI::App& app) {
  auto opts = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "compile a model (.onnx, or textual IR .ir) into a program file");
  cmd->add_option("model", opts->input, "the model to compile")->required();
  cmd->add_option("-o,--output", opts->output, "the program file to write (atomically)")->required();
  cmd->add_option("--dim", opts->dims, "fix a symbolic dimension: NAME=SIZE (repeatable)");
  cmd->add_option("--max-dim", opts->max_dims, "bound a symbolic dimension: NAME=MAX (repeatable)");
  cmd->add_option("--fix-inputs", opts->fixed_inputs,
                  "an .npz whose arrays fix the graph inputs of the same names at compile time; they become "
                  "constants (for inputs that determine shapes: a Reshape target, Slice starts, Resize sizes)");
  std::string backends_help =
      "backends to delegate to, comma-separated in priority order: ID or ID:OPTIONS (reference:OP+OP... takes "
      "those edge operators, without the dialect prefix; plain reference takes every operator); 'none' keeps "
      "everything on the portable kernels; default: every production delegate built in";
  cmd->add_option("--backends", opts->backends, backends_help);
  cmd->add_option("--emit-ir", opts->emit_ir,
                  "also write the lowered program as textual IR (tensors over 64 bytes elided) to this file, or - "
                  "for stdout");
  cmd->callback([opts] { run_compile(*opts); });
}

}  // namespace edgec::cli
