// `edgec opt FILE.ir --pass=NAME[=OPTIONS] ... [--verify-each] [-o OUT]`:
// parses a textual program, runs passes in order, prints the result.
#include <iostream>
#include <memory>
#include <vector>

#include "commands.h"
#include "base/diagnostic.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "compiler/pass_registry.h"
#include "passes/pass.h"

namespace edgec::cli {
namespace {

struct OptOptions {
  std::string input;
  std::vector<std::string> passes;
  bool verify_each = false;
  std::string output;
  std::string elide_over;  // empty: never
};

void verify_after(const Program& p, const std::string& when) {
  const auto errors = verify(p);
  if (errors.empty()) return;
  std::string msg;
  for (size_t i = 0; i < errors.size(); ++i) msg += (i ? "\nerror: " : "") + errors[i];
  throw CompileError(msg + "\nnote: the program failed to verify " + when);
}

void run_opt(const OptOptions& o) {
  const int64_t elide_over = o.elide_over.empty() ? -1 : parse_integer("--elide-data-over", o.elide_over, 0, INT64_MAX);
  std::vector<std::pair<std::string, std::unique_ptr<Pass>>> pipeline;
  for (const std::string& spec : o.passes) {
    const size_t eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    const std::string options = eq == std::string::npos ? "" : spec.substr(eq + 1);
    const PassInfo* info = find_pass(name);
    if (!info) {
      std::string known;
      for (const auto& p : all_passes()) known += (known.empty() ? "" : ", ") + p.name;
      throw UsageError("unknown pass '" + name + "'; known passes: " + known);
    }
    try {
      pipeline.emplace_back(spec, info->create(options));
    } catch (const CompileError& e) {
      throw UsageError(e.what());
    }
  }
  const std::string text = read_file(o.input);
  // dense<v> stays one element until a pass may read the elements: a
  // 300-byte file may declare a splat of gigabytes, and printing it back
  // needs none of them.
  ParseOptions parse;
  parse.keep_splats = true;
  std::unique_ptr<Program> program = parse_program(text, o.input, parse);
  if (o.verify_each) verify_after(*program, "after parsing");
  if (!pipeline.empty())
    expand_splats(*program, "; the passes read stored tensors element by element (edgec opt without --pass "
                            "prints a splat as it is)");
  for (auto& [spec, pass] : pipeline) {
    pass->run(*program);
    if (o.verify_each) verify_after(*program, "after pass '" + spec + "'");
  }
  PrintOptions print;
  print.elide_data_over_bytes = elide_over;
  const std::string out = print_program(*program, print);
  if (o.output.empty() || o.output == "-") {
    std::cout << out;
  } else {
    write_file_atomically(o.output, out);
  }
}

}  // namespace

void add_opt_command(CLI::App& app) {
  std::string pass_help = "a pass to run, in order (NAME or NAME=OPTIONS); passes:";
  for (const auto& p : all_passes()) pass_help += "\n  " + p.name + ": " + p.summary;
  auto [cmd, opts] = add_command(app, "opt", "run passes on a textual-IR program and print it", run_opt);
  cmd->add_option("file", opts->input, "the .ir file")->required();
  cmd->add_option("--pass", opts->passes, pass_help);
  cmd->add_flag("--verify-each", opts->verify_each, "verify after parsing and after every pass");
  cmd->add_option("-o,--output", opts->output, "write the result here (atomically) instead of stdout");
  cmd->add_option("--elide-data-over", opts->elide_over, "print tensors over this many bytes as opaque<N>")
      ->type_name("INT");
}

}  // namespace edgec::cli
