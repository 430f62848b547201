// pad, tile, triu and tril: data movement that also writes values the input
// does not hold (padding, zeros) or reads inputs more than once (tile).
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/shape_common.h"
#include "kernels/shape_ops.h"

namespace edgec::shape_detail {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

// The attributes of the operators in this file, declared once: the rows at
// the end of the file and the kernels read them.
struct PadDecls {
  AttrDecl pads = required(attr_ints("pads"));
  AttrDecl mode = attr_string("mode", "constant", {"constant", "reflect", "edge"});
  AttrDecl value = attr_float("value", 0);
  AttrDecl repeats = required(attr_ints("repeats", AttrRule::NonNegative));
  AttrDecl diagonal = attr_int("diagonal", 0);
};

// ---- pad ---------------------------------------------------------------------

enum class PadMode { Constant, Reflect, Edge };

struct PadArgs {
  PadMode mode = PadMode::Constant;
  int rank = 0;
  std::array<int64_t, kMaxRank> begin{};  // may be negative (crop)
  const Tensor* x = nullptr;
  Tensor* out = nullptr;
  uint64_t value_bits = 0;
};

// The input coordinate an output coordinate reads, or -1 for the constant.
// Reflect needs pad < size, which pad_kernel checked.
inline int64_t pad_source(PadMode mode, int64_t o, int64_t begin, int64_t size) {
  const int64_t s = o - begin;
  if (s >= 0 && s < size) return s;
  switch (mode) {
    case PadMode::Constant: return -1;
    case PadMode::Edge: return s < 0 ? 0 : size - 1;
    case PadMode::Reflect: return s < 0 ? -s : 2 * (size - 1) - s;
  }
  return -1;
}

// Writes output rows [row_begin, row_end); a row is the last dim. The
// middle of each row is a plain (strided) copy; only the padded ends map
// coordinates one by one.
template <typename T>
void pad_rows(const PadArgs& a, int64_t row_begin, int64_t row_end) {
  const Tensor& x = *a.x;
  const int last = a.rank - 1;
  const int64_t out_n = a.out->sizes[last];
  const int64_t in_n = x.sizes[last];
  const int64_t in_stride = x.strides[last];
  const int64_t b = a.begin[last];
  const int64_t mid_begin = std::clamp<int64_t>(b, 0, out_n);
  const int64_t mid_end = std::clamp<int64_t>(b + in_n, mid_begin, out_n);
  const T value = static_cast<T>(a.value_bits);
  const T* src = static_cast<const T*>(x.data);
  T* dst = static_cast<T*>(a.out->data);

  std::array<int64_t, kMaxRank> coord{};
  int64_t flat = row_begin;
  for (int d = last - 1; d >= 0; --d) {
    coord[d] = flat % a.out->sizes[d];
    flat /= a.out->sizes[d];
  }
  for (int64_t row = row_begin; row < row_end; ++row) {
    T* out_row = dst + row * out_n;
    int64_t src_off = 0;
    bool fill_row = false;
    for (int d = 0; d < last; ++d) {
      const int64_t s = pad_source(a.mode, coord[d], a.begin[d], x.sizes[d]);
      if (s < 0) {
        fill_row = true;
        break;
      }
      src_off += s * x.strides[d];
    }
    if (fill_row) {
      std::fill_n(out_row, out_n, value);
    } else {
      const T* in_row = src + src_off;
      for (int64_t j = 0; j < mid_begin; ++j) {
        const int64_t s = pad_source(a.mode, j, b, in_n);
        out_row[j] = s < 0 ? value : in_row[s * in_stride];
      }
      const T* mid = in_row + (mid_begin - b) * in_stride;
      if (in_stride == 1) {
        std::copy_n(mid, mid_end - mid_begin, out_row + mid_begin);
      } else {
        for (int64_t j = mid_begin; j < mid_end; ++j) out_row[j] = mid[(j - mid_begin) * in_stride];
      }
      for (int64_t j = mid_end; j < out_n; ++j) {
        const int64_t s = pad_source(a.mode, j, b, in_n);
        out_row[j] = s < 0 ? value : in_row[s * in_stride];
      }
    }
    for (int d = last - 1; d >= 0; --d) {
      if (++coord[d] < a.out->sizes[d]) break;
      coord[d] = 0;
    }
  }
}

// ONNX Pad: pads lists the begins of every dim, then the ends; negative
// pads crop. Reflect and edge follow numpy.pad's 'reflect' and 'edge'.
Error pad_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                 std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "pad";
  const PadDecls& decls = declared<PadDecls>();
  std::span<const int64_t> pads;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, decls.pads, pads));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  if (pads.size() != 2 * static_cast<size_t>(x.rank)) {
    return fail(Error::InvalidArgument, "pad: expected " + str(2 * x.rank) +
                                            " pads for an input of shape " +
                                            shape_string(x.shape()) + ", got " +
                                            shape_string(pads));
  }
  PadArgs a;
  const std::string_view mode = decls.mode.string_value(attrs);
  if (mode == "constant") {
    a.mode = PadMode::Constant;
  } else if (mode == "reflect") {
    a.mode = PadMode::Reflect;
  } else if (mode == "edge") {
    a.mode = PadMode::Edge;
  } else {
    return fail(Error::InvalidArgument, "pad: expected mode constant, reflect or edge, got '" +
                                            std::string(mode) + "'");
  }
  Number value;
  EDGEC_TRY(number_attr(kOp, attrs, decls.value, value));

  // Output sizes; reflect and edge need input elements to copy from.
  std::array<int64_t, kMaxRank> shape{};
  for (int d = 0; d < x.rank; ++d) {
    const int64_t b = pads[d];
    const int64_t e = pads[d + x.rank];
    const int64_t n = x.sizes[d];
    int64_t size = 0;
    if (__builtin_add_overflow(n, b, &size) || __builtin_add_overflow(size, e, &size) ||
        size < 0) {
      return fail(Error::InvalidShape, "pad: pads " + str(b) + ", " + str(e) + " of dim " +
                                           str(d) + " with size " + str(n) +
                                           " give a negative or overflowing size");
    }
    const int64_t widest = std::max(b, e);
    if (a.mode == PadMode::Reflect && widest > 0 && widest >= n) {
      return fail(Error::InvalidShape, "pad: reflect padding " + str(widest) + " of dim " +
                                           str(d) + " needs a size greater than the padding, got " +
                                           str(n));
    }
    if (a.mode == PadMode::Edge && widest > 0 && n == 0) {
      return fail(Error::InvalidShape,
                  "pad: edge padding of dim " + str(d) + " needs a non-empty dim, got size 0");
    }
    shape[d] = size;
    a.begin[d] = b;
  }
  EDGEC_TRY(resize_output(kOp, out, {shape.data(), static_cast<size_t>(x.rank)}));
  const int64_t total = out.numel();
  if (total == 0) return Error::Ok;
  if (x.rank == 0) {
    std::memcpy(out.data, x.data, dtype_size(x.dtype));
    return Error::Ok;
  }
  a.rank = x.rank;
  a.x = &x;
  a.out = &out;
  a.value_bits = scalar_bits(x.dtype, value);

  const int64_t rows = total / out.sizes[x.rank - 1];
  dispatch_elem_size(dtype_size(x.dtype), [&](auto word) {
    using T = decltype(word);
    if (ctx.num_threads > 1 && total >= kParallelElements && rows > 1) {
      const int64_t chunks = std::min<int64_t>(ctx.num_threads, rows);
#pragma omp parallel for num_threads(ctx.num_threads) schedule(static)
      for (int64_t c = 0; c < chunks; ++c)
        pad_rows<T>(a, rows * c / chunks, rows * (c + 1) / chunks);
    } else {
      pad_rows<T>(a, 0, rows);
    }
  });
  return Error::Ok;
}

// ---- tile --------------------------------------------------------------------

// ONNX Tile as one strided copy: output dim d is a (repeat, size) pair whose
// repeat part reads the input with stride 0.
Error tile_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "tile";
  std::span<const int64_t> repeats;
  EDGEC_TRY(one_to_one_list(kOp, inputs, outputs, attrs, declared<PadDecls>().repeats, repeats));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  if (repeats.size() != static_cast<size_t>(x.rank)) {
    return fail(Error::InvalidArgument, "tile: expected " + str(x.rank) +
                                            " repeats for an input of shape " +
                                            shape_string(x.shape()) + ", got " +
                                            shape_string(repeats));
  }
  std::array<int64_t, kMaxRank> shape{};
  for (int d = 0; d < x.rank; ++d) {
    if (repeats[d] < 0) {
      return fail(Error::InvalidArgument, "tile: expected non-negative repeats, got " +
                                              shape_string(repeats));
    }
    if (__builtin_mul_overflow(x.sizes[d], repeats[d], &shape[d])) {
      return fail(Error::InvalidShape, "tile: repeating " + shape_string(x.shape()) + " by " +
                                           shape_string(repeats) + " overflows");
    }
  }
  EDGEC_TRY(resize_output(kOp, out, {shape.data(), static_cast<size_t>(x.rank)}));
  CopyPlan plan;
  for (int d = 0; d < x.rank; ++d) {
    plan.add_dim(repeats[d], 0, x.sizes[d] * out.strides[d]);
    plan.add_dim(x.sizes[d], x.strides[d], out.strides[d]);
  }
  copy_strided(ctx, dtype_size(x.dtype), plan, x.data, out.data);
  return Error::Ok;
}

// ---- triu, tril --------------------------------------------------------------

// Copies x, then zeroes below (triu) or above (tril) the diagonal of every
// matrix in the last two dims; zero is all-zero bits in every dtype.
Error triangle(std::string_view op, bool upper, KernelContext& ctx,
               std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  EDGEC_TRY(check_one_to_one(op, inputs, outputs));
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  if (x.rank < 2) {
    return fail(Error::InvalidShape, std::string(op) + ": expected an input of rank >= 2, got " +
                                         shape_string(x.shape()));
  }
  int64_t diagonal = 0;
  EDGEC_TRY(int_attr(op, attrs, declared<PadDecls>().diagonal, diagonal));
  EDGEC_TRY(resize_output(op, out, x.shape()));
  copy_to_contiguous(ctx, x, out.data);

  const int64_t m = x.sizes[x.rank - 2];
  const int64_t n = x.sizes[x.rank - 1];
  const int64_t rows = out.numel() / std::max<int64_t>(n, 1);
  if (n == 0 || rows == 0) return Error::Ok;
  // Clamping keeps i + diagonal from overflowing without changing the result.
  diagonal = std::clamp<int64_t>(diagonal, -m, n);
  const size_t esz = dtype_size(x.dtype);
  char* data = static_cast<char*>(out.data);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t i = r % m;
    int64_t zero_begin = 0;
    int64_t zero_end = 0;
    if (upper) {
      zero_end = std::clamp<int64_t>(i + diagonal, 0, n);
    } else {
      zero_begin = std::clamp<int64_t>(i + diagonal + 1, 0, n);
      zero_end = n;
    }
    if (zero_end > zero_begin) {
      std::memset(data + (r * n + zero_begin) * static_cast<int64_t>(esz), 0,
                  static_cast<size_t>(zero_end - zero_begin) * esz);
    }
  }
  return Error::Ok;
}

Error triu_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  return triangle("triu", true, ctx, inputs, attrs, outputs);
}

Error tril_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs) {
  return triangle("tril", false, ctx, inputs, attrs, outputs);
}

}  // namespace

std::span<const KernelEntry> pad_kernels() {
  const PadDecls& d = declared<PadDecls>();
  auto row = [](std::string_view name, std::vector<AttrDecl> attrs, uint32_t flags, std::string_view summary) {
    return declare(name, "shape", {{"self"}}, std::move(attrs), kAllDTypes, flags, summary);
  };
  static const KernelEntry kPadKernels[] = {
      {row("pad", {d.pads, d.mode, d.value}, 0,
           "ONNX Pad (begins then ends; negative crops): constant, reflect or edge"),
       pad_kernel},
      {row("tile", {d.repeats}, kOpShapeOnly, "repeats the tensor along each dim (ONNX Tile)"), tile_kernel},
      {row("tril", {d.diagonal}, 0, "zeroes above the diagonal of the last two dims"), tril_kernel},
      {row("triu", {d.diagonal}, 0, "zeroes below the diagonal of the last two dims"), triu_kernel},
  };
  return kPadKernels;
}

}  // namespace edgec::shape_detail
