// edgec: compile, run, inspect, bench and opt. Every failure prints
// "error: ..." on stderr and exits non-zero.
#include <iostream>

#include "commands.h"
#include "ir/diagnostic.h"

int main(int argc, char** argv) {
  CLI::App app{"edgec: an ahead-of-time compiler and runtime for neural networks on devices"};
  app.require_subcommand(1);
  edgec::cli::add_compile_command(app);
  edgec::cli::add_run_command(app);
  edgec::cli::add_inspect_command(app);
  edgec::cli::add_bench_command(app);
  edgec::cli::add_eval_command(app);
  edgec::cli::add_opt_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
