#include "runtime/delegate.h"

#include <cstring>
#include <memory>

#include "runtime/method.h"

namespace edgec::runtime {
namespace {

std::string num(size_t v) { return std::to_string(v); }

}  // namespace

std::string DelegateBackend::who() const { return "the " + std::string(id()) + " delegate"; }

Error DelegateBackend::execute(void* raw, std::span<const Tensor* const> inputs,
                               std::span<Tensor* const> outputs) const {
  if (!raw) return fail(Error::DelegateInvalidHandle, who() + " has no handle");
  auto& h = *static_cast<DelegateHandle*>(raw);
  if (inputs.size() != h.num_inputs() || outputs.size() != h.num_outputs())
    return fail(Error::InvalidArgument, who() + " takes " + num(h.num_inputs()) + " input(s) and " +
                                            num(h.num_outputs()) + " output(s), got " + num(inputs.size()) + " and " +
                                            num(outputs.size()));
  return h.run(inputs, outputs);
}

void DelegateBackend::destroy(void* raw) const { delete static_cast<DelegateHandle*>(raw); }

std::vector<std::string> DelegateBackend::step_names(void* raw) const {
  return raw ? static_cast<DelegateHandle*>(raw)->step_names() : std::vector<std::string>{};
}

Error DelegateBackend::set_profile(void* raw, std::span<double> seconds) const {
  if (!raw) return fail(Error::DelegateInvalidHandle, who() + " has no handle");
  auto& h = *static_cast<DelegateHandle*>(raw);
  const size_t steps = h.step_names().size();
  if (!seconds.empty() && seconds.size() != steps)
    return fail(Error::InvalidArgument, who() + " has " + num(steps) + " steps, not " + num(seconds.size()));
  h.profile = seconds;
  return Error::Ok;
}

Error check_input(std::string_view backend, size_t index, const Tensor& t, DType dtype,
                  std::span<const int64_t> shape) {
  bool same = t.dtype == dtype && static_cast<size_t>(t.rank) == shape.size();
  for (size_t i = 0; same && i < shape.size(); ++i) same = t.sizes[i] == shape[i];
  if (same) return Error::Ok;
  return fail(Error::InvalidShape, std::string(backend) + ": input " + num(index) + ": expected " +
                                       std::string(dtype_name(dtype)) + shape_string(shape) + ", got " +
                                       std::string(dtype_name(t.dtype)) + shape_string(t.shape()));
}

Error check_thread_count(std::string_view backend, int num_threads) {
  if (num_threads >= 1 && num_threads <= Method::max_threads()) return Error::Ok;
  return fail(Error::InvalidArgument, std::string(backend) + ": expected 1 to " + std::to_string(Method::max_threads()) +
                                          " threads (the cores of this machine), got " + std::to_string(num_threads));
}

Error static_slot_shape(std::string_view backend, const Program& p, size_t index, uint64_t limit,
                        std::vector<int64_t>& shape) {
  const Slot& s = p.slots()[index];
  shape.clear();
  for (const DimInfo& dim : s.type.dims) {
    if (dim.kind != DimInfo::Kind::Static)
      return fail(Error::InvalidProgram, std::string(backend) + ": slot '" + s.name + "' has a non-static shape " +
                                             s.type.str(p.symbols()));
    shape.push_back(dim.value);
  }
  if (s.kind == SlotKind::Constant || s.kind == SlotKind::State) return Error::Ok;  // Mapped, not made.
  // Overflow-safe: a crafted shape may multiply past 2^64.
  uint64_t bytes = dtype_size(s.type.dtype);
  bool fits = true;
  for (int64_t d : shape) {
    fits = fits && d >= 0 && (d == 0 || bytes <= limit / static_cast<uint64_t>(d));
    if (fits) bytes *= static_cast<uint64_t>(d);
  }
  if (fits && bytes <= limit) return Error::Ok;
  return fail(Error::OutOfMemory, std::string(backend) + ": slot '" + s.name + "' of type " + s.type.str(p.symbols()) +
                                      " needs more than the memory limit of " + std::to_string(limit) +
                                      " bytes (set EDGEC_MEMORY_LIMIT to change it)");
}

void pack_contiguous(const Tensor& src, std::byte* dst) {
  const size_t esz = dtype_size(src.dtype);
  const int64_t n = src.numel();
  if (n == 0) return;
  if (src.is_contiguous()) {
    std::memcpy(dst, src.data, static_cast<size_t>(n) * esz);
    return;
  }
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

Error copy_to_output(const Tensor& src, Tensor& dst, size_t index) {
  if (src.dtype != dst.dtype || src.rank != dst.rank)
    return fail(Error::InvalidType, "output " + num(index) + ": the delegate produced " +
                                        std::string(dtype_name(src.dtype)) + shape_string(src.shape()) +
                                        ", the caller expects " + std::string(dtype_name(dst.dtype)) + " of rank " +
                                        std::to_string(dst.rank));
  EDGEC_TRY(dst.resize(src.shape()));
  pack_contiguous(src, static_cast<std::byte*>(dst.data));
  return Error::Ok;
}

}  // namespace edgec::runtime
