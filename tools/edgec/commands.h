// The edgec CLI: one file per command, each registering a CLI11 subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "driver/driver.h"
#include "io/npz.h"
#include "ir/program.h"
#include "passes/pipeline.h"
#include "runtime/method.h"

namespace edgec::cli {

void add_opt_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_compile_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_quantize_command(CLI::App& app);

/// Adds the subcommand `name`, whose options fill an Options that its
/// callback passes to `run`. Returns the subcommand, to add the options to,
/// and the Options they fill.
template <typename Options>
std::pair<CLI::App*, std::shared_ptr<Options>> add_command(CLI::App& app, const std::string& name,
                                                           const std::string& description,
                                                           void (*run)(const Options&)) {
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(name, description);
  cmd->callback([opts, run] { run(*opts); });
  return {cmd, opts};
}

// Options several commands take, with the same help (options.cpp).
/// The program file to read, a positional argument.
void add_program_argument(CLI::App& cmd, std::string& path);
/// --inputs (required): an npz of the program's inputs, by name.
void add_inputs_option(CLI::App& cmd, std::string& path);
/// --outputs (required): where to write the outputs, by name.
void add_outputs_option(CLI::App& cmd, std::string& path);
/// --threads, as text for parse_threads; `help` gives the default.
void add_threads_option(CLI::App& cmd, std::string& text, const std::string& help);

/// A command-line usage error (an option's value, a missing argument):
/// main prints "error: MESSAGE" and exits 2; other errors exit 1.
using driver::UsageError;

/// `text`, the value of `flag`, as a decimal integer from `lo` to `hi`: the
/// whole text (no sign but '-', no spaces, no suffix). Otherwise a
/// UsageError "FLAG: expected LO to HI (WHY), got TEXT"; `why` says where
/// a bound comes from (may be empty).
int64_t parse_integer(const std::string& flag, const std::string& text, int64_t lo, int64_t hi,
                      const std::string& why = "");
/// A thread count: 1 to runtime::Method::max_threads(), the machine's cores.
int parse_threads(const std::string& flag, const std::string& text);
/// `--dim` / `--max-dim` values: NAME=SIZE, SIZE from 1 to INT64_MAX, a
/// name given twice only with one size. Throws UsageError naming `flag`.
std::map<std::string, int64_t> parse_dim_options(const std::vector<std::string>& specs, const std::string& flag);
/// `--shape` / `--max-shape` values: NAME=D0xD1x... (NAME= for a scalar),
/// sizes from `min_size`. Throws UsageError naming `flag`.
std::map<std::string, std::vector<int64_t>> parse_shape_options(const std::vector<std::string>& specs,
                                                                const std::string& flag, int64_t min_size);
/// --timeout (run, bench): SECONDS, as text for parse_timeout; `given` is
/// set when the flag is there (an empty value is refused, not ignored).
void add_timeout_option(CLI::App& cmd, std::string& text, bool& given);
/// A --timeout value: seconds, above 0 and at most a year (decimals
/// allowed: 0.5). Throws UsageError naming `flag`.
double parse_timeout(const std::string& flag, const std::string& text);
/// Seconds as the messages write them ("0.5", "30").
std::string timeout_text(double seconds);

/// Cancels `method`'s run in progress once `seconds` have passed since its
/// construction, and every run after that until it is destroyed (a thread
/// of its own, woken by the destructor). `seconds` <= 0: no timeout, no
/// thread.
class Watchdog {
 public:
  Watchdog(runtime::Method& method, double seconds);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// Whether the time ran out.
  bool fired();

 private:
  runtime::Method& method_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false, fired_ = false;
  std::thread thread_;
};

/// When `e` is the Cancelled that `watchdog` caused, throws a RuntimeFailure
/// naming the timeout instead; otherwise returns (the caller rethrows `e`).
void rethrow_if_timed_out(Watchdog& watchdog, const driver::RuntimeFailure& e, double seconds);

/// One line (without "error: ") for a CLI11 parse error of `app`.
std::string describe_parse_error(const CLI::ParseError& e, const CLI::App& app);

/// Asks the allocator for 2 MiB pages from here on (with mimalloc; the
/// kernel's transparent huge pages where it allows them). For compiling:
/// its graphs of 10^5 nodes spread over hundreds of MB, and walking them
/// missed the TLB at nearly every node.
void prefer_large_pages();

// What the CLI shares with the Python module (src/driver/driver.h).
using driver::check_regular_file;
using driver::ImportFlags;
using driver::import_model;
using driver::read_file;
using driver::runtime_error;
using driver::write_file_atomically;

/// Binds `arrays` to the program's inputs by name (driver::bind_inputs); a
/// missing or extra array, or one set_input refuses, is an error starting
/// with `what` (the npz path).
void bind_inputs(const runtime::Program& program, runtime::Method& method, const std::vector<io::NpyArray>& arrays,
                 const std::string& what);

}  // namespace edgec::cli
