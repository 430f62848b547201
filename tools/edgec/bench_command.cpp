// `edgec bench FILE.edgec --inputs IN.npz [--iters N] [--warmup N]
// [--threads N] [--json] [--profile] [--timeout SECONDS]`: how long a program takes to load and
// to run on this machine, measured through the runtime library exactly as an
// application would use it.
//
// load_ms covers Program::load (mmap + validation) and Method::create (arena,
// delegate init: the work an application does once at start-up). The
// latency figures time execute() alone, with the inputs bound once before,
// so they exclude npz reading and output copies. With --profile a separate
// pass of the same number of runs times every instruction; it is separate so
// that the clock reads it needs do not inflate the latency figures.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "base/memory_limit.h"
#include "commands.h"
#include "io/npz.h"
#include "kernels/isa.h"
#include "base/diagnostic.h"
#include "runtime/method.h"

namespace edgec::cli {
namespace {

struct BenchOptions {
  std::string program;
  std::string inputs;
  std::string iters = "100";
  std::string warmup = "10";
  std::string threads;  // empty: every core
  std::string rate;     // empty: back to back
  std::string timeout;
  bool timeout_given = false;  // else no timeout
  bool json = false;
  bool profile = false;
};

using Clock = std::chrono::steady_clock;
using driver::BenchResult;
using driver::BenchSettings;
using driver::ProfileRow;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

BenchSettings parse_settings(const BenchOptions& args) {
  BenchSettings o;
  o.program = args.program;
  o.iters = static_cast<int>(parse_integer("--iters", args.iters, 1, driver::kMaxBenchRuns));
  o.warmup = static_cast<int>(parse_integer("--warmup", args.warmup, 0, driver::kMaxBenchRuns));
  // More threads than cores only adds contention (the runtime refuses
  // them); the default is every core.
  o.threads = args.threads.empty() ? runtime::Method::max_threads() : parse_threads("--threads", args.threads);
  o.json = args.json;
  o.profile = args.profile;
  if (!args.rate.empty()) {
    // A rate is runs per second: positive, finite, at most a million.
    size_t used = 0;
    double hz = 0;
    try {
      hz = std::stod(args.rate, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != args.rate.size() || !(hz > 0) || hz > 1e6)
      throw UsageError("--rate: expected runs per second, a number above 0 and at most 1000000, got '" + args.rate + "'");
    o.rate_hz = hz;
  }
  driver::check_bench_memory(o);
  return o;
}

template <typename... Args>
std::string printf_string(const char* f, Args... v) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, v...);
  return std::string(buf);
}

/// A profile table: a row per operator or step, with its share of `total_ms`.
void print_profile_rows(const char* what, const std::vector<ProfileRow>& rows, double total_ms) {
  std::cout << printf_string("%-32s %6s %12s %12s %7s\n", what, "calls", "total ms", "us/call", "%");
  for (const auto& r : rows)
    std::cout << printf_string("%-32s %6d %12.4f %12.2f %6.1f%%\n", r.name.c_str(), r.calls, r.total_ms,
                        1e3 * r.total_ms / r.calls, total_ms > 0 ? 100 * r.total_ms / total_ms : 0.0);
}

void print_text(const BenchSettings& o, const runtime::Program& program, const BenchResult& r) {
  std::cout << o.program << ": " << program.file_size() << " bytes, " << program.instructions().size()
            << " instructions, " << program.delegates().size() << " delegate(s), " << o.threads << " thread(s), "
            << isa_name(kernel_isa()) << " kernels\n";
  std::cout << printf_string("load     %10.3f ms  (mmap, validation, Method::create with delegate init)\n", r.load_ms);
  std::cout << printf_string("execute  median %.3f ms, p90 %.3f ms, p99 %.3f ms, min %.3f ms, mean %.3f ms, max %.3f ms\n",
                      r.stats.median, r.stats.p90, r.stats.p99, r.stats.min, r.stats.mean, r.stats.max);
  if (o.rate_hz > 0)
    std::cout << printf_string("         at %g Hz: %d of %d run(s) started late; CPU %.3f ms a run (%.2fx its mean "
                               "wall time x %d thread(s))\n",
                               o.rate_hz, r.missed, o.iters, r.cpu_ms_per_run,
                               r.stats.mean > 0 ? r.cpu_ms_per_run / (r.stats.mean * o.threads) : 0.0, o.threads);
  else
    std::cout << printf_string("         CPU %.3f ms a run\n", r.cpu_ms_per_run);
  std::cout << printf_string("         over %d runs after %d warm-up run(s); peak RSS %.1f MiB\n", o.iters, o.warmup,
                      static_cast<double>(r.rss_kib) / 1024);
  if (r.reduced_runs > 0)
    std::cout << printf_string("         %d of %d run(s) took fewer than %d thread(s): other processes kept cores busy\n",
                               r.reduced_runs, o.iters, o.threads);
  if (!o.profile) return;
  std::cout << printf_string("\nprofile: mean per run over %d runs (a separate pass; %.3f ms in all)\n", o.iters,
                      r.profile.total_ms);
  print_profile_rows("operator", r.profile.rows, r.profile.total_ms);
  for (const auto& dp : r.profile.delegates) {
    std::cout << printf_string("\ninside delegate %zu (%s): %.3f ms in its steps\n", dp.delegate, dp.backend.c_str(),
                        dp.total_ms);
    print_profile_rows("step", dp.rows, dp.total_ms);
  }
}

void run_bench(const BenchOptions& args) {
  const BenchSettings o = parse_settings(args);
  const double timeout = args.timeout_given ? parse_timeout("--timeout", args.timeout) : 0;
  // Read before the clock starts: decoding the npz is the caller's work,
  // not the runtime's.
  std::vector<io::NpyArray> arrays = io::read_npz(args.inputs);

  const Clock::time_point load_start = Clock::now();
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) runtime_error("cannot load " + o.program, loaded.error());
  const runtime::Program& program = **loaded;
  auto created = runtime::Method::create(program, o.threads);
  if (!created.ok()) runtime_error("cannot prepare " + o.program, created.error());
  const double load_ms = ms_since(load_start);
  runtime::Method& method = **created;

  // The same binding rules as `edgec run`: every input by name, nothing extra.
  bind_inputs(program, method, arrays, args.inputs);
  // --timeout bounds every run together (warm-up, timed and profiled).
  BenchResult r;
  {
    Watchdog watchdog(method, timeout);
    try {
      r = driver::bench_method(program, method, o, load_ms);
    } catch (const driver::RuntimeFailure& e) {
      rethrow_if_timed_out(watchdog, e, timeout);
      throw;
    }
  }
  if (o.json) std::cout << driver::bench_json(o, program, r).dump(1) << "\n";
  else print_text(o, program, r);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto [cmd, opts] = add_command(app, "bench", "measure load time and execute latency of a program file", run_bench);
  add_program_argument(*cmd, opts->program);
  add_inputs_option(*cmd, opts->inputs);
  cmd->add_option("--iters", opts->iters, "timed runs (default 100)")->type_name("INT:POSITIVE");
  cmd->add_option("--warmup", opts->warmup, "untimed runs first (default 10)")->type_name("INT:NONNEGATIVE");
  add_threads_option(*cmd, opts->threads, "threads the kernels and delegates may use (default: every core)");
  cmd->add_option("--rate", opts->rate,
                  "run at this many runs per second, as a control loop does, and report the CPU time a run costs "
                  "(default: back to back)")
      ->type_name("HZ");
  cmd->add_flag("--json", opts->json, "print the figures as one JSON object");
  cmd->add_flag("--profile", opts->profile, "also time every instruction, by operator and delegate");
  add_timeout_option(*cmd, opts->timeout, opts->timeout_given);
}

}  // namespace edgec::cli
