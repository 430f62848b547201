#include "runtime/method.h"

#include <new>

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

}  // namespace

Result<std::unique_ptr<Method>> Method::create(const Program& program, int num_threads) {
  std::unique_ptr<Method> m(new Method(program));
  m->ctx_.num_threads = num_threads < 1 ? 1 : num_threads;
  if (program.arena_size() > 0) {
    // 64-byte aligned: planned offsets are multiples of 64.
    m->arena_.reset(new (std::align_val_t(64), std::nothrow) std::byte[program.arena_size()]);
    if (!m->arena_)
      return fail(Error::OutOfMemory, "cannot allocate the " + std::to_string(program.arena_size()) + "-byte arena");
  }
  for (const Slot& s : program.slots()) m->values_.push_back(slot_tensor(s, m->arena_.get()));
  m->bound_.assign(program.inputs().size(), false);
  m->symbol_values_.assign(program.symbols().size(), -1);
  for (const Instruction& in : program.instructions()) {
    m->in_tables_.emplace_back(in.inputs.size());
    m->out_tables_.emplace_back(in.outputs.size());
  }
  return m;
}

Error Method::set_input(size_t index, const Tensor& t) {
  if (index >= program_.inputs().size())
    return fail(Error::InvalidArgument, "input index " + std::to_string(index) + " out of range: the program has " +
                                            std::to_string(program_.inputs().size()) + " input(s)");
  const IoSlot& io = program_.inputs()[index];
  const Slot& s = program_.slots()[static_cast<size_t>(io.slot)];
  const std::string declared = s.type.str(program_.symbols());
  const std::string got = std::string(dtype_name(t.dtype)) + shape_string(t.shape());
  if (t.dtype != s.type.dtype)
    return fail(Error::InvalidType, "input '" + io.name + "': expected " + declared + ", got " + got);
  if (t.rank != static_cast<int>(s.type.dims.size()))
    return fail(Error::InvalidShape, "input '" + io.name + "': expected " + declared + ", got " + got + " (rank)");
  if (t.numel() > 0 && t.data == nullptr) return fail(Error::InvalidArgument, "input '" + io.name + "' has no data");
  for (int i = 0; i < t.rank; ++i) {
    const DimInfo& d = s.type.dims[static_cast<size_t>(i)];
    const int64_t n = t.sizes[i];
    const bool bad_static = d.kind == DimInfo::Kind::Static && n != d.value;
    const bool over_bound = d.kind != DimInfo::Kind::Static && d.value >= 0 && n > d.value;
    if (bad_static || over_bound || n < 0)
      return fail(Error::InvalidShape, "input '" + io.name + "': expected " + declared + ", got " + got + " (dim " + std::to_string(i) + ")");
    if (d.kind == DimInfo::Kind::Symbolic) {
      int64_t& bound = symbol_values_[static_cast<size_t>(d.symbol)];
      // Another input already fixed this symbol during this binding round.
      if (bound >= 0 && bound != n) {
        bool other_bound = false;
        for (size_t j = 0; j < bound_.size(); ++j) other_bound |= bound_[j] && j != index;
        if (other_bound)
          return fail(Error::InvalidShape, "input '" + io.name + "': expected " + declared + ", got " + got + " (symbol '" +
                                               program_.symbols()[static_cast<size_t>(d.symbol)] + "' is " + std::to_string(bound) + " in another input)");
      }
      bound = n;
    }
  }
  Tensor& v = values_[static_cast<size_t>(io.slot)];
  v = t;
  v.capacity = 0;
  bound_[index] = true;
  return Error::Ok;
}

Error Method::execute() {
  for (size_t i = 0; i < bound_.size(); ++i)
    if (!bound_[i]) return fail(Error::InvalidArgument, "input '" + program_.inputs()[i].name + "' is not set");
  const auto instructions = program_.instructions();
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction& in = instructions[i];
    std::vector<Tensor>& ins = in_tables_[i];
    std::vector<Tensor>& outs = out_tables_[i];
    for (size_t k = 0; k < in.inputs.size(); ++k) ins[k] = values_[static_cast<size_t>(in.inputs[k])];
    for (size_t k = 0; k < in.outputs.size(); ++k) outs[k] = values_[static_cast<size_t>(in.outputs[k])];
    const Error err = in.kernel(ctx_, ins, in.attrs, outs);
    if (err != Error::Ok) {
      set_error_detail("instruction " + std::to_string(i) + " (" + in.op + "): " + error_detail());
      return err;
    }
    for (size_t k = 0; k < in.outputs.size(); ++k) values_[static_cast<size_t>(in.outputs[k])] = outs[k];
  }
  return Error::Ok;
}

const Tensor& Method::output(size_t index) const {
  return values_[static_cast<size_t>(program_.outputs()[index].slot)];
}

}  // namespace edgec::runtime
