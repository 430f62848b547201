// What `edgec bench` measures and reports (driver.h): warm-up runs, timed
// runs of execute() alone (the inputs bound once before), and with a
// profile a separate pass of as many runs that times every instruction;
// separate so that the clock reads it needs do not inflate the latency
// figures.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <thread>

#include "base/memory_limit.h"
#include "driver/driver.h"
#include "kernels/isa.h"

namespace edgec::driver {
namespace {

// Memory the timed runs take, per run: the time (8 bytes) and its copy
// sorted for the median and p90; with --json also the JSON array's
// element (16) and its text (up to about 32: "\n  1.2345678901234567e-05,").
constexpr uint64_t kBytesPerRun = 16;
constexpr uint64_t kJsonBytesPerRun = 48;

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}


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

/// Peak resident memory of this process so far (Linux reports KiB).
long peak_rss_kib() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

void execute_or_throw(runtime::Method& method) {
  const Error err = method.execute();
  if (err != Error::Ok) runtime_error("execution failed", err);
}

/// CPU time this process has used (every thread, user and system), in ms.
double process_cpu_ms() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

/// `o.warmup` untimed runs, then the times of `o.iters` timed ones in order
/// into `r`; with a rate, each run starts at its tick (sleeping until then,
/// as a control loop waits for its next period), and the process's CPU
/// time over the timed runs shows what the threads do between them.
void time_runs(runtime::Method& method, const BenchSettings& o, BenchResult& r) {
  for (int i = 0; i < o.warmup; ++i) execute_or_throw(method);
  r.times_ms.assign(static_cast<size_t>(o.iters), 0.0);
  const auto period = o.rate_hz > 0 ? std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / o.rate_hz))
                                    : Clock::duration::zero();
  const double cpu_start = process_cpu_ms();
  Clock::time_point tick = Clock::now();
  for (double& t : r.times_ms) {
    if (o.rate_hz > 0) {
      tick += period;
      if (Clock::now() > tick) ++r.missed;  // the run before overran its period
      std::this_thread::sleep_until(tick);
    }
    const Clock::time_point start = Clock::now();
    const Error err = method.execute();
    t = ms_since(start);
    if (err != Error::Ok) runtime_error("execution failed", err);
    if (method.last_run_threads() < method.num_threads()) ++r.reduced_runs;
  }
  r.cpu_ms_per_run = (process_cpu_ms() - cpu_start) / static_cast<double>(o.iters);
}

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

}  // namespace

BenchStats summarize(std::vector<double> ms) {  // a copy: the caller keeps the run order
  std::sort(ms.begin(), ms.end());
  BenchStats s;
  const size_t n = ms.size();
  s.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  // Nearest rank: the smallest time that at least 90% of the runs reach.
  s.p90 = ms[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1];
  s.p99 = ms[static_cast<size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1];
  s.min = ms.front();
  s.max = ms.back();
  for (double v : ms) s.mean += v;
  s.mean /= static_cast<double>(n);
  return s;
}

void check_bench_memory(const BenchSettings& o) {
  // Every run's time is kept (the median and p90 need them all, and the
  // JSON lists them): their memory is checked against the limit before the
  // runs.
  const uint64_t per_run = kBytesPerRun + (o.json ? kJsonBytesPerRun : 0);
  if (const uint64_t need = per_run * static_cast<uint64_t>(o.iters), limit = memory_limit(); need > limit)
    throw CompileError("--iters: keeping the times of " + std::to_string(o.iters) + " runs takes " +
                       std::to_string(need) + " bytes (" + std::to_string(per_run) +
                       " a run), more than the memory limit of " + std::to_string(limit) +
                       " bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

BenchResult bench_method(const runtime::Program& program, runtime::Method& method, const BenchSettings& o,
                         double load_ms) {
  BenchResult r;
  r.load_ms = load_ms;
  time_runs(method, o, r);
  r.stats = summarize(r.times_ms);
  if (o.profile) r.profile = profile_runs(program, method, o.iters);
  r.rss_kib = peak_rss_kib();
  return r;
}

nlohmann::ordered_json bench_json(const BenchSettings& o, const runtime::Program& program, const BenchResult& r) {
  nlohmann::ordered_json j;
  j["program"] = o.program;
  j["median_ms"] = r.stats.median;
  j["p90_ms"] = r.stats.p90;
  j["p99_ms"] = r.stats.p99;
  j["min_ms"] = r.stats.min;
  j["mean_ms"] = r.stats.mean;
  j["max_ms"] = r.stats.max;
  j["load_ms"] = r.load_ms;
  j["iters"] = o.iters;
  j["warmup"] = o.warmup;
  j["threads"] = o.threads;
  j["isa"] = isa_name(kernel_isa());
  j["file_bytes"] = program.file_size();
  j["arena_bytes"] = program.arena_size();
  j["instructions"] = program.instructions().size();
  j["delegates"] = program.delegates().size();
  j["peak_rss_kib"] = r.rss_kib;
  j["cpu_ms_per_run"] = r.cpu_ms_per_run;
  j["reduced_runs"] = r.reduced_runs;
  // How OpenMP's idle threads wait, as the process was started.
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  j["omp_wait_policy"] = policy ? policy : "";
  j["gomp_spincount"] = spin ? spin : "";
  if (o.rate_hz > 0) {
    j["rate_hz"] = o.rate_hz;
    j["missed"] = r.missed;
  }
  // Every timed run in order, so that a caller can pool runs of several
  // processes (bench/models interleaves systems) or look for drift.
  j["times_ms"] = r.times_ms;
  if (o.profile) {
    j["profile"] = profile_json(r.profile);
    j["profiled_total_ms"] = r.profile.total_ms;
    j["delegate_profile"] = delegate_profile_json(r.profile);
  }
  return j;
}


}  // namespace edgec::driver
