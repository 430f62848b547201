// `edgec run FILE.edgec --inputs IN.npz --outputs OUT.npz`: loads a program
// with the runtime library, binds the npz arrays by input name and writes
// the outputs by output name. Missing or extra inputs are errors. With
// --timeout, a run still going after that many seconds is cancelled
// (Method::cancel): an error naming the timeout, and no output file.
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
  std::string timeout;
  bool timeout_given = false;  // else no timeout
};

void run_run(const RunOptions& o) {
  const int threads = parse_threads("--threads", o.threads);
  const double timeout = o.timeout_given ? parse_timeout("--timeout", o.timeout) : 0;
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) runtime_error("cannot load " + o.program, loaded.error());
  const runtime::Program& program = **loaded;
  std::vector<io::NpyArray> arrays = io::read_npz(o.inputs);

  auto method = runtime::Method::create(program, threads);
  if (!method.ok()) runtime_error("cannot prepare " + o.program, method.error());
  bind_inputs(program, **method, arrays, o.inputs);
  Error err;
  {
    Watchdog watchdog(**method, timeout);
    err = (*method)->execute();
    try {
      if (err != Error::Ok) runtime_error("execution failed", err);
    } catch (const driver::RuntimeFailure& e) {
      rethrow_if_timed_out(watchdog, e, timeout);
      throw;
    }
  }
  std::vector<io::NpyArray> outs;
  for (size_t i = 0; i < program.outputs().size(); ++i)
    outs.push_back(io::NpyArray::from_tensor(program.outputs()[i].name, (*method)->output(i)));
  io::write_npz(o.outputs, outs);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto [cmd, opts] = add_command(app, "run", "run a program file on numpy inputs", run_run);
  add_program_argument(*cmd, opts->program);
  add_inputs_option(*cmd, opts->inputs);
  add_outputs_option(*cmd, opts->outputs);
  add_threads_option(*cmd, opts->threads, "threads the kernels may use (default 1)");
  add_timeout_option(*cmd, opts->timeout, opts->timeout_given);
}

}  // namespace edgec::cli
