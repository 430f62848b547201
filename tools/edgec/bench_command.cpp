// `edgec bench FILE.edgec --inputs IN.npz [--iters N] [--warmup N]
// [--threads N] [--json] [--profile]`: how long a program takes to load and
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
  bool json = false;
  bool profile = false;
};

// The most runs --iters and --warmup take: their sum, a run count times the
// bytes kept per run, and the profile's per-run means stay far from any
// overflow.
constexpr int64_t kMaxRuns = 1'000'000'000;

// Memory the timed runs take, per run: the time (8 bytes) and its copy
// sorted for the median and p90; with --json also the JSON array's
// element (16) and its text (up to about 32: "\n  1.2345678901234567e-05,").
constexpr uint64_t kBytesPerRun = 16;
constexpr uint64_t kJsonBytesPerRun = 48;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}


/// Latency statistics of one set of runs, in milliseconds.
struct Stats {
  double median = 0, p90 = 0, min = 0, mean = 0, max = 0;
};

Stats summarize(std::vector<double> ms) {  // a copy: the caller keeps the run order
  std::sort(ms.begin(), ms.end());
  Stats s;
  const size_t n = ms.size();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  // Nearest rank: the smallest time that at least 90% of the runs reach.
  s.p90 = ms[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];
  s.min = ms.front();
  s.max = ms.back();
  for (double v : ms) s.mean += v;
  s.mean /= static_cast<double>(n);
  return s;
}

/// One row of the profile: an operator, or one delegate.
struct ProfileRow {
  std::string name;
  int calls = 0;         // Instructions per run.
  double total_ms = 0;   // Per run, summed over its instructions.
};

/// Rows aggregated by name (names[i] timed seconds[i] over `runs` runs),
/// largest first.
std::vector<ProfileRow> aggregate(const std::vector<std::string>& names, const std::vector<double>& seconds, int runs) {
  std::map<std::string, ProfileRow> by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    ProfileRow& row = by_name[names[i]];
    row.name = names[i];
    row.calls += 1;
    row.total_ms += seconds[i] * 1e3 / runs;
  }
  std::vector<ProfileRow> rows;
  for (auto& [name, row] : by_name) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ProfileRow& a, const ProfileRow& b) { return a.total_ms > b.total_ms; });
  return rows;
}

/// Rows by operator name (a delegate by its index and backend, since each
/// delegate is its own compiled subgraph).
std::vector<ProfileRow> aggregate_profile(const runtime::Program& program, const std::vector<double>& seconds,
                                          int runs) {
  std::vector<std::string> names;
  for (const runtime::Instruction& in : program.instructions()) {
    if (!in.is_delegate_call()) {
      names.push_back(in.op);
      continue;
    }
    const auto d = static_cast<size_t>(in.delegate);
    names.push_back("delegate " + std::to_string(d) + " (" + program.delegates()[d].backend_id + ")");
  }
  return aggregate(names, seconds, runs);
}

/// The steps of one delegate that breaks its work down.
struct DelegateProfile {
  size_t delegate = 0;
  std::string backend;
  std::vector<ProfileRow> rows;
  double total_ms = 0;
};

/// Peak resident memory of this process so far (Linux reports KiB).
long peak_rss_kib() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

/// The options with their values parsed and checked.
struct BenchSettings {
  std::string program, inputs;
  int iters = 0, warmup = 0, threads = 0;
  bool json = false, profile = false;
};

BenchSettings parse_settings(const BenchOptions& args) {
  BenchSettings o;
  o.program = args.program;
  o.inputs = args.inputs;
  o.iters = static_cast<int>(parse_integer("--iters", args.iters, 1, kMaxRuns));
  o.warmup = static_cast<int>(parse_integer("--warmup", args.warmup, 0, kMaxRuns));
  // More threads than cores only adds contention (the runtime refuses
  // them); the default is every core.
  o.threads = args.threads.empty() ? runtime::Method::max_threads() : parse_threads("--threads", args.threads);
  o.json = args.json;
  o.profile = args.profile;
  // --json reports every run's time, and the median and p90 need them all:
  // kept, so their memory is checked against the limit before the runs.
  const uint64_t per_run = kBytesPerRun + (o.json ? kJsonBytesPerRun : 0);
  if (const uint64_t need = per_run * static_cast<uint64_t>(o.iters), limit = memory_limit(); need > limit)
    throw CompileError("--iters: keeping the times of " + std::to_string(o.iters) + " runs takes " +
                       std::to_string(need) + " bytes (" + std::to_string(per_run) +
                       " a run), more than the memory limit of " + std::to_string(limit) +
                       " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  return o;
}

void execute_or_throw(runtime::Method& method) {
  const Error err = method.execute();
  if (err != Error::Ok) runtime_error("execution failed", err);
}

/// `o.warmup` untimed runs, then the times of `o.iters` timed ones in order.
std::vector<double> time_runs(runtime::Method& method, const BenchSettings& o) {
  for (int i = 0; i < o.warmup; ++i) execute_or_throw(method);
  std::vector<double> times_ms(static_cast<size_t>(o.iters));
  for (double& t : times_ms) {
    const Clock::time_point start = Clock::now();
    const Error err = method.execute();
    t = ms_since(start);
    if (err != Error::Ok) runtime_error("execution failed", err);
  }
  return times_ms;
}

/// What --profile reports: the instructions by operator, and the steps
/// inside each delegate that breaks its work down.
struct Profile {
  std::vector<ProfileRow> rows;
  std::vector<DelegateProfile> delegates;
  double total_ms = 0;  // Per run, over every instruction.
};

/// Times every instruction (and every delegate's steps) over `iters` runs.
Profile profile_runs(const runtime::Program& program, runtime::Method& method, int iters) {
  std::vector<double> seconds(program.instructions().size(), 0.0);
  const Error set = method.set_profile(seconds);
  if (set != Error::Ok) runtime_error("cannot profile", set);
  // Inside each delegate whose backend breaks its work into steps.
  std::vector<std::vector<std::string>> step_names(program.delegates().size());
  std::vector<std::vector<double>> step_seconds(program.delegates().size());
  for (size_t d = 0; d < step_names.size(); ++d) {
    step_names[d] = method.delegate_step_names(d);
    step_seconds[d].assign(step_names[d].size(), 0.0);
    if (step_names[d].empty()) continue;
    const Error err = method.set_delegate_profile(d, step_seconds[d]);
    if (err != Error::Ok) runtime_error("cannot profile", err);
  }
  for (int i = 0; i < iters; ++i) execute_or_throw(method);
  (void)method.set_profile({});
  Profile profile;
  for (size_t d = 0; d < step_names.size(); ++d) {
    if (step_names[d].empty()) continue;
    (void)method.set_delegate_profile(d, {});
    DelegateProfile dp{d, program.delegates()[d].backend_id, aggregate(step_names[d], step_seconds[d], iters), 0};
    for (const auto& r : dp.rows) dp.total_ms += r.total_ms;
    profile.delegates.push_back(std::move(dp));
  }
  profile.rows = aggregate_profile(program, seconds, iters);
  for (const auto& r : profile.rows) profile.total_ms += r.total_ms;
  return profile;
}

/// The figures one bench run reports.
struct BenchResult {
  double load_ms = 0;
  std::vector<double> times_ms;  // Every timed run, in order.
  Stats stats;
  Profile profile;  // Empty without --profile.
  long rss_kib = 0;
};

nlohmann::ordered_json profile_json(const Profile& profile) {
  nlohmann::ordered_json p = nlohmann::ordered_json::array();
  for (const auto& r : profile.rows)
    p.push_back({{"name", r.name},
                 {"calls", r.calls},
                 {"total_ms", r.total_ms},
                 {"percent", profile.total_ms > 0 ? 100 * r.total_ms / profile.total_ms : 0.0}});
  return p;
}

nlohmann::ordered_json delegate_profile_json(const Profile& profile) {
  nlohmann::ordered_json dps = nlohmann::ordered_json::array();
  for (const auto& dp : profile.delegates) {
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& r : dp.rows) steps.push_back({{"name", r.name}, {"calls", r.calls}, {"total_ms", r.total_ms}});
    dps.push_back({{"delegate", dp.delegate}, {"backend", dp.backend}, {"steps_total_ms", dp.total_ms},
                   {"steps", steps}});
  }
  return dps;
}

void print_json(const BenchSettings& o, const runtime::Program& program, const BenchResult& r) {
  nlohmann::ordered_json j;
  j["program"] = o.program;
  j["median_ms"] = r.stats.median;
  j["p90_ms"] = r.stats.p90;
  j["min_ms"] = r.stats.min;
  j["mean_ms"] = r.stats.mean;
  j["max_ms"] = r.stats.max;
  j["load_ms"] = r.load_ms;
  j["iters"] = o.iters;
  j["warmup"] = o.warmup;
  j["threads"] = o.threads;
  j["file_bytes"] = program.file_size();
  j["arena_bytes"] = program.arena_size();
  j["instructions"] = program.instructions().size();
  j["delegates"] = program.delegates().size();
  j["peak_rss_kib"] = r.rss_kib;
  // Every timed run in order, so that a caller can pool runs of several
  // processes (bench/models interleaves systems) or look for drift.
  j["times_ms"] = r.times_ms;
  if (o.profile) {
    j["profile"] = profile_json(r.profile);
    j["profiled_total_ms"] = r.profile.total_ms;
    j["delegate_profile"] = delegate_profile_json(r.profile);
  }
  std::cout << j.dump(1) << "\n";
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
            << " instructions, " << program.delegates().size() << " delegate(s), " << o.threads << " thread(s)\n";
  std::cout << printf_string("load     %10.3f ms  (mmap, validation, Method::create with delegate init)\n", r.load_ms);
  std::cout << printf_string("execute  median %.3f ms, p90 %.3f ms, min %.3f ms, mean %.3f ms, max %.3f ms\n",
                      r.stats.median, r.stats.p90, r.stats.min, r.stats.mean, r.stats.max);
  std::cout << printf_string("         over %d runs after %d warm-up run(s); peak RSS %.1f MiB\n", o.iters, o.warmup,
                      static_cast<double>(r.rss_kib) / 1024);
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
  // Read before the clock starts: decoding the npz is the caller's work,
  // not the runtime's.
  std::vector<io::NpyArray> arrays = io::read_npz(o.inputs);

  BenchResult r;
  const Clock::time_point load_start = Clock::now();
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) runtime_error("cannot load " + o.program, loaded.error());
  const runtime::Program& program = **loaded;
  auto created = runtime::Method::create(program, o.threads);
  if (!created.ok()) runtime_error("cannot prepare " + o.program, created.error());
  r.load_ms = ms_since(load_start);
  runtime::Method& method = **created;

  // The same binding rules as `edgec run`: every input by name, nothing extra.
  bind_inputs(program, method, arrays, o.inputs);
  r.times_ms = time_runs(method, o);
  r.stats = summarize(r.times_ms);
  if (o.profile) r.profile = profile_runs(program, method, o.iters);
  r.rss_kib = peak_rss_kib();
  if (o.json) print_json(o, program, r);
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
  cmd->add_flag("--json", opts->json, "print the figures as one JSON object");
  cmd->add_flag("--profile", opts->profile, "also time every instruction, by operator and delegate");
}

}  // namespace edgec::cli
