#include "runtime/method.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <string_view>
#include <thread>

#include "base/thread_cap.h"

namespace edgec::runtime {
namespace {

// A tensor for a slot's declared type with bounds as sizes (the kernels
// resize outputs to their actual shapes).
Tensor slot_tensor(const Slot& s, std::byte* arena) {
  Tensor t;
  t.dtype = s.type.dtype;
  t.rank = static_cast<int>(s.type.dims.size());
  for (int i = 0; i < t.rank; ++i) t.sizes[i] = std::max<int64_t>(s.type.dims[i].value, 0);
  t.set_contiguous_strides();
  if (s.kind == SlotKind::Activation) {
    t.data = arena + s.offset;
    t.capacity = s.capacity;
  } else {
    t.data = const_cast<std::byte*>(s.data);  // kernels never write inputs
    t.capacity = 0;
  }
  return t;
}

// Copies `src` into `dst`, an activation whose memory is its own: its
// shape becomes src's. Fails when the bytes exceed dst's capacity.
Error copy_into(Tensor& dst, const Tensor& src, const char* what) {
  if (src.dtype != dst.dtype || src.rank != dst.rank)
    return fail(Error::InvalidShape, std::string(what) + ": a " + std::string(dtype_name(src.dtype)) + shape_string(src.shape()) +
                                         " value for a " + std::string(dtype_name(dst.dtype)) + " result of rank " +
                                         std::to_string(dst.rank));
  const size_t bytes = src.nbytes();
  if (bytes > dst.capacity)
    return fail(Error::InvalidShape, std::string(what) + ": " + std::string(dtype_name(src.dtype)) + shape_string(src.shape()) +
                                         " needs " + std::to_string(bytes) + " bytes, more than the " +
                                         std::to_string(dst.capacity) + " planned for it");
  dst.sizes = src.sizes;
  dst.set_contiguous_strides();
  if (bytes > 0) std::memmove(dst.data, src.data, bytes);
  return Error::Ok;
}

// A bool or i64 flag's value (a one-element tensor).
bool read_flag(const Tensor& t, int64_t& out) {
  if (t.numel() != 1 || !t.data) return false;
  if (t.dtype == DType::Bool) out = *static_cast<const uint8_t*>(t.data) != 0;
  else if (t.dtype == DType::Int64) out = *static_cast<const int64_t*>(t.data);
  else return false;
  return true;
}

}  // namespace

int Method::max_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

Result<std::unique_ptr<Method>> Method::create(const Program& program, int num_threads) {
  // The count reaches OpenMP's num_threads (the kernels) and oneDNN's
  // thread budget unchanged: libgomp dies of a huge one (SIGSEGV past
  // 65535, an abort from a failed thread creation below), and more threads
  // than cores only oversubscribe the machine.
  if (const int most = max_threads(); num_threads < 1 || num_threads > most)
    return fail(Error::InvalidArgument, "expected 1 to " + std::to_string(most) +
                                            " threads (the cores of this machine), got " +
                                            std::to_string(num_threads));
  Result<bool> adaptive = ContentionGovernor::enabled_by_environment();
  if (!adaptive.ok()) return adaptive.error();
  std::unique_ptr<Method> m(new Method(program));
  m->ctx_.num_threads = num_threads;
  m->num_threads_ = m->last_run_threads_ = m->thread_limit_ = num_threads;
  m->governor_ = ContentionGovernor(num_threads, *adaptive);
  // A corrupt or hostile file may plan any arena size: refuse one beyond the
  // memory limit before asking the allocator for it.
  if (const uint64_t limit = memory_limit(); program.arena_size() > limit)
    return fail(Error::OutOfMemory, "the planned arena of " + std::to_string(program.arena_size()) +
                                        " bytes exceeds the memory limit of " + std::to_string(limit) +
                                        " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  if (program.arena_size() > 0) {
    // 64-byte aligned: planned offsets are multiples of 64.
    m->arena_.reset(new (std::align_val_t(64), std::nothrow) std::byte[program.arena_size()]);
    if (!m->arena_)
      return fail(Error::OutOfMemory, "cannot allocate the " + std::to_string(program.arena_size()) + "-byte arena");
  }
  m->values_.reserve(program.slots().size());
  for (const Slot& s : program.slots()) m->values_.push_back(slot_tensor(s, m->arena_.get()));
  m->bound_.assign(program.inputs().size(), false);
  m->symbol_values_.assign(program.symbols().size(), -1);
  size_t most_ins = 0, most_outs = 0;
  // Kernels inside regions share the operand tables too.
  auto widest = [&](auto&& self, std::span<const Instruction> block) -> void {
    for (const Instruction& in : block) {
      most_ins = std::max(most_ins, in.inputs.size());
      most_outs = std::max(most_outs, in.outputs.size());
      for (const Region& r : in.regions) self(self, r.instructions);
    }
  };
  widest(widest, program.instructions());
  m->loops_.assign(program.num_loops(), LoopScratch{});
  for (const Instruction& in : program.instructions()) {
    if (!in.is_delegate_call()) continue;
    // values_ is never resized after this, so pointers into it stay valid.
    DelegateCall& call = m->calls_.emplace_back();
    for (int32_t idx : in.inputs) call.ins.push_back(&m->values_[static_cast<size_t>(idx)]);
    for (int32_t idx : in.outputs) call.outs.push_back(&m->values_[static_cast<size_t>(idx)]);
  }
  m->ins_.resize(most_ins);
  m->outs_.resize(most_outs);
  // One handle per delegate per Method: backends keep execution state in it.
  // On failure the destructor destroys the handles made so far.
  const auto delegates = program.delegates();
  m->handles_.assign(delegates.size(), nullptr);
  for (size_t i = 0; i < delegates.size(); ++i) {
    const DelegateInfo& d = delegates[i];
    Result<void*> handle = d.backend->init(d.payload, program.named_data(), m->ctx_.num_threads);
    if (!handle.ok()) {
      set_error_detail("delegate " + std::to_string(i) + " (" + d.backend_id + "): " + error_detail());
      return handle.error();
    }
    if (!*handle) return fail(Error::DelegateInvalidHandle, "delegate " + std::to_string(i) + " (" + d.backend_id + "): init gave no handle");
    m->handles_[i] = *handle;
  }
  return m;
}

Method::~Method() {
  const auto delegates = program_.delegates();
  for (size_t i = handles_.size(); i-- > 0;)
    if (handles_[i]) delegates[i].backend->destroy(handles_[i]);
}

void Method::reset_inputs() {
  std::fill(bound_.begin(), bound_.end(), false);
  std::fill(symbol_values_.begin(), symbol_values_.end(), -1);
}

Error Method::set_input(size_t index, const Tensor& t) {
  if (index >= program_.inputs().size())
    return fail(Error::InvalidArgument, "input index " + std::to_string(index) + " out of range: the program has " +
                                            std::to_string(program_.inputs().size()) + " input(s)");
  const IoSlot& io = program_.inputs()[index];
  const Slot& s = program_.slots()[static_cast<size_t>(io.slot)];
  // Messages are built only on failure: a delegate backend binds inputs on
  // every execute, which must not allocate.
  auto mismatch = [&](Error err, const std::string& why) {
    return fail(err, "input '" + io.name + "': expected " + s.type.str(program_.symbols()) + ", got " +
                         std::string(dtype_name(t.dtype)) + shape_string(t.shape()) + why);
  };
  if (t.dtype != s.type.dtype) return mismatch(Error::InvalidType, "");
  if (t.rank != static_cast<int>(s.type.dims.size())) return mismatch(Error::InvalidShape, " (rank)");
  if (t.numel() > 0 && t.data == nullptr) return fail(Error::InvalidArgument, "input '" + io.name + "' has no data");
  for (int i = 0; i < t.rank; ++i) {
    const DimInfo& d = s.type.dims[static_cast<size_t>(i)];
    const int64_t n = t.sizes[i];
    const bool bad_static = d.kind == DimInfo::Kind::Static && n != d.value;
    const bool over_bound = d.kind != DimInfo::Kind::Static && d.value >= 0 && n > d.value;
    if (bad_static || over_bound || n < 0) return mismatch(Error::InvalidShape, " (dim " + std::to_string(i) + ")");
  }
  Tensor& v = values_[static_cast<size_t>(io.slot)];
  v = t;
  v.capacity = 0;
  bound_[index] = true;
  return Error::Ok;
}

Error Method::set_profile(std::span<double> seconds) {
  if (!seconds.empty() && seconds.size() != program_.instructions().size())
    return fail(Error::InvalidArgument, "profile has " + std::to_string(seconds.size()) + " entries; the program has " +
                                            std::to_string(program_.instructions().size()) + " instruction(s)");
  profile_ = seconds;
  return Error::Ok;
}

std::vector<std::string> Method::delegate_step_names(size_t delegate) const {
  if (delegate >= handles_.size()) return {};
  return program_.delegates()[delegate].backend->step_names(handles_[delegate]);
}

Error Method::set_delegate_profile(size_t delegate, std::span<double> seconds) {
  if (delegate >= handles_.size())
    return fail(Error::InvalidArgument, "no delegate " + std::to_string(delegate) + "; the program has " +
                                            std::to_string(handles_.size()));
  const Error err = program_.delegates()[delegate].backend->set_profile(handles_[delegate], seconds);
  if (err != Error::Ok)
    set_error_detail("delegate " + std::to_string(delegate) + " cannot profile " + std::to_string(seconds.size()) +
                     " step(s)");
  return err;
}

Error Method::set_thread_limit(int threads) {
  if (threads < 1 || threads > num_threads_)
    return fail(Error::InvalidArgument, "a thread limit of " + std::to_string(threads) + " is outside 1 to " +
                                            std::to_string(num_threads_) + " (the Method's threads)");
  thread_limit_ = threads;
  return Error::Ok;
}

Error Method::execute() {
  for (size_t i = 0; i < bound_.size(); ++i)
    if (!bound_[i]) return fail(Error::InvalidArgument, "input '" + program_.inputs()[i].name + "' is not set");
  // A symbol must have one size across the inputs bound for this run. It is
  // checked here rather than in set_input so that a caller may rebind the
  // inputs one by one with new sizes between runs.
  std::fill(symbol_values_.begin(), symbol_values_.end(), -1);
  for (size_t i = 0; i < bound_.size(); ++i) {
    const IoSlot& io = program_.inputs()[i];
    const Slot& s = program_.slots()[static_cast<size_t>(io.slot)];
    const Tensor& t = values_[static_cast<size_t>(io.slot)];
    for (size_t k = 0; k < s.type.dims.size(); ++k) {
      const DimInfo& d = s.type.dims[k];
      if (d.kind != DimInfo::Kind::Symbolic) continue;
      int64_t& value = symbol_values_[static_cast<size_t>(d.symbol)];
      const int64_t n = t.sizes[k];
      if (value >= 0 && value != n)
        return fail(Error::InvalidShape, "input '" + io.name + "': symbol '" +
                                             program_.symbols()[static_cast<size_t>(d.symbol)] + "' is " +
                                             std::to_string(n) + " in dim " + std::to_string(k) + " but " +
                                             std::to_string(value) + " in an earlier input");
      value = n;
    }
  }
  // The kernels take the run's threads through the context, the delegates
  // through the calling thread's cap (base/thread_cap.h).
  const int threads = std::min(governor_.threads_for_run(), thread_limit_);
  last_run_threads_ = threads;
  ctx_.num_threads = threads;
  RunThreadCap cap(threads);
  run_ += 1;
  active_run_.store(run_, std::memory_order_release);
  const Error err = run_block(program_.instructions(), true);
  active_run_.store(0, std::memory_order_release);
  return err;
}

void Method::cancel() {
  const uint64_t run = active_run_.load(std::memory_order_acquire);
  if (run != 0) cancelled_run_.store(run, std::memory_order_relaxed);
}

Error Method::cancelled(const char* where, size_t index) const {
  return fail(Error::Cancelled, std::string("cancelled before ") + where + " " + std::to_string(index));
}

Error Method::run_block(std::span<const Instruction> instructions, bool top) {
  using Clock = std::chrono::steady_clock;
  // Checked once per run, so that a Method that is not profiled pays one
  // predictable branch per instruction and never reads the clock.
  const bool profiling = top && !profile_.empty();
  size_t call = 0;  // The next delegate call's tables (delegates are called from the top block only).
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction& in = instructions[i];
    if (cancel_requested()) [[unlikely]]
      return cancelled("instruction", i);
    const Clock::time_point start = profiling ? Clock::now() : Clock::time_point{};
    if (in.is_delegate_call()) {
      // The backend reads and writes values_ through the prebuilt tables;
      // its outputs are activation slots of this Method's arena.
      const auto d = static_cast<size_t>(in.delegate);
      const DelegateCall& tables = calls_[call++];
      const Error err = program_.delegates()[d].backend->execute(handles_[d], tables.ins, tables.outs);
      if (err != Error::Ok) {
        set_error_detail("instruction " + std::to_string(i) + " (call_delegate " + std::to_string(d) + ", " +
                         program_.delegates()[d].backend_id + "): " + error_detail());
        return err;
      }
      if (profiling) profile_[i] += std::chrono::duration<double>(Clock::now() - start).count();
      continue;
    }
    if (in.control != Control::None) {
      const Error err = in.control == Control::Cond ? run_cond(in) : run_loop(in);
      if (err != Error::Ok) {
        set_error_detail("instruction " + std::to_string(i) + " (" + in.op + "): " + error_detail());
        return err;
      }
      if (profiling) profile_[i] += std::chrono::duration<double>(Clock::now() - start).count();
      continue;
    }
    const std::span<Tensor> ins(ins_.data(), in.inputs.size()), outs(outs_.data(), in.outputs.size());
    for (size_t k = 0; k < in.inputs.size(); ++k) ins[k] = values_[static_cast<size_t>(in.inputs[k])];
    for (size_t k = 0; k < in.outputs.size(); ++k) outs[k] = values_[static_cast<size_t>(in.outputs[k])];
    const Error err = in.kernel(ctx_, ins, in.attrs, outs);
    if (err != Error::Ok) {
      set_error_detail("instruction " + std::to_string(i) + " (" + in.op + "): " + error_detail());
      return err;
    }
    for (size_t k = 0; k < in.outputs.size(); ++k) values_[static_cast<size_t>(in.outputs[k])] = outs[k];
    if (profiling) profile_[i] += std::chrono::duration<double>(Clock::now() - start).count();
  }
  return Error::Ok;
}

// The branch the condition selects runs with its placeholders bound to the
// captures (views, no copy); its outputs are copied into the results,
// which live past the branch's memory (docs/semantics.md §8).
Error Method::run_cond(const Instruction& in) {
  int64_t pred = 0;
  if (!read_flag(values_[static_cast<size_t>(in.inputs[0])], pred))
    return fail(Error::InvalidShape, "the condition is not one bool");
  const Region& branch = in.regions[pred ? 0 : 1];
  for (size_t k = 0; k < branch.inputs.size(); ++k)
    values_[static_cast<size_t>(branch.inputs[k])] = values_[static_cast<size_t>(in.inputs[1 + k])];
  if (const Error err = run_block(branch.instructions, false); err != Error::Ok) {
    set_error_detail(std::string(pred ? "then" : "else") + " branch: " + error_detail());
    return err;
  }
  for (size_t k = 0; k < in.outputs.size(); ++k) {
    Tensor& dst = values_[static_cast<size_t>(in.outputs[k])];
    if (const Error err = copy_into(dst, values_[static_cast<size_t>(branch.outputs[k])], "a branch's result"); err != Error::Ok)
      return err;
  }
  return Error::Ok;
}

// The body runs while the iteration is below the trip count and the
// condition holds. The carried results hold the carried values between
// iterations: they start as the initial values, the body reads them
// through its placeholders (views), and its outputs, in the body's own
// memory, are copied back after each iteration. Stacked results get one
// row per iteration.
Error Method::run_loop(const Instruction& in) {
  int64_t trips = 0, cond = 0;
  if (!read_flag(values_[static_cast<size_t>(in.inputs[0])], trips))
    return fail(Error::InvalidShape, "the trip count is not one i64");
  if (!read_flag(values_[static_cast<size_t>(in.inputs[1])], cond))
    return fail(Error::InvalidShape, "the condition is not one bool");
  const Region& body = in.regions[0];
  const size_t carried = static_cast<size_t>(in.carried);
  LoopScratch& scratch = loops_[static_cast<size_t>(in.loop_index)];
  Tensor& iteration = values_[static_cast<size_t>(body.inputs[0])];
  iteration.data = &scratch.iteration;
  Tensor& condition = values_[static_cast<size_t>(body.inputs[1])];
  condition.data = &scratch.condition;
  // Carried value k becomes `value`: copied into result k, which the body
  // reads through its placeholder (a view).
  auto carry = [&](size_t k, int32_t value) {
    Tensor& result = values_[static_cast<size_t>(in.outputs[k])];
    if (const Error err = copy_into(result, values_[static_cast<size_t>(value)], "a carried value"); err != Error::Ok)
      return err;
    Tensor& view = values_[static_cast<size_t>(body.inputs[2 + k])];
    view = result;
    view.capacity = 0;
    return Error::Ok;
  };
  for (size_t k = 0; k < carried; ++k)
    if (const Error err = carry(k, in.inputs[2 + k]); err != Error::Ok) return err;
  for (size_t k = 2 + carried; k < in.inputs.size(); ++k)
    values_[static_cast<size_t>(body.inputs[k])] = values_[static_cast<size_t>(in.inputs[k])];
  int64_t i = 0;
  for (; i < trips && cond; ++i) {
    if (cancel_requested()) [[unlikely]]
      return cancelled("iteration", static_cast<size_t>(i));
    scratch.iteration = i;
    scratch.condition = cond != 0;
    if (const Error err = run_block(body.instructions, false); err != Error::Ok) {
      set_error_detail("iteration " + std::to_string(i) + ": " + error_detail());
      return err;
    }
    if (!read_flag(values_[static_cast<size_t>(body.outputs[0])], cond))
      return fail(Error::InvalidShape, "iteration " + std::to_string(i) + ": the body's condition is not one bool");
    for (size_t k = 0; k < carried; ++k)
      if (const Error err = carry(k, body.outputs[1 + k]); err != Error::Ok) return err;
    for (size_t k = carried; k < in.outputs.size(); ++k) {
      // Row i of a stacked result: the element's bytes at i * its size;
      // every row has the first row's shape.
      Tensor& stacked = values_[static_cast<size_t>(in.outputs[k])];
      const Tensor& row = values_[static_cast<size_t>(body.outputs[1 + k])];
      const size_t bytes = row.nbytes();
      bool same = i == 0 || row.rank + 1 == stacked.rank;
      for (int d = 0; same && i > 0 && d < row.rank; ++d) same = stacked.sizes[d + 1] == row.sizes[d];
      if (!same || row.rank + 1 != stacked.rank || row.dtype != stacked.dtype)
        return fail(Error::InvalidShape, "iteration " + std::to_string(i) + ": a stacked row of shape " +
                                             shape_string(row.shape()) + " differs from the rows before");
      // At most the rows its type allows (a size or a bound), and within
      // its planned bytes.
      const int64_t rows = program_.slots()[static_cast<size_t>(in.outputs[k])].type.dims[0].value;
      size_t offset = 0, end = 0;
      if (i >= rows || __builtin_mul_overflow(static_cast<size_t>(i), bytes, &offset) ||
          __builtin_add_overflow(offset, bytes, &end) || end > stacked.capacity)
        return fail(Error::InvalidShape, "iteration " + std::to_string(i) + ": the stacked result holds " +
                                             std::to_string(rows) + " rows (its bound); the loop runs longer");
      stacked.sizes[0] = i + 1;
      for (int d = 0; d < row.rank; ++d) stacked.sizes[d + 1] = row.sizes[d];
      stacked.set_contiguous_strides();
      if (bytes > 0) std::memcpy(static_cast<std::byte*>(stacked.data) + offset, row.data, bytes);
    }
  }
  if (i == 0) {
    // No iteration ran: the stacked results have no rows; their other
    // dims are their declared sizes (or bounds).
    for (size_t k = carried; k < in.outputs.size(); ++k) {
      Tensor& stacked = values_[static_cast<size_t>(in.outputs[k])];
      stacked.sizes[0] = 0;
      stacked.set_contiguous_strides();
    }
  }
  return Error::Ok;
}

const Tensor& Method::output(size_t index) const {
  return values_[static_cast<size_t>(program_.outputs()[index].slot)];
}

}  // namespace edgec::runtime
