// The delegate's own loops, for what oneDNN 2.6 lacks: the gather family
// (take along an axis, embedding, index_select, x[i] with one integer
// index) and numpy broadcasting of a first operand. They run single-threaded
// inside the delegate: they move at most a few rows per call in the models
// we target, where an OpenMP fork/join (~2 us) would cost more than the copy.
#include <cstring>

#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"

namespace edgec::runtime::onednn {
namespace {

template <typename I>
Error gather_rows(const std::byte* x, const I* idx, std::byte* out, int64_t outer, int64_t size, int64_t count,
                  size_t block) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      int64_t v = static_cast<int64_t>(idx[j]);
      if (v < 0) v += size;  // negative indices count from the end
      if (v < 0 || v >= size)
        return fail(Error::IndexOutOfRange, "onednn: take: index " + std::to_string(static_cast<int64_t>(idx[j])) +
                                                " is out of range for a dim of size " + std::to_string(size));
      std::memcpy(out + static_cast<size_t>(o * count + j) * block, x + static_cast<size_t>(o * size + v) * block, block);
    }
  }
  return Error::Ok;
}

/// x[p0, p1, ..., pk-1] with k 1-D positions of one length n: row j of the
/// result is x's block at (p0[j], ..., pk-1[j]) over its leading k dims.
template <typename I>
Error gather_positions(const std::byte* x, const std::vector<const std::byte*>& idx, std::byte* out,
                       const std::vector<int64_t>& sizes, int64_t n, size_t block) {
  for (int64_t j = 0; j < n; ++j) {
    int64_t offset = 0;
    for (size_t d = 0; d < sizes.size(); ++d) {
      int64_t v = static_cast<int64_t>(reinterpret_cast<const I*>(idx[d])[j]);
      if (v < 0) v += sizes[d];
      if (v < 0 || v >= sizes[d])
        return fail(Error::IndexOutOfRange, "onednn: index: position " + std::to_string(v) + " is out of range for dim " +
                                                std::to_string(d) + " of size " + std::to_string(sizes[d]));
      offset = offset * sizes[d] + v;
    }
    std::memcpy(out + static_cast<size_t>(j) * block, x + static_cast<size_t>(offset) * block, block);
  }
  return Error::Ok;
}

}  // namespace

// index(x, [p0, ..., pk-1]) with k > 1 1-D positions of one length (a folded
// k-D boolean mask, docs/semantics.md §7.1): gathers blocks over x's leading k dims.
Error build_positions(Delegate& d, const Instruction& in, size_t index) {
  const std::string what = "instruction " + std::to_string(index) + " (" + in.op + ")";
  const int32_t x = in.inputs[0], y = in.outputs[0];
  const SlotState& xs = d.slots.at(static_cast<size_t>(x));
  const size_t k = in.inputs.size() - 1;
  if (k > xs.shape.size()) return fail(Error::InvalidProgram, "onednn: " + what + ": more indices than dims");
  const SlotState& first = d.slots.at(static_cast<size_t>(in.inputs[1]));
  std::vector<int32_t> ix(in.inputs.begin() + 1, in.inputs.end());
  for (int32_t s : ix) {
    const SlotState& is = d.slots.at(static_cast<size_t>(s));
    if (is.shape.size() != 1 || is.shape[0] != first.shape.at(0) || is.dtype != first.dtype ||
        (is.dtype != DType::Int64 && is.dtype != DType::Int32))
      return fail(Error::InvalidProgram, "onednn: " + what + ": expected 1-D integer positions of one length and dtype");
  }
  std::vector<int64_t> sizes(xs.shape.begin(), xs.shape.begin() + static_cast<std::ptrdiff_t>(k));
  int64_t inner = 1;
  for (size_t i = k; i < xs.shape.size(); ++i) inner *= xs.shape[i];
  const int64_t n = first.shape[0];
  const size_t block = static_cast<size_t>(inner) * dtype_size(xs.dtype);
  require(d.slots.at(static_cast<size_t>(y)).nbytes() == static_cast<size_t>(n) * block &&
              d.slots[static_cast<size_t>(y)].dtype == xs.dtype,
          "a result of another size than the gathered rows");
  const bool i64 = first.dtype == DType::Int64;
  // The pointer table lives in the step, so running it allocates nothing.
  auto run = [&d, x, y, ix, sizes, n, block, i64, ptrs = std::vector<const std::byte*>(ix.size())]() mutable {
    for (size_t i = 0; i < ix.size(); ++i) ptrs[i] = d.slots[static_cast<size_t>(ix[i])].ptr;
    const std::byte* src = d.slots[static_cast<size_t>(x)].ptr;
    std::byte* out = d.slots[static_cast<size_t>(y)].ptr;
    return i64 ? gather_positions<int64_t>(src, ptrs, out, sizes, n, block)
               : gather_positions<int32_t>(src, ptrs, out, sizes, n, block);
  };
  d.add_loop(std::move(run), what, "index (positions)");
  return Error::Ok;
}

// take(x, indices, dim): out = x[:dim] + indices.shape + x[dim+1:]; index
// with one integer index tensor is take along dim 0.
Error build_gather(Delegate& d, const Instruction& in, size_t index) {
  if (in.op == "index" && in.inputs.size() > 2 && in.outputs.size() == 1) return build_positions(d, in, index);
  const std::string what = "instruction " + std::to_string(index) + " (" + in.op + ")";
  if (in.inputs.size() != 2 || in.outputs.size() != 1)
    return fail(Error::InvalidProgram, "onednn: " + what + ": expected an input and one index tensor");
  const int32_t x = in.inputs[0], ix = in.inputs[1], y = in.outputs[0];
  const SlotState& xs = d.slots.at(static_cast<size_t>(x));
  const SlotState& is = d.slots.at(static_cast<size_t>(ix));
  const auto rank = static_cast<int64_t>(xs.shape.size());
  int64_t dim = in.op == "take" ? edgec::onednn::declared_attr(in.op, "dim").int_value(in.attrs) : 0;
  if (dim < 0) dim += rank;
  if (rank == 0 || dim < 0 || dim >= rank)
    return fail(Error::InvalidProgram, "onednn: " + what + ": dim out of range for rank " + std::to_string(rank));
  if (is.dtype != DType::Int64 && is.dtype != DType::Int32)
    return fail(Error::InvalidProgram, "onednn: " + what + ": expected i64 or i32 indices");
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < dim; ++i) outer *= xs.shape[static_cast<size_t>(i)];
  for (int64_t i = dim + 1; i < rank; ++i) inner *= xs.shape[static_cast<size_t>(i)];
  const int64_t size = xs.shape[static_cast<size_t>(dim)];
  const int64_t count = is.numel();
  const size_t block = static_cast<size_t>(inner) * dtype_size(xs.dtype);
  require(d.slots.at(static_cast<size_t>(y)).nbytes() == static_cast<size_t>(outer * count) * block &&
              d.slots[static_cast<size_t>(y)].dtype == xs.dtype,
          "a result of another size than the gathered rows");
  const bool i64 = is.dtype == DType::Int64;
  auto run = [&d, x, ix, y, outer, size, count, block, i64]() {
    const std::byte* src = d.slots[static_cast<size_t>(x)].ptr;
    const std::byte* idx = d.slots[static_cast<size_t>(ix)].ptr;
    std::byte* out = d.slots[static_cast<size_t>(y)].ptr;
    return i64 ? gather_rows(src, reinterpret_cast<const int64_t*>(idx), out, outer, size, count, block)
               : gather_rows(src, reinterpret_cast<const int32_t*>(idx), out, outer, size, count, block);
  };
  d.add_loop(std::move(run), what, in.op);
  return Error::Ok;
}

Error build_gather(Ctx& c) {
  for (int32_t s : c.in.inputs) c.d.need_plain(s);
  c.d.define_plain(c.output());
  return build_gather(c.d, c.in, c.index);
}

void add_broadcast_copy(Delegate& d, int32_t x, int32_t out, std::string what) {
  const SlotState &xst = d.slots.at(static_cast<size_t>(x)), &ost = d.slots.at(static_cast<size_t>(out));
  require(xst.dtype == DType::Float32 && ost.dtype == DType::Float32,
          "a broadcast of " + std::string(dtype_name(xst.dtype)) + " to " + std::string(dtype_name(ost.dtype)) +
              ", expected f32");
  require(broadcasts_to(xst.shape, ost.shape), "a value of shape " + shape_string(xst.shape) +
                                                   " that does not broadcast to the result's " +
                                                   shape_string(ost.shape));
  d.need_plain(x);
  d.define_plain(out);
  const auto& xs = d.slots.at(static_cast<size_t>(x)).shape;
  const auto& os = d.slots.at(static_cast<size_t>(out)).shape;
  const size_t r = os.size();
  // Per result dim, the element stride into x (0 where x broadcasts).
  std::vector<int64_t> strides(r, 0);
  int64_t s = 1;
  for (size_t k = 0; k < xs.size(); ++k) {
    const size_t xi = xs.size() - 1 - k;
    const size_t oi = r - 1 - k;
    strides[oi] = xs[xi] == 1 ? 0 : s;
    s *= xs[xi];
  }
  std::vector<int64_t> sizes = os;
  if (sizes.empty()) {
    sizes = {1};
    strides = {0};
  }
  // The counter lives in the step, so running it allocates nothing.
  auto run = [&d, x, out, sizes, strides, idx = std::vector<int64_t>(sizes.size(), 0)]() mutable {
    const auto* src = reinterpret_cast<const float*>(d.slots[static_cast<size_t>(x)].ptr);
    auto* dst = reinterpret_cast<float*>(d.slots[static_cast<size_t>(out)].ptr);
    const size_t last = sizes.size() - 1;
    const int64_t n = sizes[last], st = strides[last];
    std::fill(idx.begin(), idx.end(), 0);
    for (;;) {
      int64_t base = 0;
      for (size_t k = 0; k < last; ++k) base += idx[k] * strides[k];
      for (int64_t j = 0; j < n; ++j) *dst++ = src[base + j * st];
      size_t k = last;
      while (k > 0) {
        --k;
        if (++idx[k] < sizes[k]) break;
        idx[k] = 0;
        if (k == 0) return Error::Ok;
      }
      if (last == 0) return Error::Ok;
    }
  };
  d.add_loop(std::move(run), std::move(what), "broadcast copy");
}

}  // namespace edgec::runtime::onednn
