// edgec: compile, run, inspect, bench, eval and opt. Every failure prints
// one "error: ..." on stderr and exits non-zero: 2 for a command-line usage
// error (CLI11's parse errors, an option's value), 1 for any other.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>

#include "commands.h"
#include "io/pending_files.h"
#include "base/diagnostic.h"
#include "runtime/method.h"

namespace {

// OpenMP's idle threads spin briefly, then sleep (docs/architecture.md,
// "Threads under contention"): GOMP_SPINCOUNT=10000, about a quarter of a
// millisecond, covers the gaps between one call's parallel regions, so a
// region does not pay a wake-up; libgomp's default, 300,000, burns a core
// for milliseconds after every call, which another process, or this run's
// own caller, needs. libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once,
// when it loads, before main: so when neither is set, set the spin count
// and start this program again. A caller's own setting is kept; where the
// program's file cannot be run again, edgec goes on with libgomp's default.
void restart_with_short_spin(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  // The file itself, not /proc/self/exe, so that the process keeps its
  // name (ps, top) rather than taking the link's, "exe".
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof self - 1) return;
  self[n] = '\0';
  if (setenv("GOMP_SPINCOUNT", "10000", 1) != 0) return;
  execv(self, argv);
}

}  // namespace

int main(int argc, char** argv) {
  restart_with_short_spin(argv);
  // A Ctrl-C or kill during a write leaves no OUT.tmp.* behind.
  edgec::io::remove_pending_files_on_signals();
  CLI::App app{"edgec: an ahead-of-time compiler and runtime for neural networks on devices"};
  app.require_subcommand(1);
  edgec::cli::add_compile_command(app);
  edgec::cli::add_run_command(app);
  edgec::cli::add_inspect_command(app);
  edgec::cli::add_bench_command(app);
  edgec::cli::add_eval_command(app);
  edgec::cli::add_opt_command(app);
  edgec::cli::add_quantize_command(app);
  // The runtime falls back to the machine's memory, silently, when
  // EDGEC_MEMORY_LIMIT is not a size: say so here.
  if (const char* limit = std::getenv("EDGEC_MEMORY_LIMIT"); limit && edgec::runtime::parse_memory_size(limit) == 0)
    std::cerr << "warning: EDGEC_MEMORY_LIMIT='" << limit
              << "' is not a size (bytes, or with a binary suffix: 512MiB, 4G); the limit is the machine's memory\n";
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << edgec::cli::describe_parse_error(e, app) << "\n";
    return 2;
  } catch (const edgec::cli::UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
