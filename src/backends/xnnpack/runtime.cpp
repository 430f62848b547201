// The `xnnpack` backend's runtime side. init validates the payload (a
// program table, loaded by the same layered loader as a file), creates
// each instruction's XNNPACK operators once (XNNPACK packs the weights
// then, from the file's mapped named data), places the delegate's buffers
// and sets every operator up on them. execute binds the caller's tensors,
// runs the steps and writes the outputs: no allocation, no exception.
//
// float16: natively where the instruction set has float16 arithmetic and
// XNNPACK creates the f16 operators, else the handle runs in f32 inside
// (runtime_state.h, runtime_f16.cpp).
//
// Threads: one pthreadpool per handle, of the Method's thread count (none
// for one thread); a run held to one thread by the caller's cap
// (base/thread_cap.h) runs the same operators without the pool.
#include "backends/xnnpack/runtime.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

#include "backends/xnnpack/runtime_state.h"
#include "base/memory_limit.h"
#include "base/thread_cap.h"
#include "kernels/isa.h"

namespace edgec::runtime {
namespace xnnpack {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

const char* status_name(xnn_status s) {
  switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "XNNPACK is not initialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported on this CPU";
    case xnn_status_out_of_memory: return "out of memory";
  }
  return "unknown status";
}

// XNNPACK's one-time setup (CPU detection, kernel tables); thread-safe.
bool xnnpack_ready() {
  static const bool ready = xnn_initialize(nullptr) == xnn_status_success;
  return ready;
}

// The pixels of a rank-3 or rank-4 shape (L, or H * W).
int64_t pixels(const std::vector<int64_t>& s) { return s.size() == 4 ? s[2] * s[3] : s[2]; }

// A rank-3 or rank-4 shape whose channels-first and channels-last orders
// are the same bytes (one channel, or one pixel): no conversion between
// them.
bool same_in_both(const std::vector<int64_t>& s) {
  return (s.size() == 3 || s.size() == 4) && (s[1] == 1 || pixels(s) == 1);
}

// Between NCHW and NHWC (NCL and NLC), one image at a time; `to_nhwc`
// says which way. Elements are moved as bytes of their size (f32, f16, or
// u8 / i8).
template <typename T>
void convert_layout(const std::byte* src, std::byte* dst, const std::vector<int64_t>& shape, bool to_nhwc) {
  const int64_t n = shape[0], c = shape[1], hw = pixels(shape);
  const auto* in = reinterpret_cast<const T*>(src);
  auto* out = reinterpret_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i, in += c * hw, out += c * hw)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) {
        if (to_nhwc) out[p * c + ch] = in[ch * hw + p];
        else out[ch * hw + p] = in[p * c + ch];
      }
}

void convert(const SlotState& st, const std::byte* src, std::byte* dst, bool to_nhwc) {
  if (dtype_size(st.dtype) == 1) convert_layout<uint8_t>(src, dst, st.shape, to_nhwc);
  else if (dtype_size(st.dtype) == 2) convert_layout<uint16_t>(src, dst, st.shape, to_nhwc);
  else convert_layout<uint32_t>(src, dst, st.shape, to_nhwc);
}

}  // namespace

std::vector<std::string> Delegate::step_names() const {
  std::vector<std::string> names(steps.size());
  std::transform(steps.begin(), steps.end(), names.begin(), [](const Step& s) { return s.name; });
  return names;
}

Delegate::~Delegate() {
  for (Step& s : steps)
    if (s.op) xnn_delete_operator(s.op);
  if (pool) pthreadpool_destroy(pool);
}

std::byte* Delegate::own(size_t bytes) {
  owned.emplace_back(new std::byte[bytes + XNN_EXTRA_BYTES]);
  return owned.back().get();
}

Place Delegate::plain(int32_t slot, bool stable) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (st.plain.present() && (st.plain.stable() || !stable)) {
    touch(st.plain);
    return st.plain;
  }
  if (st.kind == SlotKind::Constant || st.kind == SlotKind::State) {
    std::byte* copy = own(st.nbytes());
    std::memcpy(copy, st.data, st.nbytes());
    st.plain = {.fixed = copy};
    return st.plain;
  }
  Place to{static_cast<int32_t>(buffers.size())};
  buffers.push_back({st.nbytes() + XNN_EXTRA_BYTES});
  const size_t bytes = st.nbytes();
  if (st.plain.present()) {
    // A delegate input, copied where an operator reads it (its pointer
    // changes at every execute; the operator was set up once).
    const Place from = st.plain;
    add_loop([this, from, to, bytes] { std::memcpy(at(to), at(from), bytes); }, "copy of input slot " + str(slot),
             "copy (input)");
  } else {
    require(st.nhwc.present(), "reads slot " + str(slot) + " before it is written");
    if (same_in_both(st.shape)) {
      st.plain = st.nhwc;
      touch(st.plain);
      return st.plain;
    }
    const Place from = st.nhwc;
    touch(from);
    add_loop([this, from, to, slot] { convert(slots[static_cast<size_t>(slot)], at(from), at(to), false); },
             "conversion of slot " + str(slot) + " to NCHW", "nhwc to nchw");
  }
  st.plain = to;
  touch(to);
  return to;
}

Place Delegate::nhwc(int32_t slot) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (st.nhwc.present()) {
    touch(st.nhwc);
    return st.nhwc;
  }
  require(st.shape.size() == 3 || st.shape.size() == 4,
          "reads slot " + str(slot) + " of rank " + str(static_cast<int64_t>(st.shape.size())) + " as NHWC");
  if (same_in_both(st.shape)) return st.nhwc = plain(slot, true);
  if (st.kind == SlotKind::Constant || st.kind == SlotKind::State) {
    std::byte* laid = own(st.nbytes());
    convert(st, st.data, laid, true);
    return st.nhwc = {.fixed = laid};
  }
  const Place from = plain(slot, false);
  Place to{static_cast<int32_t>(buffers.size())};
  buffers.push_back({st.nbytes() + XNN_EXTRA_BYTES});
  add_loop([this, from, to, slot] { convert(slots[static_cast<size_t>(slot)], at(from), at(to), true); },
           "conversion of slot " + str(slot) + " to NHWC", "nchw to nhwc");
  touch(to);
  return st.nhwc = to;
}

bool Delegate::in_nhwc(int32_t slot) const {
  const SlotState& st = slots.at(static_cast<size_t>(slot));
  return st.nhwc.present() && !st.plain.present();
}

Place Delegate::define(int32_t slot, Layout layout) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  // Values are written once, and never inputs or constants.
  require(st.kind == SlotKind::Activation && !st.plain.present() && !st.nhwc.present(),
          "writes slot " + str(slot) + ", which is an input, a constant or written before");
  require(layout == Layout::Plain || st.shape.size() == 3 || st.shape.size() == 4,
          "writes slot " + str(slot) + " of rank " + str(static_cast<int64_t>(st.shape.size())) + " as NHWC");
  Place p{static_cast<int32_t>(buffers.size())};
  buffers.push_back({st.nbytes() + XNN_EXTRA_BYTES});
  if (layout == Layout::Nhwc || same_in_both(st.shape)) st.nhwc = p;
  if (layout == Layout::Plain || same_in_both(st.shape)) st.plain = p;
  touch(p);
  return p;
}

void Delegate::alias(int32_t view, int32_t base_slot) {
  SlotState& v = slots.at(static_cast<size_t>(view));
  const SlotState& b = slots.at(static_cast<size_t>(base_slot));
  require(v.nbytes() == b.nbytes() && v.dtype == b.dtype && v.kind == SlotKind::Activation && !v.plain.present(),
          "views slot " + str(base_slot) + " as slot " + str(view) + " of another size or type");
  if (b.kind == SlotKind::Constant || b.kind == SlotKind::State) {
    v.kind = b.kind;  // A view of a constant is one (weights read it so).
    v.data = b.data;
    return;
  }
  v.plain = plain(base_slot, false);
}

void Delegate::add_op(xnn_status status, xnn_operator_t op, const char* create,
                      std::function<xnn_status(xnn_operator_t)> setup, std::string what, std::string name) {
  if (status != xnn_status_success) {
    if (op) xnn_delete_operator(op);
    throw XnnpackRefused(std::string(create) + ": " + status_name(status), status);
  }
  Step step;
  step.op = op;
  step.setup = [op, setup = std::move(setup)] { return setup(op); };
  step.what = std::move(what);
  step.name = std::move(name);
  steps.push_back(std::move(step));
}

void Delegate::add_loop(std::function<void()> loop, std::string what, std::string name) {
  Step step;
  step.loop = std::move(loop);
  step.what = std::move(what);
  step.name = std::move(name);
  steps.push_back(std::move(step));
}

void Delegate::finish_instruction(size_t first_step) {
  mark_touched_live(buffers, touched, first_step, steps.size());
}

namespace {

Error init_slots(Delegate& d, const Program& p) {
  const uint64_t limit = memory_limit();  // Read once: it asks the system.
  d.slots.reserve(p.slots().size());
  for (const Slot& s : p.slots()) {
    SlotState& st = d.slots.emplace_back();
    EDGEC_TRY(static_slot_shape("xnnpack", p, d.slots.size() - 1, limit, st.shape));
    st.edge_dtype = s.type.dtype;
    st.dtype = d.f16_as_f32 && s.type.dtype == DType::Float16 ? DType::Float32 : s.type.dtype;
    st.kind = s.kind;
    st.bytes = dtype_size(st.dtype);
    for (int64_t n : st.shape) st.bytes *= static_cast<size_t>(n);
    if (s.kind == SlotKind::Constant || s.kind == SlotKind::State) st.data = s.data;
  }
  if (d.f16_as_f32) widen_constants(d);
  for (const IoSlot& io : p.inputs()) {
    d.inputs.push_back(io.slot);
    SlotState& st = d.slots[static_cast<size_t>(io.slot)];
    st.plain = {.input = io.slot};
    // Where a strided input is packed (an f16 one held in f32: every
    // input, which XNNPACK widens from here); pages are touched only if one
    // comes.
    d.staging.emplace_back(new std::byte[st.edge_nbytes() + XNN_EXTRA_BYTES]);
  }
  for (const IoSlot& io : p.outputs()) d.outputs.push_back(io.slot);
  // Who reads what, for fusion: a value folds into its producer's operator
  // only when nothing else reads it.
  const auto instructions = p.instructions();
  d.readers.assign(d.slots.size(), 0);
  d.reader.assign(d.slots.size(), -1);
  d.is_output.assign(d.slots.size(), false);
  d.fused.assign(instructions.size(), false);
  for (size_t i = 0; i < instructions.size(); ++i)
    for (int32_t s : instructions[i].inputs) {
      const auto k = static_cast<size_t>(s);
      if (d.reader[k] == static_cast<int32_t>(i)) continue;
      ++d.readers[k];
      d.reader[k] = static_cast<int32_t>(i);
    }
  for (int32_t s : d.outputs) d.is_output[static_cast<size_t>(s)] = true;
  return Error::Ok;
}

// Places the buffers, allocates them as one block and sets every operator
// up on it: from here on no pointer an operator holds moves.
Error plan_and_setup(Delegate& d) {
  // The outputs are read after the last step.
  const int end = static_cast<int>(d.steps.size());
  for (int32_t s : d.outputs) {
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    for (const Place* p : {&st.plain, &st.nhwc, &st.edge})
      if (p->buffer >= 0) extend_life(d.buffers[static_cast<size_t>(p->buffer)], end, end);
  }
  const size_t total = place_buffers(d.buffers);
  if (const uint64_t limit = memory_limit(); total > limit)
    return fail(Error::OutOfMemory, "the xnnpack delegate's activation memory of " + str(static_cast<int64_t>(total)) +
                                        " bytes exceeds the memory limit of " + std::to_string(limit) +
                                        " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  d.block.reset(new (std::nothrow) std::byte[total + 64]);
  if (!d.block) return fail(Error::OutOfMemory, "cannot allocate the xnnpack delegate's " + str(static_cast<int64_t>(total)) +
                                                    "-byte activation memory");
  d.base = reinterpret_cast<std::byte*>((reinterpret_cast<uintptr_t>(d.block.get()) + 63) / 64 * 64);
  for (Step& s : d.steps) {
    if (!s.op) continue;
    if (const xnn_status st = s.setup(); st != xnn_status_success)
      return fail(Error::NotSupported, "xnnpack: " + s.what + ": XNNPACK cannot set it up: " + status_name(st));
  }
  return Error::Ok;
}

// Whether an instruction reads or writes an f16 value (held in f32 when
// the handle is f16_as_f32).
bool touches_f16(const Delegate& d, const Instruction& in) {
  for (const auto* list : {&in.inputs, &in.outputs})
    for (int32_t s : *list)
      if (s >= 0 && static_cast<size_t>(s) < d.slots.size() && d.slots[static_cast<size_t>(s)].widened()) return true;
  return false;
}

// Builds `d` (its pool and f16_as_f32 set) from `p`: every instruction's
// steps, then the buffers and the operators' setup. `f16_refused`: an f16
// operator's create failed for want of hardware support, which init
// answers by building the handle again in f32.
Error build_delegate(Delegate& d, const Program& p, bool& f16_refused) {
  EDGEC_TRY(init_slots(d, p));
  // What a builder throws, as init's Error naming `what`.
  auto guarded = [&](const std::string& what, auto&& build) -> Error {
    try {
      return build();
    } catch (const XnnpackRefused& e) {
      f16_refused = e.status == xnn_status_unsupported_hardware;
      return fail(Error::NotSupported, what + ": XNNPACK cannot build it: " + e.what());
    } catch (const InvalidPayload& e) {
      return fail(Error::InvalidProgram, what + ": " + e.what());
    } catch (const std::out_of_range&) {
      return fail(Error::InvalidProgram, what + " reads a slot the program does not have");
    }
  };
  if (d.f16_as_f32)
    EDGEC_TRY(guarded("xnnpack: the f16 inputs", [&] {
      add_input_widening(d);
      return Error::Ok;
    }));
  const auto instructions = p.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    if (d.fused[i]) continue;
    const size_t first = d.steps.size();
    EDGEC_TRY(guarded("xnnpack: instruction " + str(static_cast<int64_t>(i)) + " (" + instructions[i].op + ")", [&] {
      Ctx c{d, p, i};
      EDGEC_TRY(build_instruction(c));
      d.finish_instruction(first);
      return Error::Ok;
    }));
    // edgec bench --profile says which steps compute f16 in f32.
    if (d.f16_as_f32 && touches_f16(d, instructions[i]))
      for (size_t k = first; k < d.steps.size(); ++k) d.steps[k].name += kAsF32Suffix;
  }
  if (d.f16_as_f32)
    EDGEC_TRY(guarded("xnnpack: the f16 outputs", [&] {
      add_output_narrowing(d);
      return Error::Ok;
    }));
  EDGEC_TRY(plan_and_setup(d));
  // The analysis for fusion is not needed past init, nor is the Program,
  // nor the widened constants: XNNPACK packed them, or they were copied.
  d.readers = {};
  d.reader = {};
  d.is_output = {};
  d.fused = {};
  d.widened.clear();
  return Error::Ok;
}

Result<void*> init_delegate(std::span<const std::byte> payload, const NamedDataMap& named_data, int num_threads) {
  if (!xnnpack_ready()) return fail(Error::NotSupported, "xnnpack: XNNPACK does not initialize on this CPU");
  EDGEC_TRY(check_thread_count("xnnpack", num_threads));
  auto loaded = Program::load_payload(payload, named_data);
  if (!loaded.ok()) return loaded.error();
  const Program& p = **loaded;
  const bool has_f16 = std::any_of(p.slots().begin(), p.slots().end(),
                                   [](const Slot& s) { return s.type.dtype == DType::Float16; });
  // f16 natively only where the instruction set computes it (EDGEC_ISA=neon
  // and x86-64 do not); else, or where XNNPACK refuses the f16 operators
  // on this CPU after all, in f32.
  bool as_f32 = has_f16 && !kernel_isa_has_f16_arithmetic();
  pthreadpool_t pool = nullptr;
  for (;;) {
    std::unique_ptr<Delegate> d(new (std::nothrow) Delegate());
    if (!d) {
      if (pool) pthreadpool_destroy(pool);
      return fail(Error::OutOfMemory, "cannot allocate an xnnpack delegate handle");
    }
    d->threads = num_threads;
    d->f16_as_f32 = as_f32;
    d->pool = pool;  // The handle owns it from here.
    // Never more threads than the Method's; one runs without a pool.
    if (num_threads > 1 && !d->pool && !(d->pool = pthreadpool_create(static_cast<size_t>(num_threads))))
      return fail(Error::OutOfMemory, "xnnpack: cannot create a pool of " + str(num_threads) + " threads");
    bool f16_refused = false;
    const Error e = build_delegate(*d, p, f16_refused);
    if (e == Error::Ok) return static_cast<void*>(static_cast<DelegateHandle*>(d.release()));
    if (as_f32 || !has_f16 || !f16_refused) return e;
    as_f32 = true;
    pool = std::exchange(d->pool, nullptr);  // Kept for the second build.
  }
}

}  // namespace

Error Delegate::run(std::span<const Tensor* const> in, std::span<Tensor* const> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = *in[i];
    SlotState& st = slots[static_cast<size_t>(inputs[i])];
    EDGEC_TRY(check_input("xnnpack", i, t, st.edge_dtype, st.shape));
    if (st.widened()) {
      // XNNPACK widens it from staging, where its operator was set up.
      if (t.is_contiguous()) std::memcpy(staging[i].get(), t.data, st.edge_nbytes());
      else pack_contiguous(t, staging[i].get());
    } else if (t.is_contiguous()) {
      st.data = static_cast<const std::byte*>(t.data);
    } else {
      pack_contiguous(t, staging[i].get());
      st.data = staging[i].get();
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const SlotState& st = slots[static_cast<size_t>(outputs[i])];
    Tensor& t = *out[i];
    if (t.dtype != st.edge_dtype)
      return fail(Error::InvalidType, "xnnpack: output " + str(static_cast<int64_t>(i)) + ": expected " +
                                          std::string(dtype_name(st.edge_dtype)) + ", got " +
                                          std::string(dtype_name(t.dtype)));
    EDGEC_TRY(t.resize(st.shape));
  }
  // Held to one thread by the caller's cap: the operators run without the pool.
  pthreadpool_t p = capped_threads(threads) > 1 ? pool : nullptr;
  for (size_t k = 0; k < steps.size(); ++k) {
    Step& step = steps[k];
    EDGEC_TRY(time_step(k, [&]() -> Error {
      if (step.loop) {
        step.loop();
        return Error::Ok;
      }
      const xnn_status s = xnn_run_operator(step.op, p);
      return s == xnn_status_success ? Error::Ok : fail(Error::Internal, "xnnpack: " + step.what + ": " + status_name(s));
    }));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const SlotState& st = slots[static_cast<size_t>(outputs[i])];
    auto* dst = static_cast<std::byte*>(out[i]->data);
    if (st.edge.present()) std::memcpy(dst, at(st.edge), st.edge_nbytes());
    else if (st.plain.present()) std::memcpy(dst, at(st.plain), st.nbytes());
    else if (st.nhwc.present()) convert(st, at(st.nhwc), dst, false);
    else std::memcpy(dst, st.data, st.nbytes());  // A constant output.
  }
  return Error::Ok;
}

namespace {

class XnnpackBackend final : public DelegateBackend {
 public:
  std::string_view id() const override { return "xnnpack"; }
  bool is_available() const override { return xnnpack_ready(); }

  Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                     int num_threads) const override {
    return guarded_init("xnnpack", [&] { return init_delegate(payload, named_data, num_threads); });
  }
};

}  // namespace
}  // namespace xnnpack

const Backend& xnnpack_backend() {
  static const xnnpack::XnnpackBackend kBackend;
  return kBackend;
}

}  // namespace edgec::runtime
