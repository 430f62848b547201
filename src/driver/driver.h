// The driver: what the edgec CLI (tools/edgec/) and the Python module
// (python/) both do around the compiler and the runtime, in one place so
// that they behave and word their errors alike: reading a model and
// compiling it as `edgec compile` does, binding inputs by name as `run` and
// `bench` do, the figures of `bench --json` and the report of
// `inspect --json`. Failures throw CompileError (base/diagnostic.h) or one
// of the subclasses below, with the messages the CLI prints after "error: ".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/diagnostic.h"
#include "base/error.h"
#include "ir/program.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "runtime/program.h"

namespace edgec::driver {

/// An option's value is not what the option takes (the CLI exits 2 on it).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A runtime Error (loading, preparing or running a program), worded
/// "WHAT: <error detail> (<Error name>)"; `error()` is the runtime's code.
class RuntimeFailure : public CompileError {
 public:
  RuntimeFailure(const std::string& message, Error error) : CompileError(message), error_(error) {}
  Error error() const { return error_; }

 private:
  Error error_;
};

/// Inputs that do not fit the program: a missing or extra name, or one
/// Method::set_input refuses (error() then says why: InvalidType,
/// InvalidShape...; NotFound for a missing or extra name).
class InputError : public RuntimeFailure {
 public:
  using RuntimeFailure::RuntimeFailure;
};

/// Throws RuntimeFailure "WHAT: <error detail> (<Error name>)".
[[noreturn]] void runtime_error(const std::string& what, Error err);

// Files.
/// Reads a whole file; throws CompileError naming the path on failure, and
/// for anything but a regular file (a FIFO, a directory, a device), which
/// it refuses without blocking.
std::string read_file(const std::string& path);
/// Throws CompileError "PATH: expected a regular file, got a FIFO" (or the
/// type found, or "PATH: cannot open: REASON") unless `path` is a regular
/// file; opens nothing else, and never blocks.
void check_regular_file(const std::string& path);
/// Writes `data` to `path` through a temporary file in the same folder and a
/// rename, so readers never see a partial file; throws on failure and leaves
/// no temporary behind.
void write_file_atomically(const std::string& path, std::string_view data);

// Compiling.
/// What `edgec compile` gives an importer besides the dim options.
struct ImportFlags {
  /// An .npz whose arrays fix graph inputs of the same name at compile
  /// time (empty: none).
  std::string fixed_inputs;
  /// Graph inputs fixed at compile time, given as values (as the arrays of
  /// `fixed_inputs`; both may be given, a name once).
  std::map<std::string, TensorData> fixed_values;
  /// --shape and --max-shape: input name -> every dim's size or bound.
  std::map<std::string, std::vector<int64_t>> shapes, max_shapes;
  /// Whether any flag applies only to ONNX models.
  bool any() const { return !fixed_inputs.empty() || !fixed_values.empty() || !shapes.empty() || !max_shapes.empty(); }
};

/// Throws RuntimeFailure when EDGEC_ISA names an instruction set this CPU
/// cannot run or none at all (kernels/isa.h); compile_model and
/// compile_onnx_bytes call it (the runtime's Program::load checks the same).
void require_isa();

/// Whether compile_model reads `path` as a textual-IR program (.ir).
bool is_textual_ir(const std::string& path);

/// Imports a model file (by extension) into an aten program.
std::unique_ptr<Program> import_model(const std::string& path, const LowerOptions& options,
                                      const ImportFlags& flags = {});

/// What `edgec compile` does before writing: imports `path` (a .onnx model,
/// or a textual-IR program .ir) and lowers it with `backends` (the
/// --backends list: "" for the default). Throws UsageError for flags that
/// do not apply to the model's format.
std::unique_ptr<Program> compile_model(const std::string& path, const LowerOptions& options, const ImportFlags& flags,
                                       const std::string& backends);
/// The same for a serialized ONNX ModelProto in memory (no external data);
/// `what` names it in messages.
std::unique_ptr<Program> compile_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                            const LowerOptions& options, const ImportFlags& flags,
                                            const std::string& backends);

// Running.
/// An input by name, for bind_inputs.
struct NamedTensor {
  std::string_view name;
  Tensor tensor;
};

/// Binds `inputs` to the program's inputs by name, as `edgec run` and
/// `bench` do: every input present, nothing extra, each checked by
/// Method::set_input. A failure is an InputError starting with `what` (the
/// npz path for the CLI).
void bind_inputs(const runtime::Program& program, runtime::Method& method, std::span<const NamedTensor> inputs,
                 const std::string& what);

/// What `edgec inspect --json` prints for `program`, loaded from `file`.
nlohmann::ordered_json inspect_json(const runtime::Program& program, const std::string& file);

// Benchmarking (`edgec bench`).
/// Latency statistics of one set of runs, in milliseconds.
struct BenchStats {
  double median = 0, p90 = 0, p99 = 0, min = 0, mean = 0, max = 0;
};
BenchStats summarize(std::vector<double> ms);

/// One row of the profile: an operator, or one delegate, or a step.
struct ProfileRow {
  std::string name;
  int calls = 0;        // Instructions per run.
  double total_ms = 0;  // Per run, summed over its instructions.
};

/// The steps of one delegate that breaks its work down.
struct DelegateProfile {
  size_t delegate = 0;
  std::string backend;
  std::vector<ProfileRow> rows;
  double total_ms = 0;
};

/// What --profile reports: the instructions by operator, and the steps
/// inside each delegate that breaks its work down.
struct Profile {
  std::vector<ProfileRow> rows;
  std::vector<DelegateProfile> delegates;
  double total_ms = 0;  // Per run, over every instruction.
};

/// What one bench measures.
struct BenchSettings {
  std::string program;  // Named in the report.
  int iters = 100, warmup = 10, threads = 1;
  bool json = false, profile = false;
  /// Runs per second, as a control loop calls it (0: back to back). Each
  /// run starts at its tick; one that starts late is counted as missed.
  double rate_hz = 0;
};

/// The most runs iters and warmup take.
constexpr int64_t kMaxBenchRuns = 1'000'000'000;

/// Throws CompileError naming --iters when keeping the times of
/// `settings.iters` runs would pass the memory limit.
void check_bench_memory(const BenchSettings& settings);

/// The figures one bench run reports.
struct BenchResult {
  double load_ms = 0;
  std::vector<double> times_ms;  // Every timed run, in order.
  BenchStats stats;
  Profile profile;  // Empty without profile.
  long rss_kib = 0;
  /// Process CPU time (user + system, every thread) over the timed runs,
  /// per run: with a rate, it includes what threads burn between runs.
  double cpu_ms_per_run = 0;
  /// With a rate: runs that started after their tick (the one before
  /// overran the period).
  int missed = 0;
  /// Timed runs that took fewer threads than asked, because other processes
  /// kept cores busy (runtime/contention.h).
  int reduced_runs = 0;
};

/// Runs `method` (its inputs bound) settings.warmup times untimed, then
/// settings.iters timed, then (with settings.profile) a profiled pass of as
/// many runs. `load_ms` is what loading took, reported as given.
BenchResult bench_method(const runtime::Program& program, runtime::Method& method, const BenchSettings& settings,
                         double load_ms);

/// What `edgec bench --json` prints.
nlohmann::ordered_json bench_json(const BenchSettings& settings, const runtime::Program& program,
                                  const BenchResult& result);

}  // namespace edgec::driver
