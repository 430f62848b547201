// `edgec run FILE.edgec --inputs IN.npz --outputs OUT.npz`: loads a program
// with the runtime library, binds the npz arrays by input name and writes
// the outputs by output name. Missing or extra inputs are errors.
#include <set>

#include "commands.h"
#include "io/npz.h"
#include "base/diagnostic.h"
#include "runtime/method.h"

namespace edgec::cli {
namespace {

struct RunOptions {
  std::string program;
  std::string inputs;
  std::string outputs;
  std::string threads = "1";
};


void run_run(const RunOptions& o) {
  const int threads = parse_threads("--threads", o.threads);
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) runtime_error("cannot load " + o.program, loaded.error());
  const runtime::Program& program = **loaded;
  std::vector<io::NpyArray> arrays = io::read_npz(o.inputs);

  auto method = runtime::Method::create(program, threads);
  if (!method.ok()) runtime_error("cannot prepare " + o.program, method.error());
  bind_inputs(program, **method, arrays, o.inputs);
  const Error err = (*method)->execute();
  if (err != Error::Ok) runtime_error("execution failed", err);
  std::vector<io::NpyArray> outs;
  for (size_t i = 0; i < program.outputs().size(); ++i)
    outs.push_back(io::NpyArray::from_tensor(program.outputs()[i].name, (*method)->output(i)));
  io::write_npz(o.outputs, outs);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run a program file on numpy inputs");
  cmd->add_option("program", opts->program, "the .edgec file")->required();
  cmd->add_option("--inputs", opts->inputs, "an .npz with one array per input, keyed by input name")->required();
  cmd->add_option("--outputs", opts->outputs, "where to write the outputs (.npz, keyed by output name)")->required();
  cmd->add_option("--threads", opts->threads, "threads the kernels may use (default 1)")->type_name("INT:POSITIVE");
  cmd->callback([opts] { run_run(*opts); });
}

}  // namespace edgec::cli
