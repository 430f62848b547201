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

#include <cstring>
#include <new>

#include "backends/onednn/runtime_state.h"

namespace edgec::runtime {
namespace {

using onednn::Delegate;
using onednn::SlotState;

std::string str(int64_t v) { return std::to_string(v); }

bool same_shape(const Tensor& t, const std::vector<int64_t>& shape) {
  if (static_cast<size_t>(t.rank) != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (t.sizes[i] != shape[i]) return false;
  return true;
}

// Packs a strided tensor into `dst` (row-major). Inputs may be views the
// portable kernels produced (permute, slice).
void pack(const Tensor& src, std::byte* dst) {
  const size_t esz = dtype_size(src.dtype);
  const int64_t n = src.numel();
  std::array<int64_t, kMaxRank> idx{};
  const auto* in = static_cast<const std::byte*>(src.data);
  for (int64_t e = 0; e < n; ++e) {
    int64_t offset = 0;
    for (int d = 0; d < src.rank; ++d) offset += idx[d] * src.strides[d];
    std::memcpy(dst + static_cast<size_t>(e) * esz, in + offset * static_cast<int64_t>(esz), esz);
    for (int d = src.rank - 1; d >= 0; --d) {
      if (++idx[d] < src.sizes[d]) break;
      idx[d] = 0;
    }
  }
}

Error init_slots(Delegate& d, const Program& p) {
  const uint64_t arena = p.arena_size();
  if (arena > 0) {
    d.arena.reset(new (std::nothrow) std::byte[arena + 64]);
    if (!d.arena) return fail(Error::OutOfMemory, "cannot allocate the onednn delegate's " + str(static_cast<int64_t>(arena)) + "-byte arena");
  }
  // 64-byte aligned base: planned offsets are multiples of 64.
  std::byte* base = d.arena.get();
  if (base) base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
  const auto slots = p.slots();
  d.slots.resize(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot& s = slots[i];
    SlotState& st = d.slots[i];
    st.dtype = s.type.dtype;
    st.kind = s.kind;
    for (const DimInfo& dim : s.type.dims) {
      if (dim.kind != DimInfo::Kind::Static)
        return fail(Error::InvalidProgram, "onednn: slot '" + s.name + "' has a non-static shape " + s.type.str(p.symbols()));
      st.shape.push_back(dim.value);
    }
    if (s.kind == SlotKind::Constant || s.kind == SlotKind::State) {
      // Read-only by every step; oneDNN takes non-const handles.
      st.ptr = const_cast<std::byte*>(s.data);
    } else if (s.kind == SlotKind::Activation) {
      if (s.offset + st.nbytes() > arena)
        return fail(Error::InvalidProgram, "onednn: slot '" + s.name + "' lies outside the arena");
      st.ptr = base + s.offset;
    }
  }
  return Error::Ok;
}

Error init_io(Delegate& d, const Program& p) {
  for (const IoSlot& io : p.inputs()) d.inputs.push_back(io.slot);
  for (const IoSlot& io : p.outputs()) d.outputs.push_back(io.slot);
  // A strided input is packed into a buffer of its own, made now.
  for (int32_t s : d.inputs) {
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    const dnnl::memory::desc md({static_cast<int64_t>(st.nbytes())}, dnnl::memory::data_type::u8, dnnl::memory::dims{1});
    d.staging.emplace_back(md, d.engine);
  }
  d.output_bound.assign(d.outputs.size(), false);
  return Error::Ok;
}

// One scratchpad, sized for the hungriest primitive: steps run one at a time.
void init_scratchpad(Delegate& d) {
  size_t most = 0;
  for (const auto& step : d.steps) most = std::max(most, step.scratchpad.get_size());
  if (most == 0) return;
  d.scratch = dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(most)}, dnnl::memory::data_type::u8, dnnl::memory::dims{1}), d.engine);
  for (auto& step : d.steps)
    if (step.scratchpad.get_size() > 0)
      step.args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(step.scratchpad, d.engine, d.scratch.get_data_handle());
}

Result<void*> init_delegate(std::span<const std::byte> payload, const NamedDataMap& named_data, int num_threads) {
  auto program = Program::load_payload(payload, named_data);
  if (!program.ok()) return program.error();
  const Program& p = **program;
  auto d = std::unique_ptr<Delegate>(new (std::nothrow) Delegate());
  if (!d) return fail(Error::OutOfMemory, "cannot allocate an onednn delegate handle");
  d->threads = num_threads < 1 ? 1 : num_threads;
  EDGEC_TRY(init_slots(*d, p));
  EDGEC_TRY(init_io(*d, p));
  // Weight reorders at init run on the same thread budget as execute.
  const int saved = omp_get_max_threads();
  omp_set_num_threads(d->threads);
  Error err = Error::Ok;
  const auto instructions = p.instructions();
  for (size_t i = 0; i < instructions.size() && err == Error::Ok; ++i) {
    try {
      err = onednn::build_instruction(*d, p, instructions[i], i);
    } catch (const dnnl::error& e) {
      err = fail(Error::NotSupported, "onednn: instruction " + str(static_cast<int64_t>(i)) + " (" + instructions[i].op +
                                          "): oneDNN cannot build it: " + e.what());
    }
  }
  omp_set_num_threads(saved);
  if (err != Error::Ok) return err;
  try {
    init_scratchpad(*d);
  } catch (const dnnl::error& e) {
    return fail(Error::OutOfMemory, std::string("onednn: cannot allocate the scratchpad: ") + e.what());
  }
  // The Program (attributes, names) is not needed past init: slots point
  // into the file's mapped named data, which outlives the handle.
  return static_cast<void*>(d.release());
}

Error bind_inputs(Delegate& d, std::span<const Tensor* const> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = *inputs[i];
    const int32_t s = d.inputs[i];
    const SlotState& st = d.slots[static_cast<size_t>(s)];
    if (t.dtype != st.dtype || !same_shape(t, st.shape))
      return fail(Error::InvalidShape, "onednn: input " + str(static_cast<int64_t>(i)) + ": expected " +
                                           std::string(dtype_name(st.dtype)) + shape_string(st.shape) + ", got " +
                                           std::string(dtype_name(t.dtype)) + shape_string(t.shape()));
    if (t.is_contiguous()) {
      d.rebind(s, static_cast<std::byte*>(t.data));
    } else {
      auto* buf = static_cast<std::byte*>(d.staging[i].get_data_handle());
      pack(t, buf);
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
    if (t.dtype != st.dtype)
      return fail(Error::InvalidType, "onednn: output " + str(static_cast<int64_t>(i)) + ": expected " +
                                          std::string(dtype_name(st.dtype)) + ", got " + std::string(dtype_name(t.dtype)));
    EDGEC_TRY(t.resize(st.shape));
    bool first = st.kind == SlotKind::Activation;
    for (size_t j = 0; j < i && first; ++j) first = d.outputs[j] != s;
    d.output_bound[i] = first;
    if (first) d.rebind(s, static_cast<std::byte*>(t.data));
  }
  return Error::Ok;
}

class OnednnBackend final : public Backend {
 public:
  std::string_view id() const override { return "onednn"; }
  bool is_available() const override { return true; }

  Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                     int num_threads) const override {
    try {
      return init_delegate(payload, named_data, num_threads);
    } catch (const dnnl::error& e) {
      return fail(Error::NotSupported, std::string("onednn: ") + e.what());
    } catch (const std::bad_alloc&) {
      return fail(Error::OutOfMemory, "onednn: out of memory building the delegate");
    }
  }

  Error execute(void* raw, std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) const override {
    if (!raw) return fail(Error::DelegateInvalidHandle, "the onednn delegate has no handle");
    Delegate& d = *static_cast<Delegate*>(raw);
    if (inputs.size() != d.inputs.size() || outputs.size() != d.outputs.size())
      return fail(Error::InvalidArgument, "the onednn delegate takes " + str(static_cast<int64_t>(d.inputs.size())) +
                                              " input(s) and " + str(static_cast<int64_t>(d.outputs.size())) +
                                              " output(s), got " + str(static_cast<int64_t>(inputs.size())) + " and " +
                                              str(static_cast<int64_t>(outputs.size())));
    const int saved = omp_get_max_threads();
    omp_set_num_threads(d.threads);
    Error err = run(d, inputs, outputs);
    omp_set_num_threads(saved);
    return err;
  }

  void destroy(void* raw) const override { delete static_cast<Delegate*>(raw); }

 private:
  static Error run(Delegate& d, std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) {
    size_t at = 0;
    try {
      EDGEC_TRY(bind_inputs(d, inputs));
      EDGEC_TRY(bind_outputs(d, outputs));
      for (; at < d.steps.size(); ++at) {
        onednn::Step& step = d.steps[at];
        if (step.run) {
          EDGEC_TRY(step.run());
        } else {
          step.primitive.execute(d.stream, step.args);
        }
      }
      d.stream.wait();
    } catch (const dnnl::error& e) {
      const std::string what = at < d.steps.size() ? d.steps[at].what : std::string("binding");
      return fail(Error::Internal, "onednn: " + what + ": " + e.what());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (d.output_bound[i]) continue;
      const SlotState& st = d.slots[static_cast<size_t>(d.outputs[i])];
      std::memcpy(outputs[i]->data, st.ptr, st.nbytes());
    }
    return Error::Ok;
  }
};

}  // namespace

namespace onednn {

dnnl::memory Delegate::bind(int32_t slot, const dnnl::memory::desc& md, size_t offset) {
  SlotState& st = slots.at(static_cast<size_t>(slot));
  dnnl::memory m(md, engine, st.ptr ? st.ptr + offset : DNNL_MEMORY_NONE);
  st.bindings.push_back({m, offset});
  return m;
}

void Delegate::rebind(int32_t slot, std::byte* ptr) {
  SlotState& st = slots[static_cast<size_t>(slot)];
  if (st.ptr == ptr) return;
  st.ptr = ptr;
  for (Binding& b : st.bindings) b.memory.set_data_handle(ptr + b.offset);
}

void Delegate::add(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args,
                   std::string what) {
  Step step;
  step.primitive = std::move(p);
  step.args = std::move(args);
  step.scratchpad = pd.scratchpad_desc();
  step.what = std::move(what);
  steps.push_back(std::move(step));
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

}  // namespace onednn

const Backend& onednn_backend() {
  static const OnednnBackend kBackend;
  return kBackend;
}

}  // namespace edgec::runtime
