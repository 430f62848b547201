// A Method is one execution state of a loaded Program: its own arena and
// tensors, and its own handle for every delegate, so several threads can
// each run their own Method of one Program. execute() neither allocates nor
// throws.
#pragma once

#include <atomic>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "base/memory_limit.h"
#include "runtime/contention.h"
#include "runtime/program.h"

namespace edgec::runtime {

// memory_limit() and parse_memory_size() (base/memory_limit.h) are the
// runtime's too: runtime::memory_limit names the same function.
using edgec::memory_limit;
using edgec::parse_memory_size;

class Method {
 public:
  /// Allocates the arena and per-instruction tensor tables and initializes
  /// every delegate (one handle each, passed `num_threads`). Errors:
  /// InvalidArgument (`num_threads` outside 1 to max_threads()),
  /// OutOfMemory, or what a backend's init reports (InvalidProgram,
  /// NotFound for a constant slot with no data; the detail starts with
  /// "delegate I (BACKEND): ").
  static Result<std::unique_ptr<Method>> create(const Program& program, int num_threads = 1);
  /// The most threads a Method may use: the machine's cores
  /// (std::thread::hardware_concurrency, at least 1). The kernels and the
  /// delegates share them, never stacking their thread counts.
  static int max_threads();
  /// Destroys the delegate handles.
  ~Method();
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  /// Binds input `index` to `tensor` (not copied: it must stay valid through
  /// execute). Checks dtype, rank and every size against the declared type:
  /// static sizes must match and bounded dims must fit (that a symbol has
  /// one size across all inputs is checked by execute, so inputs may be
  /// rebound one by one with new sizes). Errors: InvalidArgument,
  /// InvalidType, InvalidShape (the detail names the input and both
  /// shapes). Allocates only on failure.
  Error set_input(size_t index, const Tensor& tensor);

  /// Forgets every binding (execute then fails until each input is bound
  /// again). For callers that rebind all inputs before each execute (a
  /// delegate backend). Does not allocate.
  void reset_inputs();

  /// Runs every instruction. Errors: InvalidArgument (an unbound input),
  /// InvalidShape (a symbol with two sizes across the inputs), or
  /// whatever a kernel or delegate reports (the detail names the
  /// instruction). The run takes the Method's threads, or fewer while other
  /// processes keep cores busy (runtime/contention.h; EDGEC_ADAPTIVE_THREADS=0
  /// turns that off).
  Error execute();

  /// Stops the run in progress (execute() on another thread): it returns
  /// Error::Cancelled at its next instruction or loop iteration (a kernel
  /// or a delegate call is not interrupted inside), and the Method stays
  /// usable: the next execute runs in full. Safe from any thread at any
  /// time; a cancel while no run is in progress does nothing (it never
  /// cancels a later run). Neither allocates nor blocks.
  void cancel();

  /// The threads the Method was created with, and those the last execute
  /// took (fewer under contention or a limit).
  int num_threads() const { return num_threads_; }
  int last_run_threads() const { return last_run_threads_; }
  /// Holds the next runs to at most `threads` of the Method's (a control
  /// loop that knows its other work needs a core). Errors: InvalidArgument
  /// (outside 1 to num_threads()). Does not allocate on success.
  Error set_thread_limit(int threads);

  /// Per-instruction profiling (for `edgec bench --profile`): while set,
  /// execute() adds each instruction's wall time in seconds to
  /// `seconds[i]`, i being the index in Program::instructions(), so that
  /// repeated runs accumulate; the caller zeroes and reads the span, which
  /// must outlive the runs. An empty span turns profiling off (the
  /// default; execute then reads no clock). An instruction that fails adds
  /// nothing. Errors: InvalidArgument when the span is neither empty nor
  /// one entry per instruction.
  Error set_profile(std::span<double> seconds);

  /// Profiling inside delegate `delegate` (Backend::step_names /
  /// set_profile): the names of its handle's steps, and the span its
  /// execute adds each step's seconds to (empty: off). Errors:
  /// InvalidArgument (no such delegate, or a span of another size).
  std::vector<std::string> delegate_step_names(size_t delegate) const;
  Error set_delegate_profile(size_t delegate, std::span<double> seconds);

  /// The tensor last bound to input `index` by set_input: what the kernels
  /// read (the caller's memory, never a copy). `index` below num_inputs().
  const Tensor& input(size_t index) const {
    return values_[static_cast<size_t>(program_.inputs()[index].slot)];
  }

  /// Output `index` after execute(); valid until the next execute().
  const Tensor& output(size_t index) const;
  size_t num_outputs() const { return program_.outputs().size(); }
  size_t num_inputs() const { return program_.inputs().size(); }

 private:
  explicit Method(const Program& p) : program_(p) {}

  /// Runs `block` (the program's instructions, or a region's); `top`: the
  /// program's own, which are profiled and may call delegates.
  Error run_block(std::span<const Instruction> block, bool top);
  /// Whether cancel() has asked the run in progress to stop: one relaxed
  /// load per instruction or loop iteration.
  bool cancel_requested() const { return cancelled_run_.load(std::memory_order_relaxed) == run_; }
  /// Error::Cancelled, naming where the run stopped.
  Error cancelled(const char* where, size_t index) const;
  Error run_cond(const Instruction& in);
  Error run_loop(const Instruction& in);

  // The arena comes from the 64-byte-aligned operator new[], so it must go
  // back through the aligned operator delete[] (plain delete[] is undefined).
  struct AlignedDelete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(64)); }
  };

  const Program& program_;
  KernelContext ctx_;
  int num_threads_ = 1;
  int last_run_threads_ = 1;
  int thread_limit_ = 1;
  ContentionGovernor governor_;
  std::unique_ptr<std::byte[], AlignedDelete> arena_;
  std::vector<Tensor> values_;
  std::vector<bool> bound_;
  std::vector<int64_t> symbol_values_;
  // A kernel's operands, copied from values_ before it runs: one pair of
  // tables sized for the widest instruction and shared by all, since
  // instructions run one at a time (a pair per instruction took twice the
  // memory of the values themselves, 370 MB for a chain of 10^6).
  std::vector<Tensor> ins_, outs_;
  // Delegates: one handle per DelegateInfo (null until initialized), and
  // for each delegate-call instruction, in program order, pointer tables
  // into values_, built once so that execute does not allocate.
  std::vector<void*> handles_;
  struct DelegateCall {
    std::vector<const Tensor*> ins;
    std::vector<Tensor*> outs;
  };
  std::vector<DelegateCall> calls_;
  std::span<double> profile_;  // Empty: not profiling.
  // Per loop instruction (Instruction::loop_index): the storage its body's
  // iteration and condition placeholders are bound to.
  struct LoopScratch {
    int64_t iteration = 0;
    bool condition = false;
  };
  std::vector<LoopScratch> loops_;
  // Cancellation: every execute takes the next run number (`run_`, written
  // by the running thread only) and publishes it in `active_run_` while it
  // runs (0 when none runs); cancel() copies the published number into
  // `cancelled_run_`, which the run compares with its own. A cancel that
  // comes late names a finished run, so it cannot stop a later one.
  uint64_t run_ = 0;
  std::atomic<uint64_t> active_run_{0};
  std::atomic<uint64_t> cancelled_run_{0};
};

}  // namespace edgec::runtime
