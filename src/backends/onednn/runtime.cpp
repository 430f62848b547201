// The `onednn` backend's runtime side. init validates the payload (a
// program table, loaded by the same layered loader as a file), gives every
// slot its memory (the delegate's own arena at its planned offsets, or the
// mapped constant), and builds each instruction's primitives once. execute
// binds the caller's tensors to the boundary slots with set_data_handle and
// runs the steps: no allocation, no exception escapes.
//
// Threads: oneDNN runs on OpenMP and sizes its parallel regions from the
// calling thread's max-threads setting, so execute sets it to the Method's
// count for the call and restores it after; the portable kernels name their
// thread count per region, so the two never stack.
#include "backends/onednn/runtime.h"

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>

#include "backends/onednn/runtime_state.h"
#include "base/thread_cap.h"
#include "kernels/isa.h"
#include "kernels/tensor.h"
#include "runtime/f16_edges.h"
#include "runtime/method.h"

namespace edgec::runtime {
namespace {

using onednn::Delegate;
using onednn::SlotState;

std::string str(int64_t v) { return std::to_string(v); }

Error init_slots(Delegate& d, const Program& p) {
  const auto slots = p.slots();
  d.slots.resize(slots.size());
  const uint64_t limit = memory_limit();  // Read once: it asks the system.
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    SlotState& st = d.slots[i];
    st.dtype = s.type.dtype;
    st.kind = s.kind;
    // f16 is held in f32 (runtime_state.h's header).
    st.widened = st.dtype == DType::Float16;
    if (st.widened) st.dtype = DType::Float32;
    EDGEC_TRY(static_slot_shape("onednn", p, i, limit, st.shape));
    if (s.kind == SlotKind::Constant || s.kind == SlotKind::State) {
      // Read-only by every step; oneDNN takes non-const handles.
      st.ptr = const_cast<std::byte*>(s.data);
      st.plain_ready = true;
      if (st.widened) {
        // Widened once, here: the file keeps its f16 bytes.
        std::byte* at = d.init_memory.allocate(st.nbytes());
        if (!at)
          return fail(Error::OutOfMemory, "onednn: the f16 constant of slot " + str(static_cast<int64_t>(i)) +
                                              " widened to " + str(static_cast<int64_t>(st.nbytes())) +
                                              " bytes of f32 does not fit the memory limit of " +
                                              std::to_string(limit) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
        if (s.data) widen_f16(s.data, reinterpret_cast<float*>(at), static_cast<size_t>(st.numel()));
        st.ptr = at;
      }
    }
  }
  // The delegate plans its own memory (buffers), so the arena the compiler
  // planned for this program is not allocated.
  return Error::Ok;
}

// Who reads what, for fusion: a value can be folded into its producer's
// step only when nothing else reads it.
void analyze(Delegate& d, const Program& p) {
  const auto instructions = p.instructions();
  d.consumers.assign(d.slots.size(), {});
  d.is_output.assign(d.slots.size(), false);
  d.fused.assign(instructions.size(), false);
  d.producer.assign(d.slots.size(), -1);
  for (size_t i = 0; i < instructions.size(); ++i) {
    for (int32_t s : instructions[i].outputs) d.producer[static_cast<size_t>(s)] = static_cast<int32_t>(i);
    for (int32_t s : instructions[i].inputs) {
      auto& c = d.consumers[static_cast<size_t>(s)];
      if (c.empty() || c.back() != static_cast<int32_t>(i)) c.push_back(static_cast<int32_t>(i));
    }
  }
  for (int32_t s : d.outputs) d.is_output[static_cast<size_t>(s)] = true;
}

// Places every buffer (place_buffers), allocates them as one block and
// points their memory objects and slots into it.
Error plan_buffers(Delegate& d) {
  const size_t total = place_buffers(d.buffers);
  if (const uint64_t limit = memory_limit(); total > limit)
    return fail(Error::OutOfMemory, "the onednn delegate's activation memory of " + str(static_cast<int64_t>(total)) +
                                        " bytes exceeds the memory limit of " + std::to_string(limit) +
                                        " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  if (total > 0) {
    d.buffers_base = d.init_memory.allocate(total);
    if (!d.buffers_base)
      return fail(Error::OutOfMemory, "cannot allocate the onednn delegate's " + str(static_cast<int64_t>(total)) +
                                          "-byte activation memory");
  }
  std::byte* base = d.buffers_base;
  for (onednn::Buffer& b : d.buffers) {
    std::byte* at = base ? base + b.offset : nullptr;
    for (onednn::Binding& m : b.bindings) m.memory.set_data_handle(at + m.offset);
    for (int32_t s : b.slots) d.slots[static_cast<size_t>(s)].ptr = at;
  }
  return Error::Ok;
}

Error init_io(Delegate& d, const Program& p) {
  // An f16 input or output is not the caller's tensor inside: its f32
  // copy lives in a buffer of the delegate's, widened from the caller's
  // tensor by a first step or narrowed into it by a last one.
  for (const IoSlot& io : p.inputs()) {
    d.inputs.push_back(io.slot);
    SlotState& st = d.slots[static_cast<size_t>(io.slot)];
    st.io = !st.widened;
    st.plain_ready = !st.widened;
  }
  for (const IoSlot& io : p.outputs()) {
    d.outputs.push_back(io.slot);
    // A constant output stays a constant (copied out after the steps).
    SlotState& st = d.slots[static_cast<size_t>(io.slot)];
    if (st.kind == SlotKind::Activation && !st.widened) st.io = true;
  }
  d.widen_from.assign(d.inputs.size(), nullptr);
  d.narrow_to.assign(d.outputs.size(), nullptr);
  // A strided input is packed into a buffer of its own, made now (pages are
  // touched only if one comes).
  for (int32_t s : d.inputs) {
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    std::byte* at = d.init_memory.allocate(st.nbytes());
    if (!at)
      return fail(Error::OutOfMemory, "onednn: input slot " + str(s) + " of " + str(static_cast<int64_t>(st.nbytes())) +
                                          " bytes does not fit the memory limit of " + std::to_string(memory_limit()) +
                                          " bytes (set EDGEC_MEMORY_LIMIT to change it)");
    d.staging.push_back(at);
  }
  // Where an output is an activation seen for the first time, the steps
  // write it in the caller's tensor; the rest are copied after the steps
  // (decided once here: a loop over the earlier outputs at each execute
  // made a split into 100,000 outputs take seconds).
  d.output_bound.assign(d.outputs.size(), false);
  std::vector<bool> seen(d.slots.size(), false);
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    const auto s = static_cast<size_t>(d.outputs[i]);
    d.output_bound[i] = d.slots[s].kind == SlotKind::Activation && !d.slots[s].widened && !seen[s];
    seen[s] = true;
  }
  return Error::Ok;
}

// One scratchpad, sized for the hungriest primitive: steps run one at a time.
Error init_scratchpad(Delegate& d) {
  size_t most = 0;
  for (const auto& step : d.steps) most = std::max(most, step.scratch_bytes);
  if (most == 0) return Error::Ok;
  std::byte* at = d.init_memory.allocate(most);
  if (!at)
    return fail(Error::OutOfMemory, "onednn: the " + str(static_cast<int64_t>(most)) +
                                        "-byte scratchpad does not fit the memory limit");
  d.scratch = dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(most)}, dnnl::memory::data_type::u8, dnnl::memory::dims{1}), d.engine, at);
  // oneDNN describes every scratchpad as bytes, {size} u8 in layout x.
  for (auto& step : d.steps)
    if (step.scratch_bytes > 0 && step.primitive)
      step.args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(
          dnnl::memory::desc({static_cast<int64_t>(step.scratch_bytes)}, dnnl::memory::data_type::u8, dnnl::memory::dims{1}),
          d.engine, d.scratch.get_data_handle());
  return Error::Ok;
}

// Builds the delegate. `record` (compile time only) collects the
// convolution weights reordered into a storable layout.
// EDGEC_ISA=avx2 (kernels/isa.h) holds oneDNN to AVX2 too, so that the
// whole program runs the AVX2 path: set before oneDNN's first primitive,
// which the first delegate built, at compile or load time, creates.
void hold_onednn_isa() {
  static const bool held = [] {
    if (kernel_isa() == Isa::Avx2) (void)dnnl_set_max_cpu_isa(dnnl_cpu_isa_avx2);
    return true;
  }();
  (void)held;
}

Result<std::unique_ptr<Delegate>> build_delegate(std::span<const std::byte> payload, const NamedDataMap& named_data,
                                                 int num_threads, std::vector<onednn::ReorderedWeights>* record) {
  EDGEC_TRY(check_isa());
  hold_onednn_isa();
  // Method::create checks the count; a direct init is checked here too,
  // since it reaches omp_set_num_threads (libgomp crashes on a huge one).
  EDGEC_TRY(check_thread_count("onednn", num_threads));
  auto program = Program::load_payload(payload, named_data);
  if (!program.ok()) return program.error();
  const Program& p = **program;
  auto d = std::unique_ptr<Delegate>(new (std::nothrow) Delegate());
  if (!d) return fail(Error::OutOfMemory, "cannot allocate an onednn delegate handle");
  d->threads = num_threads;
  d->init_memory.set_limit(memory_limit());
  EDGEC_TRY(init_slots(*d, p));
  EDGEC_TRY(init_io(*d, p));
  analyze(*d, p);
  EDGEC_TRY(onednn::init_stored_weights(*d, p));
  d->record = record;
  // Weight reorders at init run on the same thread budget as execute.
  const int saved = omp_get_max_threads();
  Error err = Error::Ok;
  const auto instructions = p.instructions();
  // Whether an instruction reads or writes a value the program has in f16.
  auto touches_f16 = [&](const Instruction& in) {
    for (const auto* list : {&in.inputs, &in.outputs})
      for (int32_t s : *list)
        if (s >= 0 && static_cast<size_t>(s) < d->slots.size() && d->slots[static_cast<size_t>(s)].widened) return true;
    return false;
  };
  onednn::add_input_widening(*d);
  for (size_t i = 0; i < instructions.size() && err == Error::Ok; ++i) {
    if (d->fused[i]) continue;
    try {
      const size_t first = d->steps.size();
      err = onednn::build_instruction(*d, p, i);
      if (err == Error::Ok) d->finish_instruction(first);
      // edgec bench --profile says which steps compute f16 values in f32
      // (a cast's rounding is named for what it is).
      if (err == Error::Ok && instructions[i].op != "cast" && touches_f16(instructions[i]))
        for (size_t k = first; k < d->steps.size(); ++k) d->steps[k].name += kF16AsF32Suffix;
    } catch (const dnnl::error& e) {
      err = fail(Error::NotSupported, "onednn: instruction " + str(static_cast<int64_t>(i)) + " (" + instructions[i].op +
                                          "): oneDNN cannot build it: " + e.what());
    } catch (const onednn::InvalidPayload& e) {
      err = fail(Error::InvalidProgram, "onednn: instruction " + str(static_cast<int64_t>(i)) + " (" +
                                            instructions[i].op + "): " + e.what());
    } catch (const std::out_of_range&) {
      err = fail(Error::InvalidProgram, "onednn: instruction " + str(static_cast<int64_t>(i)) + " (" +
                                            instructions[i].op + ") has fewer operands than its operator takes");
    }
  }
  omp_set_num_threads(saved);
  if (err != Error::Ok) return err;
  try {
    onednn::add_output_narrowing(*d);
  } catch (const dnnl::error& e) {
    return fail(Error::NotSupported, std::string("onednn: the f16 outputs: oneDNN cannot build them: ") + e.what());
  }
  EDGEC_TRY(plan_buffers(*d));
  try {
    EDGEC_TRY(init_scratchpad(*d));
  } catch (const dnnl::error& e) {
    return fail(Error::OutOfMemory, std::string("onednn: cannot allocate the scratchpad: ") + e.what());
  }
  d->record = nullptr;
  // Nor is the analysis for fusion (a list of readers per slot). The
  // Program (attributes, names) is not needed past init either: slots
  // point into the file's mapped named data, which outlives the handle.
  d->consumers = {};
  d->producer = {};
  d->is_output = {};
  d->fused = {};
  d->touched = {};
  d->blocked_outputs = {};
  return d;
}

Result<void*> init_delegate(std::span<const std::byte> payload, const NamedDataMap& named_data, int num_threads) {
  auto d = build_delegate(payload, named_data, num_threads, nullptr);
  if (!d.ok()) return d.error();
  return static_cast<void*>(static_cast<DelegateHandle*>(d->release()));
}

Error bind_inputs(Delegate& d, std::span<const Tensor* const> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    const int32_t s = d.inputs[i];
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    EDGEC_TRY(check_input("onednn", i, t, st.widened ? DType::Float16 : st.dtype, st.shape));
    if (st.widened) {
      // Its first step widens it from here.
      if (t.is_contiguous()) {
        d.widen_from[i] = static_cast<const std::byte*>(t.data);
      } else {
        pack_contiguous(t, d.staging[i]);
        d.widen_from[i] = d.staging[i];
      }
    } else if (t.is_contiguous()) {
      d.rebind(s, static_cast<std::byte*>(t.data));
    } else {
      std::byte* buf = d.staging[i];
      pack_contiguous(t, buf);
      d.rebind(s, buf);
    }
  }
  return Error::Ok;
}

// Computes straight into the caller's output where the output is an
// activation of its own; an output that is an input, a constant or a
// repeated slot is copied after the steps run.
Error bind_outputs(Delegate& d, std::span<Tensor* const> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int32_t s = d.outputs[i];
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    Tensor& t = *outputs[i];
    const DType dtype = st.widened ? DType::Float16 : st.dtype;
    if (t.dtype != dtype)
      return fail(Error::InvalidType, "onednn: output " + str(static_cast<int64_t>(i)) + ": expected " +
                                          std::string(dtype_name(dtype)) + ", got " + std::string(dtype_name(t.dtype)));
    EDGEC_TRY(t.resize(st.shape));
    if (st.widened) d.narrow_to[i] = static_cast<std::byte*>(t.data);  // Its last step narrows it there.
    else if (d.output_bound[i]) d.rebind(s, static_cast<std::byte*>(t.data));
  }
  return Error::Ok;
}

// Runs `build` (init, or the compiler's trial init), turning what escapes
// it into an error: oneDNN's refusals, memory, a payload that is not right.
template <typename F>
auto guarded_build(F&& build) -> decltype(build()) {
  return guarded_init("onednn", [&]() -> decltype(build()) {
    try {
      return build();
    } catch (const dnnl::error& e) {
      return fail(Error::NotSupported, std::string("onednn: ") + e.what());
    }
  });
}

// Binds the caller's tensors, runs the steps (each on the threads it was
// built for) and copies the outputs init could not bind.
Error run_steps(Delegate& d, std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) {
  size_t at = 0;
  try {
    EDGEC_TRY(bind_inputs(d, inputs));
    EDGEC_TRY(bind_outputs(d, outputs));
    int threads = capped_threads(d.threads);
    for (; at < d.steps.size(); ++at) {
      onednn::Step& step = d.steps[at];
      // Held to the run's cap (base/thread_cap.h): loops read it themselves,
      // primitives that fix their split at creation run their one-thread twin.
      if (const int t = capped_threads(step.threads); t != threads) {
        threads = t;
        omp_set_num_threads(threads);
      }
      EDGEC_TRY(d.time_step(at, [&]() -> Error {
        if (step.run) return step.run();
        const bool single = threads < step.threads && step.single;
        (single ? step.single : step.primitive).execute(d.stream, step.args);
        return Error::Ok;
      }));
    }
    d.stream.wait();
  } catch (const dnnl::error& e) {
    const std::string what = at < d.steps.size() ? d.steps[at].what : std::string("binding");
    return fail(Error::Internal, "onednn: " + what + ": " + e.what());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (d.output_bound[i]) continue;
    const SlotState& st = d.slots[static_cast<size_t>(d.outputs[i])];
    if (st.widened) continue;  // Narrowed by its step.
    std::memcpy(outputs[i]->data, st.ptr, st.nbytes());
  }
  return Error::Ok;
}

class OnednnBackend final : public DelegateBackend {
 public:
  std::string_view id() const override { return "onednn"; }
  bool is_available() const override { return true; }

  Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                     int num_threads) const override {
    return guarded_build([&] { return init_delegate(payload, named_data, num_threads); });
  }
};

}  // namespace

namespace onednn {

Error Delegate::run(std::span<const Tensor* const> in, std::span<Tensor* const> out) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(capped_threads(threads));
  const Error err = run_steps(*this, in, out);
  omp_set_num_threads(saved);
  return err;
}

void add_input_widening(Delegate& d) {
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const int32_t slot = d.inputs[i];
    SlotState& st = d.slots[static_cast<size_t>(slot)];
    if (!st.widened || st.buffer >= 0) continue;  // An input listed twice is widened once.
    const size_t first = d.steps.size();
    st.buffer = d.new_buffer(st.nbytes());
    d.buffers[static_cast<size_t>(st.buffer)].slots.push_back(slot);
    st.plain_ready = true;
    d.need_plain(slot);  // Marks the buffer used by this step.
    const auto n = static_cast<size_t>(st.numel());
    d.add_loop(
        [&d, i, slot, n]() {
          widen_f16(d.widen_from[i], reinterpret_cast<float*>(d.slots[static_cast<size_t>(slot)].ptr), n);
          return Error::Ok;
        },
        "widening of input slot " + std::to_string(slot), "f16 to f32 (input)");
    d.finish_instruction(first);
  }
}

void add_output_narrowing(Delegate& d) {
  for (size_t i = 0; i < d.outputs.size(); ++i) {
    const int32_t slot = d.outputs[i];
    if (!d.slots[static_cast<size_t>(slot)].widened) continue;
    const size_t first = d.steps.size();
    d.need_plain(slot);  // A reorder first where the producer left it blocked.
    for (size_t k = first; k < d.steps.size(); ++k) d.steps[k].name += kF16AsF32Suffix;
    const auto n = static_cast<size_t>(d.slots[static_cast<size_t>(slot)].numel());
    d.add_loop(
        [&d, i, slot, n]() {
          narrow_to_f16(reinterpret_cast<const float*>(d.slots[static_cast<size_t>(slot)].ptr), d.narrow_to[i], n);
          return Error::Ok;
        },
        "narrowing of output slot " + std::to_string(slot), "f32 to f16 (output)");
    d.finish_instruction(first);
  }
}

bool f16_native_convolution() {
  static const bool native = [] {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    try {
      const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
      const dnnl::memory::desc x({1, 16, 8, 8}, dt::f16, tag::any), w({16, 16, 3, 3}, dt::f16, tag::any),
          y({1, 16, 8, 8}, dt::f16, tag::any);
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                                 dnnl::algorithm::convolution_direct, x, w, y, {1, 1}, {1, 1}, {1, 1});
      const dnnl::convolution_forward::primitive_desc pd(desc, engine);
      return std::string_view(pd.impl_info_str()).substr(0, 3) != "ref";
    } catch (const dnnl::error&) {
      return false;  // No implementation for f16 here.
    }
  }();
  return native;
}

bool plain_like(const dnnl::memory::desc& md, const SlotState& st) {
  if (md.data.format_kind != dnnl_blocked || md.data.format_desc.blocking.inner_nblks != 0 || md.data.offset0 != 0)
    return false;
  if (md.get_size() != st.nbytes()) return false;
  const auto dims = md.dims();
  const auto strides = plain_strides(dims);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1 && md.data.format_desc.blocking.strides[i] != strides[i]) return false;
  return true;
}

InitMemory::~InitMemory() {
  for (const Chunk& c : chunks_) munmap(c.base, c.size);
}

std::byte* InitMemory::allocate(size_t bytes) {
  if (bytes > limit_ - std::min(limit_, total_)) return nullptr;  // Also catches sizes near 2^64.
  bytes = (bytes + 63) / 64 * 64;
  total_ += bytes;
  // Small blocks share 1 MiB chunks; large ones are packed one after
  // another into 64 MiB reservations: address space only, a page is made
  // (and zeroed) when first written, so no page is zeroed that is not used.
  // Ordinary pages, never transparent huge pages: a huge page fault wants a
  // free, contiguous 2 MiB, which right after another process has freed its
  // memory this VM backs slowly (ResNet-18's 9.4 MB of Winograd weights took
  // 20-30 ms to transform with huge pages then, against 4-6 ms otherwise,
  // and loads reached 42-46 ms); with ordinary pages they take 8-10 ms
  // every time and execute is as fast.
  constexpr size_t kLarge = size_t{1} << 20, kHuge = size_t{2} << 20, kReserve = size_t{64} << 20;
  const size_t chunk = bytes < kLarge ? kLarge : kReserve;
  for (Chunk& c : chunks_)
    if ((c.size == kLarge) == (chunk == kLarge) && c.size - c.used >= bytes) {
      std::byte* p = c.base + c.used;
      c.used += bytes;
      return p;
    }
  const size_t size = bytes < kLarge ? kLarge : std::max(kReserve, (bytes + kHuge - 1) / kHuge * kHuge);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (size > kLarge) (void)madvise(p, size, MADV_NOHUGEPAGE);  // Even where THP is "always".
  chunks_.push_back({static_cast<std::byte*>(p), size, bytes});
  return static_cast<std::byte*>(p);
}

// The bytes a memory object over `md` reads or writes: for a strided plain
// view, from its first element to its last (oneDNN's get_size() counts
// dims times strides, more than a view into a larger tensor spans).
size_t md_span(const dnnl::memory::desc& md) {
  const auto& d = md.data;
  if (d.format_kind != dnnl_blocked || d.format_desc.blocking.inner_nblks != 0) return md.get_size();
  int64_t last = 0;
  for (int i = 0; i < d.ndims; ++i) {
    if (d.dims[i] == 0) return 0;
    last += (d.dims[i] - 1) * d.format_desc.blocking.strides[i];
  }
  return static_cast<size_t>(last + 1 + d.offset0) * dnnl::memory::data_type_size(md.data_type());
}

// The last memory object made over the same storage when it is the same
// view: steps reading one value in a row (an input read by 100,000 steps)
// share it, as a memory object is a kilobyte. Only the last is looked at,
// so that making a view stays O(1).
static const dnnl::memory* same_view(const std::vector<Binding>& bindings, const dnnl::memory::desc& md,
                                     size_t offset) {
  if (bindings.empty() || bindings.back().offset != offset) return nullptr;
  const dnnl::memory& last = bindings.back().memory;
  return last.get_desc() == md ? &last : nullptr;
}

dnnl::memory Delegate::over_buffer(int32_t buffer, const dnnl::memory::desc& md, size_t offset) {
  const Buffer& b = buffers.at(static_cast<size_t>(buffer));
  require(offset <= b.size && md_span(md) <= b.size - offset,
          "a " + std::to_string(md_span(md)) + "-byte view at " + std::to_string(offset) + " reaches past a " +
              std::to_string(b.size) + "-byte buffer");
  touch(buffer);
  auto& bindings = buffers[static_cast<size_t>(buffer)].bindings;
  if (const dnnl::memory* same = same_view(bindings, md, offset)) return *same;
  dnnl::memory m(md, engine, DNNL_MEMORY_NONE);
  bindings.push_back({m, offset});
  return m;
}

dnnl::memory Delegate::over_slot(int32_t slot, const dnnl::memory::desc& md, size_t offset) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (st.buffer >= 0) return over_buffer(st.buffer, md, offset);
  require(offset <= st.nbytes() && md_span(md) <= st.nbytes() - offset,
          "a " + std::to_string(md_span(md)) + "-byte view at " + std::to_string(offset) + " reaches past slot " +
              std::to_string(slot) + " (" + std::to_string(st.nbytes()) + " bytes)");
  if (const dnnl::memory* same = same_view(st.bindings, md, offset)) return *same;
  dnnl::memory m(md, engine, st.ptr ? st.ptr + offset : DNNL_MEMORY_NONE);
  st.bindings.push_back({m, offset});
  return m;
}

int32_t Delegate::new_buffer(size_t size) {
  buffers.emplace_back();
  buffers.back().size = size;
  return static_cast<int32_t>(buffers.size() - 1);
}

void reorder_at_init(Delegate& d, dnnl::memory from, dnnl::memory to) {
  OneThread one;
  dnnl::reorder(from, to).execute(d.stream, from, to);
  d.stream.wait();
}

void Delegate::plain_constant(int32_t slot) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (st.stored.is_zero()) return;
  std::byte* at = init_memory.allocate(st.nbytes());
  if (!at) throw std::bad_alloc();
  reorder_at_init(*this, dnnl::memory(st.stored, engine, st.ptr), dnnl::memory(slot_md(st), engine, at));
  st.ptr = at;
  st.stored = dnnl::memory::desc();
  for (onednn::Binding& b : st.bindings) b.memory.set_data_handle(at + b.offset);
}

void Delegate::need_plain(int32_t slot) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (!st.plain_ready && st.blocked_buffer >= 0) {
    if (!st.io && st.buffer < 0) {
      st.buffer = new_buffer(st.nbytes());
      buffers[static_cast<size_t>(st.buffer)].slots.push_back(slot);
    }
    dnnl::memory from = over_buffer(st.blocked_buffer, st.blocked);
    dnnl::memory to = over_slot(slot, slot_md(st), 0);
    dnnl::reorder::primitive_desc pd(engine, st.blocked, engine, slot_md(st), attr());
    add(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, "reorder of slot " + std::to_string(slot),
        "reorder (to plain)");
    st.plain_ready = true;
  }
  if (st.buffer >= 0) touch(st.buffer);
}

dnnl::memory Delegate::src(int32_t slot, const dnnl::memory::desc& md, size_t offset) {
  need_plain(slot);
  return over_slot(slot, md, offset);
}

dnnl::memory::desc Delegate::layout(int32_t slot) const {
  const SlotState& st = slots.at(static_cast<size_t>(slot));
  return st.blocked_buffer >= 0 ? st.blocked.get() : slot_md(st);
}

dnnl::memory Delegate::src_as(int32_t slot, const dnnl::memory::desc& md) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  if (st.blocked_buffer >= 0 && st.blocked == md) return over_buffer(st.blocked_buffer, md);
  if (plain_like(md, st)) return src(slot, md);
  for (const auto& [layout, buffer] : st.converted)
    if (layout == md) return over_buffer(buffer, md);
  const dnnl::memory::desc from_md = layout(slot);
  dnnl::memory from = st.blocked_buffer >= 0 ? over_buffer(st.blocked_buffer, from_md) : src(slot, from_md);
  const int32_t b = new_buffer(md.get_size());
  dnnl::memory to = over_buffer(b, md);
  dnnl::reorder::primitive_desc pd(engine, from_md, engine, md, attr());
  add(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}}, "reorder of slot " + std::to_string(slot),
      from_md == slot_md(st) ? "reorder (to blocked)" : "reorder (between blocked)");
  slots[static_cast<size_t>(slot)].converted.emplace_back(md, b);
  return to;
}

dnnl::memory Delegate::dst(int32_t slot, const dnnl::memory::desc& md, int32_t reuse) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  // Values are written once, and never inputs or constants.
  require(st.kind == SlotKind::Activation && !st.plain_ready && st.blocked_buffer < 0,
          "writes slot " + std::to_string(slot) + ", which is an input, a constant or written before");
  if (plain_like(md, st)) {
    st.plain_ready = true;
    if (st.io) return over_slot(slot, md, 0);
    if (st.buffer < 0) {
      st.buffer = reuse >= 0 ? reuse : new_buffer(st.nbytes());
      buffers[static_cast<size_t>(st.buffer)].slots.push_back(slot);
    }
    return over_buffer(st.buffer, md);
  }
  // Anything else is a blocked layout of the slot's own dims and type.
  if (md.dims() != dnnl_dims(st.shape) || md.data_type() != slot_md(st).data_type()) {
    const auto dt = md.data_type();
    using T = dnnl::memory::data_type;
    const std::string type = dt == T::f32 ? "f32" : dt == T::f16 ? "f16" : dt == T::s32 ? "i32" : dt == T::s8 ? "i8"
                             : dt == T::u8 ? "u8" : "another type";
    throw InvalidPayload("writes slot " + std::to_string(slot) + " as " + type + shape_string(md.dims()) +
                         ", expected the slot's " + std::string(dtype_name(st.dtype)) + shape_string(st.shape));
  }
  st.blocked = md;
  st.blocked_buffer = reuse >= 0 ? reuse : new_buffer(md.get_size());
  if (st.io) blocked_outputs.push_back(slot);
  return over_buffer(st.blocked_buffer, md);
}

void Delegate::define_plain(int32_t slot) { (void)dst(slot, slot_md(slots.at(static_cast<size_t>(slot)))); }

bool Delegate::alias(int32_t view, int32_t base) {
  SlotState& v = slots.at(static_cast<size_t>(view));
  SlotState& b = slots.at(static_cast<size_t>(base));
  if (v.io || v.dtype != b.dtype || v.nbytes() != b.nbytes() || v.buffer >= 0) return false;
  if (b.kind == SlotKind::Constant || b.kind == SlotKind::State) {
    v.ptr = b.ptr;
    v.kind = b.kind;  // A view of a constant is one (conv weights read it so).
    v.plain_ready = true;
    return true;
  }
  if (b.io) return false;  // Its pointer moves at every execute.
  need_plain(base);
  if (b.buffer < 0) return false;
  v.buffer = b.buffer;
  buffers[static_cast<size_t>(b.buffer)].slots.push_back(view);
  v.plain_ready = true;
  touch(b.buffer);
  return true;
}

void Delegate::rebind(int32_t slot, std::byte* ptr) {
  SlotState& st = slots[static_cast<size_t>(slot)];
  if (st.ptr == ptr) return;
  st.ptr = ptr;
  for (Binding& b : st.bindings) b.memory.set_data_handle(ptr + b.offset);
}

void Delegate::add(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args,
                   std::string what, std::string name) {
  Step step;
  step.primitive = std::move(p);
  step.args = std::move(args);
  step.scratch_bytes = pd.scratchpad_desc().get_size();
  step.threads = step_threads;
  if (step_threads > 1) step.single = single_thread_twin(pd, step.scratch_bytes);
  step.what = std::move(what);
  step.name = std::move(name);
  steps.push_back(std::move(step));
}

void Delegate::add_loop(std::function<Error()> run, std::string what, std::string name, int64_t scratch_bytes) {
  Step step;
  step.run = std::move(run);
  step.scratch_bytes = static_cast<size_t>(std::max<int64_t>(scratch_bytes, 0));
  step.threads = step_threads;
  step.what = std::move(what);
  step.name = std::move(name);
  steps.push_back(std::move(step));
}

void Delegate::finish_instruction(size_t first_step) {
  // A delegate output its producer left blocked is reordered into the
  // caller's tensor right away. (Only the ones this instruction wrote are
  // looked at: a pass over every output per instruction was quadratic.)
  for (size_t i = 0; i < blocked_outputs.size(); ++i) need_plain(blocked_outputs[i]);
  blocked_outputs.clear();
  mark_touched_live(buffers, touched, first_step, steps.size());
}

dnnl::memory::dims dnnl_dims(const std::vector<int64_t>& shape) {
  if (shape.empty()) return {1};
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::dims plain_strides(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

dnnl::memory::desc plain_md(const std::vector<int64_t>& shape) {
  const auto dims = dnnl_dims(shape);
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, plain_strides(dims));
}

dnnl::memory::desc slot_md(const SlotState& s) {
  using dt = dnnl::memory::data_type;
  dt t = dt::f32;
  switch (s.dtype) {
    case DType::Float32: t = dt::f32; break;
    case DType::Float16: t = dt::f16; break;
    case DType::Int32: t = dt::s32; break;
    case DType::Int8: t = dt::s8; break;
    case DType::UInt8: case DType::Bool: t = dt::u8; break;
    default:
      // No oneDNN type (int64): described as bytes, for copies only.
      return dnnl::memory::desc({static_cast<int64_t>(s.nbytes())}, dt::u8, dnnl::memory::dims{1});
  }
  const auto dims = dnnl_dims(s.shape);
  return dnnl::memory::desc(dims, t, plain_strides(dims));
}

Result<std::vector<ChosenWeights>> chosen_weight_layouts(std::span<const std::byte> payload,
                                                         const NamedDataMap& named_data, int num_threads) {
  return guarded_build([&]() -> Result<std::vector<ChosenWeights>> {
    std::vector<ReorderedWeights> record;
    auto d = build_delegate(payload, named_data, num_threads, &record);
    if (!d.ok()) return d.error();
    std::vector<ChosenWeights> chosen;
    for (const ReorderedWeights& r : record) {
      const dnnl_memory_desc_t& m = r.layout.data;
      ChosenWeights c;
      c.instruction = r.instruction;
      c.operand = r.operand;
      c.key = r.key;
      c.strides.assign(m.format_desc.blocking.strides, m.format_desc.blocking.strides + m.ndims);
      for (int b = 0; b < m.format_desc.blocking.inner_nblks; ++b) {
        c.blocks.push_back(m.format_desc.blocking.inner_blks[b]);
        c.block_dims.push_back(m.format_desc.blocking.inner_idxs[b]);
      }
      if (m.data_type == dnnl_s8)
        c.extra = {static_cast<int64_t>(m.extra.flags), m.extra.compensation_mask, m.extra.asymm_compensation_mask};
      c.bytes.assign(r.bytes, r.bytes + r.layout.get_size());
      chosen.push_back(std::move(c));
    }
    return chosen;
  });
}

}  // namespace onednn

const Backend& onednn_backend() {
  static const OnednnBackend kBackend;
  return kBackend;
}

}  // namespace edgec::runtime
