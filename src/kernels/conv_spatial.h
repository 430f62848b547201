// Pieces shared by the spatial kernels (convolution, pooling, resize): the
// declarations of the attributes they share, reading the per-axis attribute
// lists, and lifting 1-D and 2-D tensors to higher-rank views. (f16
// converts with f16_compute.h's widen and narrow.)
//
// Convolution and pooling run as 3-D kernels over an [N, C, D, H, W] view:
// a 2-D operator (NCHW) is the 3-D one with D = 1 and a depth-1 window, a
// 1-D one (NCL) also has H = 1. Their inner loops are row passes along W,
// so the extra axes cost a trivial outer loop, and one loop nest per
// operator is easier to make fast and to keep correct than three. Per-axis
// arrays below are therefore indexed in 3-D coordinates (0 = D, 1 = H,
// 2 = W); a 2-D operator's values land in indices 1 and 2, a 1-D one's in
// index 2. (The resize and adaptive kernels stay 1-D / 2-D: read_output_size
// gives them 2-D coordinates.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "base/attrs.h"
#include "base/error.h"
#include "base/half.h"
#include "kernels/f16_compute.h"
#include "kernels/op_decl.h"
#include "kernels/tensor.h"

namespace edgec::spatial {

/// Upper bound on any kernel size, stride, dilation or padding. It keeps every
/// product of two of them (dilation * kernel, index * stride) far from int64
/// overflow, and no real network comes near it.
inline constexpr int64_t kMaxAttrValue = int64_t{1} << 31;

/// Spatial axes of the per-axis arrays (3-D coordinates: D, H, W).
inline constexpr int kAxes = 3;

/// Division rounding toward -inf / +inf (C++ truncates toward 0), for window
/// bounds that may start in the padding.
inline int64_t floor_div(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

// ---- messages (built only on failure paths) ----------------------------------

inline void append_piece(std::string& s, std::string_view v) { s += v; }
inline void append_piece(std::string& s, const char* v) { s += v; }
inline void append_piece(std::string& s, const std::string& v) { s += v; }
template <typename T>
  requires std::is_integral_v<T>
inline void append_piece(std::string& s, T v) {
  s += std::to_string(v);
}

/// Concatenates strings and integers, for error details.
template <typename... Args>
std::string cat(const Args&... args) {
  std::string s;
  (append_piece(s, args), ...);
  return s;
}

/// "[a, b]" of the last nd entries of a per-axis array of kAxes entries
/// (so a 1-D operator prints its one value).
inline std::string axes_string(const int64_t* v, int nd) {
  std::string s = "[";
  for (int i = kAxes - nd; i < kAxes; ++i) {
    if (i > kAxes - nd) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// ---- windows --------------------------------------------------------------

/// The window a convolution or pooling operator slides, per axis in 3-D
/// coordinates (index 2 for a 1-D operator).
struct Window {
  int nd = 2;
  int64_t kernel[kAxes] = {1, 1, 1};
  int64_t stride[kAxes] = {1, 1, 1};
  int64_t dilation[kAxes] = {1, 1, 1};
  int64_t pad_begin[kAxes] = {0, 0, 0};
  int64_t pad_end[kAxes] = {0, 0, 0};
};

// ---- attributes -----------------------------------------------------------

/// The attributes several spatial operators share, declared once: the rows
/// of convolution.cpp, pooling.cpp and resize.cpp and the readers below use
/// these.
struct SharedDecls {
  AttrDecl stride = attr_ints("stride", AttrRule::Positive);
  AttrDecl padding = attr_ints("padding", AttrRule::NonNegative);
  AttrDecl dilation = attr_ints("dilation", AttrRule::Positive);
  AttrDecl output_size = required(attr_ints("output_size", AttrRule::Positive));
};

/// Reads the int-list attribute `decl` with `nd` entries into
/// out[kAxes - nd ..]. Absent or empty leaves `out` as it is (the caller's
/// default). Every entry must lie in [min_value, kMaxAttrValue].
inline Error read_axis_ints(std::string_view op, const Attrs& attrs, const AttrDecl& decl, int nd,
                            int64_t min_value, int64_t out[kAxes]) {
  const std::string_view name = decl.name;
  const AttrValue* v = attrs.find(name);
  if (v == nullptr) return Error::Ok;
  const auto* list = std::get_if<std::vector<int64_t>>(v);
  if (list == nullptr) {
    return fail(Error::InvalidArgument,
                cat(op, ": attribute '", name, "' must be an int list, got ", attr_kind_name(attr_kind(*v))));
  }
  if (list->empty()) return Error::Ok;
  if (static_cast<int>(list->size()) != nd) {
    return fail(Error::InvalidArgument, cat(op, ": expected ", nd, " entries in '", name, "' (one per spatial dim), got ",
                                            list->size()));
  }
  for (int i = 0; i < nd; ++i) {
    const int64_t value = (*list)[i];
    if (value < min_value || value > kMaxAttrValue) {
      return fail(Error::InvalidArgument, cat(op, ": '", name, "' entries must be in [", min_value, ", ",
                                              kMaxAttrValue, "], got ", value));
    }
    out[kAxes - nd + i] = value;
  }
  return Error::Ok;
}

/// Reads `padding`: nd entries (symmetric) or 2 * nd entries in ONNX order
/// (all begins, then all ends). Absent or empty means no padding.
inline Error read_padding(std::string_view op, const Attrs& attrs, int nd, int64_t begin[kAxes],
                          int64_t end[kAxes]) {
  for (int i = 0; i < kAxes; ++i) begin[i] = end[i] = 0;
  const AttrValue* v = attrs.find(declared<SharedDecls>().padding.name);
  if (v == nullptr) return Error::Ok;
  const auto* list = std::get_if<std::vector<int64_t>>(v);
  if (list == nullptr) {
    return fail(Error::InvalidArgument,
                cat(op, ": attribute 'padding' must be an int list, got ", attr_kind_name(attr_kind(*v))));
  }
  if (list->empty()) return Error::Ok;
  const int count = static_cast<int>(list->size());
  if (count != nd && count != 2 * nd) {
    return fail(Error::InvalidArgument, cat(op, ": expected ", nd, " or ", 2 * nd,
                                            " entries in 'padding', got ", count));
  }
  for (int64_t value : *list) {
    if (value < 0 || value > kMaxAttrValue) {
      return fail(Error::InvalidArgument,
                  cat(op, ": 'padding' entries must be in [0, ", kMaxAttrValue, "], got ", value));
    }
  }
  for (int i = 0; i < nd; ++i) {
    begin[kAxes - nd + i] = (*list)[i];
    end[kAxes - nd + i] = (*list)[count == nd ? i : nd + i];
  }
  return Error::Ok;
}

/// The spatial rank (1 to max_nd) that the int-list attribute `decl` fixes
/// by its length (pooling's kernel_size: up to 3; output_size: up to 2),
/// checked against the rank of `x` (N, C, spatial...); `what` names the
/// list in the message.
inline Error read_spatial_rank(std::string_view op, const Tensor& x, const Attrs& attrs, const AttrDecl& decl,
                               std::string_view what, int& nd, int max_nd = 2) {
  const std::vector<int64_t>* list = decl.ints_value(attrs);
  if (list == nullptr || list->empty() || list->size() > static_cast<size_t>(max_nd)) {
    return fail(Error::InvalidArgument,
                cat(op, ": '", decl.name, "' must be an int list with 1 ", max_nd == 2 ? "or 2" : "to 3",
                    " entries, got ", list == nullptr ? std::string("none") : std::to_string(list->size()) + " entries"));
  }
  nd = static_cast<int>(list->size());
  if (x.rank != nd + 2) {
    return fail(Error::InvalidShape, cat(op, ": a ", nd, "-d ", what, " needs a rank-", nd + 2,
                                         " input (N, C, spatial...), got shape ", shape_string(x.shape())));
  }
  return Error::Ok;
}

/// Sizes `out` [N, channels, out_sizes...] for an input `x` of spatial rank
/// nd (out_sizes in 3-D coordinates: its last nd entries).
inline Error resize_spatial(const Tensor& x, int64_t channels, const int64_t out_sizes[kAxes], int nd, Tensor& out) {
  int64_t shape[2 + kAxes] = {x.sizes[0], channels};
  for (int i = 0; i < nd; ++i) shape[2 + i] = out_sizes[kAxes - nd + i];
  return out.resize({shape, static_cast<size_t>(nd + 2)});
}

/// Reads output_size (adaptive_avg_pool and the resizes) for input `x` into
/// out_size, in 2-D coordinates (out_size[0] = 1 for a 1-D operator), and
/// sizes `out` [N, C, output_size...]. An empty spatial dim cannot `verb`
/// ("pool", "resize") to a non-empty one.
inline Error read_output_size(std::string_view op, std::string_view verb, const Tensor& x, const Attrs& attrs,
                              int64_t out_size[2], Tensor& out) {
  out_size[0] = out_size[1] = 1;
  int nd = 0;
  EDGEC_TRY(read_spatial_rank(op, x, attrs, declared<SharedDecls>().output_size, "output_size", nd));
  int64_t sizes[kAxes] = {1, 1, 1};
  EDGEC_TRY(read_axis_ints(op, attrs, declared<SharedDecls>().output_size, nd, 0, sizes));
  for (int i = 0; i < nd; ++i) {
    if (x.sizes[2 + i] == 0 && sizes[kAxes - nd + i] > 0) {
      return fail(Error::InvalidShape, cat(op, ": cannot ", verb, " an empty spatial dim of input ",
                                           shape_string(x.shape()), " to output_size ", axes_string(sizes, nd)));
    }
  }
  out_size[0] = sizes[1];
  out_size[1] = sizes[2];
  return resize_spatial(x, x.sizes[1], sizes, nd, out);
}

// ---- views ----------------------------------------------------------------

/// `t` (rank 3 [N, C, L] or rank 4) as an [N, C, H, W] view; rank 3 gets H = 1.
inline Tensor lift_to_2d(const Tensor& t) {
  if (t.rank != 3) return t;
  Tensor v = t;
  v.rank = 4;
  v.sizes[3] = t.sizes[2];
  v.strides[3] = t.strides[2];
  v.sizes[2] = 1;
  v.strides[2] = 0;
  return v;
}

/// `t` (rank 3, 4 or 5) as an [N, C, D, H, W] view; the axes it lacks get
/// size 1 (D, then H).
inline Tensor lift_to_3d(const Tensor& t) {
  if (t.rank == 5) return t;
  const Tensor t4 = lift_to_2d(t);
  Tensor v = t4;
  v.rank = 5;
  for (int i = 4; i > 2; --i) {
    v.sizes[i] = t4.sizes[i - 1];
    v.strides[i] = t4.strides[i - 1];
  }
  v.sizes[2] = 1;
  v.strides[2] = 0;
  return v;
}

/// Calls body(plane, out_plane) for every (n, c) plane of the [N, C, ...]
/// view x4, `threads` planes at a time: `plane` points at the input plane
/// (walked with x4's spatial strides), `out_plane` at the output's
/// contiguous plane of out_h * out_w elements (a volume: out_h = D * H).
template <typename T, typename Body>
void for_each_plane(const Tensor& x4, Tensor& out, int64_t out_h, int64_t out_w, int threads, Body&& body) {
  const T* xd = x4.data_as<T>();
  T* od = out.data_as<T>();
  const int64_t channels = x4.sizes[1];
  const int64_t planes = x4.sizes[0] * channels;
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t p = 0; p < planes; ++p) {
    body(xd + (p / channels) * x4.strides[0] + (p % channels) * x4.strides[1], od + p * out_h * out_w);
  }
}

/// Threads to use for `work` element operations: parallel regions cost
/// microseconds, so small tensors stay on the calling thread.
inline int threads_for(int max_threads, int64_t work) {
  constexpr int64_t kMinParallelWork = 32 * 1024;
  return (max_threads > 1 && work >= kMinParallelWork) ? max_threads : 1;
}

}  // namespace edgec::spatial
