// `edgec eval FILE.ir --inputs IN.npz --outputs OUT.npz`: runs a textual
// program with the reference interpreter. Arrays are keyed by the program's
// user input and output names (the specs' targets).
#include <memory>

#include "commands.h"
#include "interpreter/interpreter.h"
#include "io/npz.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "ir/verifier.h"

namespace edgec::cli {
namespace {

struct EvalOptions {
  std::string input;
  std::string inputs_npz;
  std::string outputs_npz;
  std::string threads = "1";
};

void run_eval(const EvalOptions& o) {
  const int threads = parse_threads("--threads", o.threads);
  std::unique_ptr<Program> program = parse_program(read_file(o.input), o.input);
  verify_or_throw(*program);
  std::map<std::string, TensorData> inputs;
  if (!o.inputs_npz.empty()) {
    for (auto& a : io::read_npz(o.inputs_npz)) {
      auto bytes = std::make_shared<std::vector<std::byte>>(std::move(a.data));
      inputs[a.name] = TensorData{TensorType::of(a.dtype, a.shape), std::move(bytes)};
    }
  }
  KernelContext ctx;
  ctx.num_threads = threads;
  const auto outputs = run_program(*program, inputs, ctx);
  std::vector<io::NpyArray> arrays;
  for (size_t i = 0; i < outputs.size(); ++i) {
    io::NpyArray a;
    a.name = i < program->outputs.size() ? program->outputs[i].target : "output" + std::to_string(i);
    a.dtype = outputs[i].type.dtype;
    a.shape = outputs[i].type.static_shape();
    a.data = *outputs[i].bytes;
    arrays.push_back(std::move(a));
  }
  io::write_npz(o.outputs_npz, arrays);
}

}  // namespace

void add_eval_command(CLI::App& app) {
  auto [cmd, opts] =
      add_command(app, "eval", "run a textual-IR program on numpy arrays with the portable kernels", run_eval);
  cmd->add_option("file", opts->input, "the .ir file")->required();
  cmd->add_option("--inputs", opts->inputs_npz, "an .npz with one array per user input, keyed by input name");
  add_outputs_option(*cmd, opts->outputs_npz);
  add_threads_option(*cmd, opts->threads, "threads the kernels may use");
}

}  // namespace edgec::cli
