// Builds the oneDNN primitives of one delegate instruction, once, at init.
// Each family maps the edge operator's semantics (src/kernels/) onto a
// primitive: shapes come from the slots (static), attributes from the
// instruction, with the partitioner (partitioner.cpp) having refused what
// does not map. Unary operators, same-shape binaries, pooling and batch
// norm work in whatever layout their input is in (a convolution's blocked
// one included); the rest read plain data, made by a reorder where the
// producer left it blocked (Delegate::src). Convolution and matmul with
// their fusions are in runtime_conv.cpp, group norm in runtime_norm.cpp.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "runtime/delegate_geometry.h"
#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_build.h"
#include "backends/onednn/runtime_quant.h"
#include "base/thread_cap.h"

namespace edgec::runtime::onednn {
namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
constexpr auto kF32 = memory::data_type::f32;
constexpr auto kInference = prop_kind::forward_inference;

memory::dims pad_left(memory::dims v, size_t rank) {
  v.insert(v.begin(), rank - v.size(), 1);
  return v;
}

memory::desc md_of(const memory::dims& dims) { return memory::desc(dims, kF32, plain_strides(dims)); }

// Work below which one thread is faster than two. A region's fork and join
// cost a few microseconds while the workers spin between the regions of a
// call (GOMP_SPINCOUNT; docs/architecture.md, "Threads under contention"),
// tens of microseconds where they sleep and must be woken. With the
// workers spinning and kept off the caller's CPU, these thresholds ran
// MobileNetV3 at two threads in 1.6 ms against 2.4 at 2e7 and 2^18 and 2.7
// on one thread; lower ones (5e5, 2^13) gained nothing more.
constexpr double kParallelFlops = 2e6;
constexpr int64_t kParallelElements = 1 << 15;

// Whether oneDNN picked its reference implementation for `pd` (ref:any,
// ref_...): correct, but far slower than a loop of the delegate's own.
bool on_reference_code(const dnnl::primitive_desc_base& pd) {
  return std::string_view(pd.impl_info_str()).rfind("ref", 0) == 0;
}

int64_t normalize(int64_t dim, int64_t rank) { return dim < 0 ? dim + rank : dim; }

}  // namespace

// The builders op_table.cpp names (declared in runtime_build.h), and the
// helpers they share.

// ---- copies ------------------------------------------------------------------

// Reshape-like operators: the bytes do not change, so the result is a view
// of the input's storage; a copy only where the input or the result is the
// caller's tensor.
Error build_copy(Ctx& c) {
  const int32_t x = c.input(0), y = c.output();
  Delegate& d = c.d;
  require(d.slots[static_cast<size_t>(x)].nbytes() == d.slots[static_cast<size_t>(y)].nbytes(),
          "a reshape whose result has another size than its input");
  if (d.alias(y, x)) return Error::Ok;
  d.need_plain(x);
  d.define_plain(y);
  const size_t bytes = d.slots[static_cast<size_t>(y)].nbytes();
  d.add_loop(
      [&d, x, y, bytes]() {
        std::memcpy(d.slots[static_cast<size_t>(y)].ptr, d.slots[static_cast<size_t>(x)].ptr, bytes);
        return Error::Ok;
      },
      c.what, "copy (" + c.in.op + ")");
  return Error::Ok;
}

Error build_cast(Ctx& c) {
  // Both sides are held in f32 (runtime_state.h's header), and the f16
  // side's values are kept at f32 precision: the cast is the same values, a
  // view where it can be. So the delegate computes an f16 region as ONNX
  // Runtime does on a CPU without f16 arithmetic (which removes the Cast
  // pairs it puts around each f16 operator, and the model's own): in f32
  // with the f16 constants, rounding only where an f16 value leaves the
  // delegate. A value a convolution left blocked stays so: the result
  // shares its blocked buffer (a cast around a Resize, which the
  // converters keep in f32, then costs no reorder to plain and back). Only
  // where the cast is its sole reader: then no step asks whether the value
  // is free to overwrite in place while the result still reads it
  // (free_after sees a blocked value's storage as its own).
  const int32_t x = c.input(0), y = c.output();
  Delegate& d = c.d;
  SlotState& xs = d.slots.at(static_cast<size_t>(x));
  SlotState& ys = d.slots.at(static_cast<size_t>(y));
  if (xs.blocked_buffer >= 0 && sole_consumer(d, x) == static_cast<int32_t>(c.index) && xs.shape == ys.shape &&
      xs.dtype == ys.dtype && !ys.io &&
      ys.kind == SlotKind::Activation && !ys.plain_ready && ys.blocked_buffer < 0) {
    (void)d.src_as(x, xs.blocked);  // Marks the buffer used here.
    ys.blocked = xs.blocked.get();
    ys.blocked_buffer = xs.blocked_buffer;
    return Error::Ok;
  }
  return build_copy(c);
}

// True when the view of `dims` with `strides` is one contiguous run (its
// strides are the plain ones, size-1 dims aside).
bool contiguous_view(const memory::dims& dims, const memory::dims& strides) {
  const memory::dims plain = plain_strides(dims);
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1 && strides[i] != plain[i]) return false;
  return true;
}

// A reorder from a strided view of slot `x` (dims, strides in elements, byte
// offset) into the plain slot `y`: permute, slice, select, split. A view
// that is one contiguous run (a slice along the outermost dim, Swin's
// roll) is a memcpy, split between the step's threads: oneDNN's reorder
// copies it several times slower; one that is the whole input (ViT's
// [1, T, C] to [T, 1, C]) is no copy at all where the storage allows.
void add_view_reorder(Ctx& c, int32_t x, const memory::dims& dims, const memory::dims& strides, size_t offset,
                      int32_t y) {
  if (contiguous_view(dims, strides)) {
    Delegate& d = c.d;
    const size_t bytes = d.slots[static_cast<size_t>(y)].nbytes();
    // The whole input in its own order (a permute moving only size-1
    // dims): the same bytes, a view where it can be (build_copy).
    if (offset == 0 && bytes == d.slots[static_cast<size_t>(x)].nbytes() && d.alias(y, x)) return;
    require(offset + bytes <= d.slots[static_cast<size_t>(x)].nbytes(),
            "a view of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " past its input");
    d.need_plain(x);
    d.define_plain(y);
    const int threads = d.step_threads;
    d.add_loop(
        [&d, x, y, offset, bytes, threads]() {
          const std::byte* from = d.slots[static_cast<size_t>(x)].ptr + offset;
          std::byte* to = d.slots[static_cast<size_t>(y)].ptr;
          const int n = capped_threads(threads);  // the run's cap (base/thread_cap.h)
          const size_t chunk = (bytes / static_cast<size_t>(n) + 63) / 64 * 64;
#pragma omp parallel for num_threads(n) schedule(static) if (n > 1)
          for (int t = 0; t < n; ++t) {
            const size_t begin = std::min(bytes, static_cast<size_t>(t) * chunk);
            std::memcpy(to + begin, from + begin, std::min(bytes, begin + chunk) - begin);
          }
          return Error::Ok;
        },
        c.what, c.in.op + " (copy)");
    return;
  }
  // f32, or u8 / i8 (an int8_data row: the same bytes moved).
  const DType xt = c.d.slots[static_cast<size_t>(x)].dtype;
  const memory::data_type type = xt == DType::UInt8 ? memory::data_type::u8
                                 : xt == DType::Int8 ? memory::data_type::s8
                                                     : kF32;
  const memory::desc src(dims, type, strides);
  const memory::desc dst(dims, type, plain_strides(dims));
  dnnl::reorder::primitive_desc pd(c.d.engine, src, c.d.engine, dst, c.d.attr());
  memory from = c.d.src(x, src, offset);
  c.d.add(dnnl::reorder(pd), pd, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, c.d.dst(y, dst)}}, c.what, c.in.op);
}

Error build_permute(Ctx& c) {
  const auto x = dnnl_dims(c.shape(c.input(0)));
  const auto xs = plain_strides(x);
  const std::vector<int64_t>* perm = c.attrs().get_ints("dims");
  if (!perm || perm->size() != c.shape(c.input(0)).size()) return bad(c, "expected one 'dims' entry per input dim");
  memory::dims dims, strides;
  for (int64_t p : *perm) {
    const auto i = static_cast<size_t>(normalize(p, static_cast<int64_t>(perm->size())));
    dims.push_back(x.at(i));
    strides.push_back(xs.at(i));
  }
  if (perm->empty()) return build_copy(c);
  add_view_reorder(c, c.input(0), dims, strides, 0, c.output());
  return Error::Ok;
}

Error build_slice(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto xs = plain_strides(dnnl_dims(x));
  const auto rank = static_cast<int64_t>(x.size());
  memory::dims strides = xs;
  int64_t offset = 0;
  const auto* starts = c.attrs().get_ints("starts");
  const auto* dims = c.attrs().get_ints("dims");
  const auto* steps = c.attrs().get_ints("steps");
  if (!starts) return bad(c, "expected 'starts'");
  for (size_t i = 0; i < starts->size(); ++i) {
    const auto dim = static_cast<size_t>(normalize(dims && !dims->empty() ? dims->at(i) : static_cast<int64_t>(i), rank));
    const int64_t size = x.at(dim);
    const int64_t step = steps && !steps->empty() ? steps->at(i) : 1;
    // Forward views only (the partitioner takes no other), with strides
    // that stay far from overflow.
    require(step >= 1 && step <= INT32_MAX,
            "slice step " + std::to_string(step) + " along dim " + std::to_string(dim) + ", expected 1 to 2^31 - 1");
    // ONNX Slice: a negative start counts from the end, then clamps.
    int64_t start = (*starts)[i];
    if (start < 0) start += size;
    start = std::clamp<int64_t>(start, 0, size);
    offset += start * xs[dim];
    require(!__builtin_mul_overflow(xs[dim], step, &strides[dim]),
            "slice step " + std::to_string(step) + " along dim " + std::to_string(dim) + " overflows the stride " +
                std::to_string(xs[dim]));
  }
  // In bytes: 4 per f32 element, 1 per u8 / i8 one (an int8_data row).
  const size_t element = dtype_size(c.d.slots[static_cast<size_t>(c.input(0))].dtype);
  add_view_reorder(c, c.input(0), dnnl_dims(c.shape(c.output())), strides, static_cast<size_t>(offset) * element,
                   c.output());
  return Error::Ok;
}

Error build_select(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto xs = plain_strides(dnnl_dims(x));
  const auto dim = static_cast<size_t>(normalize(c.int_attr("dim"), static_cast<int64_t>(x.size())));
  int64_t index = c.int_attr("index");
  if (index < 0) index += x.at(dim);
  if (index < 0 || index >= x.at(dim)) return bad(c, "index out of range");
  memory::dims dims, strides;
  for (size_t i = 0; i < x.size(); ++i)
    if (i != dim) {
      dims.push_back(x[i]);
      strides.push_back(xs[i]);
    }
  if (dims.empty()) {
    dims = {1};
    strides = {1};
  }
  add_view_reorder(c, c.input(0), dims, strides, static_cast<size_t>(index * xs[dim]) * 4, c.output());
  return Error::Ok;
}

// One loop step copies every piece, row by row. A reorder primitive per
// output cost kilobytes of init state each and, for a large input, a
// parallel region each: a split of 100,000 values into as many outputs
// loaded into 580 MB (340 MB so) and ran in 25 s on two threads (35 ms).
Error build_split(Ctx& c) {
  Delegate& d = c.d;
  const int32_t x = c.input(0);
  const auto xd = dnnl_dims(c.shape(x));
  const auto rank = static_cast<int64_t>(xd.size());
  const int64_t dim_attr = c.int_attr("dim");
  require(dim_attr >= -rank && dim_attr < rank,
          "split dim " + std::to_string(dim_attr) + " of an input of rank " + std::to_string(rank));
  const auto dim = static_cast<size_t>(normalize(dim_attr, rank));
  // Bytes of one row from `dim` on (the input's and each piece's), over
  // `outer` rows.
  int64_t outer = 1, inner = 4;
  for (size_t i = 0; i < dim; ++i) outer *= xd[i];
  for (size_t i = dim + 1; i < xd.size(); ++i) inner *= xd[i];
  struct Piece {
    int32_t slot;
    int64_t offset, bytes;
  };
  std::vector<Piece> pieces;
  pieces.reserve(c.in.outputs.size());
  int64_t at = 0;
  for (size_t k = 0; k < c.in.outputs.size(); ++k) {
    const auto od = dnnl_dims(c.shape(c.output(k)));
    bool fits = od.size() == xd.size() && od[dim] <= xd[dim] - at;
    for (size_t i = 0; i < od.size() && fits; ++i) fits = i == dim || od[i] == xd[i];
    require(fits, "split piece " + std::to_string(k) + " of shape " + shape_string(od) + " at " + std::to_string(at) +
                      " along dim " + std::to_string(dim) + " does not fit the input's " + shape_string(xd));
    if (od[dim] > 0) pieces.push_back({c.output(k), at * inner, od[dim] * inner});
    at += od[dim];
  }
  const int64_t row = xd[dim] * inner;
  d.need_plain(x);
  for (int32_t y : c.in.outputs) d.define_plain(y);
  d.add_loop(
      [&d, x, pieces = std::move(pieces), outer, row]() {
        const std::byte* src = d.slots[static_cast<size_t>(x)].ptr;
        for (int64_t o = 0; o < outer; ++o)
          for (const Piece& p : pieces)
            std::memcpy(d.slots[static_cast<size_t>(p.slot)].ptr + o * p.bytes, src + o * row + p.offset,
                        static_cast<size_t>(p.bytes));
        return Error::Ok;
      },
      c.what, "split");
  return Error::Ok;
}

Error build_expand(Ctx& c) {
  add_broadcast_copy(c.d, c.input(0), c.output(), c.what);
  return Error::Ok;
}

// oneDNN 2.6 names a concat's sources DNNL_ARG_MULTIPLE_SRC + i: from the
// 3073rd on, the ids reach DNNL_ARG_ATTR_ZERO_POINTS (4096) and execute
// fails ("could not execute a primitive", exactly from 3073 sources on).
constexpr size_t kMaxConcatSources = DNNL_ARG_ATTR_ZERO_POINTS - DNNL_ARG_MULTIPLE_SRC;

namespace {

// A concat some of whose operands a convolution (or a step after one) left
// in a blocked layout writes a layout oneDNN chooses from theirs (each
// operand is copied into its slab as it is), so that the convolutions
// around it (DenseNet, SqueezeNet's fire modules, Inception) read and write
// their own layouts: made plain, squeezenet1_1 ran 36 reorders a run, to
// plain before each concat and back after. Only a layout without padding
// (every operand a whole number of channel blocks) is taken, else the
// result is plain; where oneDNN picks plain (a plain operand first, as in
// ShuffleNet's concat of a channel split with a branch) the operands are
// still read in their own layouts, one pass each. Returns false (nothing
// built) when oneDNN takes none of it, and the concat reads plain operands.
bool build_blocked_concat(Ctx& c, int axis) {
  const auto out = dnnl_dims(c.shape(c.output()));
  if (c.d.slots[static_cast<size_t>(c.output())].io) return false;
  bool any_blocked = false;
  std::vector<memory::desc> srcs;
  for (int32_t s : c.in.inputs) {
    if (dnnl_dims(c.shape(s)).size() != out.size()) return false;
    any_blocked |= c.d.slots[static_cast<size_t>(s)].blocked_buffer >= 0;
    srcs.push_back(c.d.layout(s));
  }
  if (!any_blocked) return false;
  const memory::desc want(out, kF32, memory::format_tag::any);
  dnnl::concat::primitive_desc pd;
  try {
    pd = dnnl::concat::primitive_desc(want, axis, srcs, c.d.engine, c.d.attr());
  } catch (const dnnl::error&) {
    return false;  // No implementation for these layouts.
  }
  const SlotState& y = c.d.slots[static_cast<size_t>(c.output())];
  if (pd.dst_desc().get_size() != y.nbytes()) {
    // A padded layout: the result is plain, still read from each operand's
    // own layout (no reorder to plain before the concat).
    try {
      pd = dnnl::concat::primitive_desc(md_of(out), axis, srcs, c.d.engine, c.d.attr());
    } catch (const dnnl::error&) {
      return false;
    }
  }
  const memory::desc chosen = pd.dst_desc();
  Args args;
  for (size_t i = 0; i < srcs.size(); ++i)
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = c.d.src_as(c.input(i), srcs[i]);
  args[DNNL_ARG_DST] = c.d.dst(c.output(), chosen);
  const char* name = plain_like(chosen, y) ? "concat (of blocked)" : "concat (blocked)";
  c.d.add(dnnl::concat(pd), pd, std::move(args), c.what, name);
  return true;
}

}  // namespace

// A wider concat is several, each writing its slab of the result through a
// view with the result's strides.
Error build_concat(Ctx& c) {
  const auto out = dnnl_dims(c.shape(c.output()));
  const auto axis = static_cast<int>(normalize(c.int_attr("dim"), static_cast<int64_t>(out.size())));
  require(axis >= 0 && static_cast<size_t>(axis) < out.size(),
          "concat dim " + std::to_string(c.int_attr("dim")) + " of a result of rank " +
              std::to_string(out.size()));
  const size_t n = c.in.inputs.size();
  if (n == 0) return bad(c, "expected at least one operand");
  if (n <= kMaxConcatSources && build_blocked_concat(c, axis)) return Error::Ok;
  const memory::desc dst = md_of(out);
  if (n > kMaxConcatSources) c.d.define_plain(c.output());
  const auto strides = plain_strides(out);
  int64_t at = 0;  // Where the slab starts along the axis.
  for (size_t first = 0; first < n; first += kMaxConcatSources) {
    const size_t count = std::min(kMaxConcatSources, n - first);
    std::vector<memory::desc> srcs;
    srcs.reserve(count);
    memory::dims slab = out;
    slab[static_cast<size_t>(axis)] = 0;
    for (size_t i = first; i < first + count; ++i) {
      const auto dims = dnnl_dims(c.shape(c.input(i)));
      require(dims.size() == out.size(), "concat operand " + std::to_string(i) + " of shape " + shape_string(dims) +
                                             " into a result of rank " + std::to_string(out.size()));
      srcs.push_back(md_of(dims));
      slab[static_cast<size_t>(axis)] += dims[static_cast<size_t>(axis)];
    }
    const memory::desc slab_md = count == n ? dst : memory::desc(slab, kF32, strides);
    if (count < n) {
      // Each slab runs on the threads its own size is worth.
      int64_t elements = 1;
      for (int64_t v : slab) elements *= v;
      c.d.step_threads = elements < kParallelElements ? 1 : c.d.threads;
      omp_set_num_threads(c.d.step_threads);
    }
    dnnl::concat::primitive_desc pd(slab_md, axis, srcs, c.d.engine, c.d.attr());
    Args args;
    for (size_t i = 0; i < count; ++i)
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = c.d.src(c.input(first + i), srcs[i]);
    const auto offset = static_cast<size_t>(at * strides[static_cast<size_t>(axis)]) * 4;
    args[DNNL_ARG_DST] = count == n ? c.d.dst(c.output(), dst) : c.d.src(c.output(), slab_md, offset);
    c.d.add(dnnl::concat(pd), pd, std::move(args), c.what, "concat");
    at += slab[static_cast<size_t>(axis)];
  }
  return Error::Ok;
}

// ---- elementwise -----------------------------------------------------------------

// The unary instruction (or mish written out) and the unary chain after it
// as one eltwise step with the rest as post-ops, in x's layout.
Error build_unary(Ctx& c) {
  std::vector<Eltwise> ops;
  std::string name;
  const int32_t x = c.input(0);
  int32_t y = c.output();
  const int32_t mish = c.in.op == "softplus" ? match_mish(c, static_cast<int32_t>(c.index), x) : -1;
  if (mish >= 0) {
    ops.push_back({algorithm::eltwise_mish, 0.f, 0.f});
    name = "mish";
    y = c.at(mish).outputs[0];
  } else {
    ops = eltwise_of(c.in);
    name = c.in.op;
  }
  if (ops.empty()) return bad(c, "no eltwise mapping");
  y = absorb_eltwise(c, y, ops, name);
  memory::desc md = c.d.layout(x);
  // oneDNN 2.6's reference eltwise, the one that takes post-ops, writes
  // nothing for a 1-D tensor (its result was whatever the memory held): a
  // fused chain on a 1-D value or a scalar reads it as [1, n].
  if (ops.size() > 1 && md.dims().size() == 1) md = md_of({1, md.dims()[0]});
  dnnl::post_ops post;
  append_eltwise(post, std::vector<Eltwise>(ops.begin() + 1, ops.end()));
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  dnnl::eltwise_forward::desc desc(kInference, ops[0].alg, md, ops[0].alpha, ops[0].beta);
  dnnl::eltwise_forward::primitive_desc pd(desc, attr, c.d.engine);
  memory from = c.d.src_as(x, md);
  c.d.add(dnnl::eltwise_forward(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(y, md)}}, c.what, name);
  return Error::Ok;
}

// `bd` is one value per channel of `o` (rank 3 to 5, batch and channel
// dims whole or 1, spatial dims 1), and not `o` itself.
bool per_channel_dims(const memory::dims& bd, const memory::dims& o) {
  if (o.size() < 3 || o.size() > 5 || bd.size() != o.size() || bd == o) return false;
  if ((bd[0] != o[0] && bd[0] != 1) || (bd[1] != o[1] && bd[1] != 1)) return false;
  for (size_t i = 2; i < o.size(); ++i)
    if (bd[i] != 1) return false;
  return true;
}

// A blocked value `a` by one value per channel `b` (a squeeze-excitation's
// scale, [N, C, 1, 1]) as one binary step in a's layout, so that the
// convolutions on either side keep theirs (made plain, EfficientNet-B0 ran
// 17 reorders each way); where oneDNN has only its reference code for it,
// the delegate's loop in that layout (runtime_channel_own.cpp). False
// (nothing built) when a is not blocked or neither takes it.
bool add_per_channel_binary(Ctx& c, algorithm alg, std::string_view opname, int32_t a, int32_t b,
                            const memory::dims& bd, int32_t y, const std::vector<Eltwise>& ops,
                            const std::string& name) {
  if (c.d.slots[static_cast<size_t>(a)].blocked_buffer < 0 || c.d.slots[static_cast<size_t>(b)].dtype != DType::Float32)
    return false;
  dnnl::post_ops post;
  append_eltwise(post, ops);
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  const memory::desc md = c.d.layout(a), bmd = md_of(bd);
  dnnl::binary::desc desc(alg, md, bmd, md);
  dnnl::binary::primitive_desc pd(desc, attr, c.d.engine);
  // Not on oneDNN's reference code (a channel count off the block, as in
  // RegNet's 104 or 440 channels): 1.8 ms a call.
  if (on_reference_code(pd))
    return add_per_channel_loop(c, opname, a, b, bd, y, ops, name);
  memory s0 = c.d.src_as(a, md), s1 = c.d.src(b, bmd);
  c.d.add(dnnl::binary(pd), pd, {{DNNL_ARG_SRC_0, s0}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, c.d.dst(y, md)}}, c.what,
          name + " (per channel)");
  return true;
}

// out = a op b with numpy broadcasting, then the unary chain that follows as
// post-ops. Same shapes keep a's layout (b is brought into it), as does a
// blocked `a` by one value per channel (add_per_channel_binary); otherwise
// plain. oneDNN broadcasts only src1, so an `a` smaller than the result is
// first broadcast into the output, which then serves as src0 in place.
// `b_dims` (optional) describes b in the result's rank when numpy's
// right-aligned rule is not the one meant (per-channel affine parameters).
void add_binary(Ctx& c, algorithm alg, bool commutative, int32_t a, int32_t b, int32_t out, const char* opname,
                const memory::dims& b_dims = {}, bool fuse = true) {
  const auto o = dnnl_dims(c.shape(out));
  auto ad = pad_left(dnnl_dims(c.shape(a)), o.size());
  auto bd = b_dims.empty() ? pad_left(dnnl_dims(c.shape(b)), o.size()) : b_dims;
  if (ad != o && bd == o && commutative) {
    std::swap(a, b);
    std::swap(ad, bd);
  }
  std::vector<Eltwise> ops;
  std::string name = opname;
  const int32_t y = fuse ? absorb_eltwise(c, out, ops, name) : out;
  const bool same = c.shape(a) == c.shape(out) && c.shape(b) == c.shape(out);
  if (!same && ad == o && per_channel_dims(bd, o) && add_per_channel_binary(c, alg, opname, a, b, bd, y, ops, name))
    return;
  // Broadcasting, or small and plain: the delegate's own loop.
  const bool plain = plain_like(c.d.layout(a), c.d.slots[static_cast<size_t>(a)]) &&
                     plain_like(c.d.layout(b), c.d.slots[static_cast<size_t>(b)]);
  if (b_dims.empty() && (!same || (plain && c.d.slots[static_cast<size_t>(out)].numel() < kParallelElements)) &&
      add_binary_loop(c, opname, a, b, y, ops, name))
    return;
  dnnl::post_ops post;
  append_eltwise(post, ops);
  dnnl::primitive_attr attr = c.d.attr();
  attr.set_post_ops(post);
  if (same) {
    // Same shapes: a's layout.
    const memory::desc md = c.d.layout(a);
    dnnl::binary::desc desc(alg, md, md, md);
    dnnl::binary::primitive_desc pd(desc, attr, c.d.engine);
    memory s0 = c.d.src_as(a, md), s1 = c.d.src_as(b, md);
    c.d.add(dnnl::binary(pd), pd, {{DNNL_ARG_SRC_0, s0}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, c.d.dst(y, md)}}, c.what,
            name);
    return;
  }
  memory src0;
  const memory::desc omd = md_of(o);
  if (ad == o) {
    src0 = c.d.src(a, omd);
  } else {
    add_broadcast_copy(c.d, a, out, c.what);
    src0 = c.d.src(out, omd);
  }
  const memory::desc bmd = md_of(bd);
  dnnl::binary::desc desc(alg, omd, bmd, omd);
  dnnl::binary::primitive_desc pd(desc, attr, c.d.engine);
  memory s1 = c.d.src(b, bmd);
  // In place over `out` when a was broadcast into it: y is out then, or a
  // later slot sharing nothing with it, either way plain.
  memory dst = y == out && ad != o ? c.d.src(out, omd) : c.d.dst(y, omd);
  c.d.add(dnnl::binary(pd), pd, {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, s1}, {DNNL_ARG_DST, dst}}, c.what, name);
}

Error build_binary(Ctx& c) {
  const std::string_view op = c.in.op;
  struct Row {
    std::string_view name;
    algorithm alg;
    bool commutative;
  };
  static constexpr Row kRows[] = {
      {"add", algorithm::binary_add, true},     {"sub", algorithm::binary_sub, false},
      {"mul", algorithm::binary_mul, true},     {"div", algorithm::binary_div, false},
      {"maximum", algorithm::binary_max, true}, {"minimum", algorithm::binary_min, true},
  };
  for (const Row& r : kRows)
    if (r.name == op) {
      add_binary(c, r.alg, r.commutative, c.input(0), c.input(1), c.output(), c.in.op.c_str());
      return Error::Ok;
    }
  return bad(c, "no binary mapping");
}

// ---- pooling -------------------------------------------------------------------------

Error build_pool(Ctx& c) {
  const std::string_view op = c.in.op;
  const auto& x = c.shape(c.input(0));
  const auto& y = c.shape(c.output());
  require(x.size() >= 3 && x.size() <= 5 && y.size() == x.size(),
          "a pooling of " + shape_string(x) + " into " + shape_string(y) + ": expected equal ranks of 3 to 5");
  const size_t nd = x.size() - 2;
  require(edgec::spatial_sizes_ok(c.attrs(), {"kernel_size", "stride", "dilation", "padding"}, nd),
          "spatial attributes (kernel_size, stride, dilation, padding) of another length than the " +
              std::to_string(nd) + " spatial dims");
  require(edgec::spatial_values_in(c.attrs(), {"kernel_size", "stride", "dilation", "padding"}, 0, INT32_MAX),
          "pooling attributes out of range: kernel_size, stride, dilation and padding must lie in [0, 2^31)");
  memory::dims k(nd), s(nd), dil(nd, 0), pl(nd, 0), pr(nd, 0);
  algorithm alg = algorithm::pooling_max;
  if (op == "adaptive_avg_pool") {
    // Taken only when each output size divides its input size: then every
    // window has the same size and no padding.
    for (size_t i = 0; i < nd; ++i) {
      require(y[2 + i] > 0, "an adaptive pooling to " + shape_string(y) + ": expected no empty dim");
      k[i] = s[i] = x[2 + i] / y[2 + i];
    }
    alg = algorithm::pooling_avg_exclude_padding;
  } else {
    const Attrs& a = c.attrs();
    const auto kernel = edgec::spatial_ints(a, "kernel_size", nd, 1);
    const auto stride = edgec::spatial_ints(a, "stride", nd, 0);
    const auto dilation = edgec::spatial_ints(a, "dilation", nd, 1);
    std::vector<int64_t> pb, pe;
    edgec::spatial_padding(a, nd, pb, pe);
    for (size_t i = 0; i < nd; ++i) {
      k[i] = kernel[i];
      s[i] = stride[i] > 0 ? stride[i] : kernel[i];
      dil[i] = dilation[i] - 1;
      pl[i] = pb[i];
      pr[i] = edgec::pool_pad_right(x[2 + i], y[2 + i], k[i], s[i], dilation[i], pb[i]);
      if (pr[i] < 0) return bad(c, "no right padding gives the output size");
    }
    if (op == "avg_pool")
      alg = c.bool_attr("count_include_pad") ? algorithm::pooling_avg_include_padding
                                                  : algorithm::pooling_avg_exclude_padding;
  }
  // In the input's layout; a blocked input gives a blocked result.
  // oneDNN pools plain NCHW with its reference code (8 ms of ResNet-18's
  // max pool, BACKGROUND.md), and plain NCDHW hardly faster (a 2x2x2 max
  // pool of 32x16x64x64: 25 ms, against 1 ms on the portable kernel): a
  // 2-D or 3-D pool of a plain input reads it reordered to the blocked
  // layout instead.
  memory::desc src = c.d.layout(c.input(0));
  if ((nd == 2 || nd == 3) && src == plain_md(x) && x[1] % 8 == 0)
    src = memory::desc(dnnl_dims(x), kF32, nd == 2 ? memory::format_tag::nChw8c : memory::format_tag::nCdhw8c);
  const bool blocked = src != plain_md(x);
  const memory::desc want = blocked ? memory::desc(dnnl_dims(y), kF32, memory::format_tag::any) : plain_md(y);
  dnnl::pooling_v2_forward::desc desc(kInference, alg, src, want, s, k, dil, pl, pr);
  dnnl::pooling_v2_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  // A dilated 2-D max pool on oneDNN's reference code: the own loop
  // (runtime_pool_own.cpp).
  if (alg == algorithm::pooling_max && std::any_of(dil.begin(), dil.end(), [](int64_t v) { return v > 0; }) &&
      on_reference_code(pd)) {
    memory::dims dilation(dil);
    for (auto& v : dilation) v += 1;
    if (build_dilated_max_pool(c, k, s, dilation, pl)) return Error::Ok;
  }
  memory from = c.d.src_as(c.input(0), src);
  c.d.add(dnnl::pooling_v2_forward(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(c.output(), pd.dst_desc())}},
          c.what, std::string(op));
  return Error::Ok;
}

// ---- resampling --------------------------------------------------------------------------

// upsample_bilinear (half-pixel: oneDNN's linear resampling maps output
// pixel centres as torch does with align_corners false, the source
// coordinate clamped at the borders) and upsample_nearest by integer
// factors (oneDNN's round((o + 1/2) * in / out - 1/2) is then torch's
// floor(o * in / out)); the partitioner checks both. Like pooling, in the
// input's layout, a plain input with channels in eights read blocked.
Error build_resample(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto& y = c.shape(c.output());
  require(x.size() >= 3 && x.size() <= 5 && y.size() == x.size() && x[0] == y[0] && x[1] == y[1],
          "a resampling of " + shape_string(x) + " into " + shape_string(y) +
              ": expected equal ranks of 3 to 5 and the same batch and channels");
  const size_t nd = x.size() - 2;
  memory::desc src = c.d.layout(c.input(0));
  if ((nd == 2 || nd == 3) && src == plain_md(x) && x[1] % 8 == 0)
    src = memory::desc(dnnl_dims(x), kF32, nd == 2 ? memory::format_tag::nChw8c : memory::format_tag::nCdhw8c);
  const bool blocked = src != plain_md(x);
  const memory::desc want = blocked ? memory::desc(dnnl_dims(y), kF32, memory::format_tag::any) : plain_md(y);
  const algorithm alg = c.in.op == "upsample_nearest" ? algorithm::resampling_nearest : algorithm::resampling_linear;
  dnnl::resampling_forward::desc desc(kInference, alg, src, want);
  dnnl::resampling_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  memory from = c.d.src_as(c.input(0), src);
  c.d.add(dnnl::resampling_forward(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(c.output(), pd.dst_desc())}},
          c.what, c.in.op);
  return Error::Ok;
}

// ---- normalization -----------------------------------------------------------------------

Error build_softmax(Ctx& c, bool log) {
  const auto& x = c.shape(c.input(0));
  const int64_t rank = std::max<int64_t>(static_cast<int64_t>(x.size()), 1);
  const auto axis = static_cast<int>(normalize(c.int_attr("dim"), rank));
  const memory::desc md = plain_md(x);
  dnnl::softmax_v2_forward::desc desc(kInference, log ? algorithm::softmax_log : algorithm::softmax_accurate, md, md,
                                      axis);
  dnnl::softmax_v2_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  memory from = c.d.src(c.input(0), md);
  c.d.add(dnnl::softmax_v2_forward(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(c.output(), md)}}, c.what,
          c.in.op);
  return Error::Ok;
}

Error build_layer_norm(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const auto rank = static_cast<int64_t>(x.size());
  const auto axis = static_cast<size_t>(normalize(c.int_attr("axis"), rank));
  int64_t rows = 1, cols = 1;
  for (size_t i = 0; i < x.size(); ++i) (i < axis ? rows : cols) *= x[i];
  const auto eps = static_cast<float>(c.float_attr("eps"));
  const int32_t scale = c.in.inputs.size() > 1 ? c.input(1) : -1;
  const int32_t shift = c.in.inputs.size() > 2 ? c.input(2) : -1;
  const memory::desc md = md_of({rows, cols});
  auto flags = dnnl::normalization_flags::none;
  if (scale >= 0) flags |= dnnl::normalization_flags::use_scale;
  if (shift >= 0) flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc desc(kInference, md, eps, flags);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  Args args{{DNNL_ARG_SRC, c.d.src(c.input(0), md)}};
  if (scale >= 0) args[DNNL_ARG_SCALE] = c.d.src(scale, md_of({cols}));
  if (shift >= 0) args[DNNL_ARG_SHIFT] = c.d.src(shift, md_of({cols}));
  args[DNNL_ARG_DST] = c.d.dst(c.output(), md);
  c.d.add(dnnl::layer_normalization_forward(pd), pd, std::move(args), c.what, "layer_norm");
  return Error::Ok;
}

// oneDNN's across-channel LRN is ONNX's for an odd size (the check refuses
// even ones): k + alpha / size * the sum of squares over size channels
// centred on c, to the power -beta.
Error build_lrn(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  const memory::desc md = plain_md(x);
  dnnl::lrn_forward::desc desc(kInference, algorithm::lrn_across_channels, md, c.int_attr("size"),
                               static_cast<float>(c.float_attr("alpha")), static_cast<float>(c.float_attr("beta")),
                               static_cast<float>(c.float_attr("bias")));
  dnnl::lrn_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  c.d.add(dnnl::lrn_forward(pd), pd, {{DNNL_ARG_SRC, c.d.src(c.input(0), md)}, {DNNL_ARG_DST, c.d.dst(c.output(), md)}},
          c.what, "lrn");
  return Error::Ok;
}

Error build_batch_norm(Ctx& c) {
  const auto& x = c.shape(c.input(0));
  require(x.size() >= 2 && x.size() <= 5, "a batch norm of " + shape_string(x) + ": expected rank 2 to 5");
  const memory::desc md = c.d.layout(c.input(0)), cmd = md_of({x[1]});
  const auto eps = static_cast<float>(c.float_attr("eps"));
  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  // A ReLU after it (DenseNet's batch_norm -> relu -> conv) is oneDNN's
  // fuse_norm_relu, in the same pass.
  int32_t y = c.output();
  std::string name = "batch_norm";
  const int32_t next = sole_consumer(c.d, y);
  if (next >= 0 && !c.d.fused[static_cast<size_t>(next)] && c.at(next).inputs.size() == 1 &&
      c.at(next).outputs.size() == 1) {
    const std::vector<Eltwise> ops = eltwise_of(c.at(next));
    if (ops.size() == 1 && ops[0].alg == algorithm::eltwise_relu && ops[0].alpha == 0.f) {
      flags |= dnnl::normalization_flags::fuse_norm_relu;
      c.d.fused[static_cast<size_t>(next)] = true;
      y = c.at(next).outputs[0];
      name += "+relu";
    }
  }
  dnnl::batch_normalization_forward::desc desc(kInference, md, eps, flags);
  dnnl::batch_normalization_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  Args args{{DNNL_ARG_SRC, c.d.src_as(c.input(0), md)},
            {DNNL_ARG_SCALE, c.d.src(c.input(1), cmd)},
            {DNNL_ARG_SHIFT, c.d.src(c.input(2), cmd)},
            {DNNL_ARG_MEAN, c.d.src(c.input(3), cmd)},
            {DNNL_ARG_VARIANCE, c.d.src(c.input(4), cmd)}};
  args[DNNL_ARG_DST] = c.d.dst(y, md);
  c.d.add(dnnl::batch_normalization_forward(pd), pd, std::move(args), c.what, name);
  return Error::Ok;
}

// ---- reductions -----------------------------------------------------------------------------

Error build_reduce(Ctx& c) {
  const std::string_view op = c.in.op;
  const auto& x = c.shape(c.input(0));
  const auto reduced = edgec::reduced_dims(c.attrs(), static_cast<int>(x.size()));
  memory::dims o = dnnl_dims(x);
  bool any = false;
  for (size_t i = 0; i < x.size(); ++i)
    if (reduced[i] && x[i] != 1) {
      o[i] = 1;
      any = true;
    }
  // oneDNN rejects a reduction that reduces nothing; the values are unchanged.
  if (!any) return build_copy(c);
  // The mean over every spatial dim of a blocked value (global average
  // pooling, keeping the dims: a squeeze-excitation's first step) is an
  // average pooling over the whole plane, in the value's layout: a
  // reduction would read it plain, after a reorder.
  const SlotState& xs = c.d.slots[static_cast<size_t>(c.input(0))];
  if (op == "mean" && xs.blocked_buffer >= 0 && x.size() >= 3 && x.size() <= 5 && c.shape(c.output()) == o &&
      o[0] == x[0] && o[1] == x[1] && std::all_of(o.begin() + 2, o.end(), [](int64_t v) { return v == 1; })) {
    const size_t nd = x.size() - 2;
    memory::dims k(nd), st(nd), zero(nd, 0);
    for (size_t i = 0; i < nd; ++i) k[i] = st[i] = x[2 + i];
    const memory::desc src = c.d.layout(c.input(0));
    const memory::desc want(o, kF32, memory::format_tag::any);
    dnnl::pooling_v2_forward::desc desc(kInference, algorithm::pooling_avg_exclude_padding, src, want, st, k, zero,
                                        zero, zero);
    dnnl::pooling_v2_forward::primitive_desc pd(desc, c.d.attr(), c.d.engine);
    memory from = c.d.src_as(c.input(0), src);
    c.d.add(dnnl::pooling_v2_forward(pd), pd,
            {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(c.output(), pd.dst_desc())}}, c.what, "mean (pooled)");
    return Error::Ok;
  }
  algorithm alg = algorithm::reduction_sum;
  if (op == "mean") alg = algorithm::reduction_mean;
  else if (op == "amax") alg = algorithm::reduction_max;
  else if (op == "amin") alg = algorithm::reduction_min;
  else if (op == "prod") alg = algorithm::reduction_mul;
  const memory::desc src = plain_md(x), dst = md_of(o);
  dnnl::reduction::desc desc(alg, src, dst, 0.f, 0.f);
  dnnl::reduction::primitive_desc pd(desc, c.d.attr(), c.d.engine);
  memory from = c.d.src(c.input(0), src);
  c.d.add(dnnl::reduction(pd), pd, {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, c.d.dst(c.output(), dst)}}, c.what,
          std::string(op));
  return Error::Ok;
}

namespace {

// The instruction's threads: one when it is small.
int threads_for(const Ctx& c) {
  if (c.d.threads <= 1) return 1;
  const std::string_view op = c.in.op;
  int64_t out = 0;
  for (int32_t s : c.in.outputs) out += c.d.slots[static_cast<size_t>(s)].numel();
  if (op == "conv" || op == "conv_transpose") {
    const auto& w = c.shape(c.input(1));
    double per = 1;  // multiply-adds per output element
    for (size_t i = 1; i < w.size(); ++i) per *= static_cast<double>(w[i]);
    if (op == "conv_transpose") {
      const auto& x = c.shape(c.input(0));
      per = static_cast<double>(x[1]);
      for (size_t i = 2; i < w.size(); ++i) per *= static_cast<double>(w[i]);
    }
    return 2 * per * static_cast<double>(out) < kParallelFlops ? 1 : c.d.threads;
  }
  if (op == "matmul") {
    const auto& a = c.shape(c.input(0));
    const double k = a.empty() ? 1 : static_cast<double>(a.back());
    return 2 * k * static_cast<double>(out) < kParallelFlops ? 1 : c.d.threads;
  }
  if (op == "qlinear_conv" || op == "qlinear_matmul") {
    // Multiply-adds per output element: a convolution's weights per output
    // channel (their own shape: weights_shape where stored in oneDNN's
    // layout), a matmul's K; in f32 terms by what an int8 one costs here.
    double per = 1;
    if (op == "qlinear_conv") {
      const std::vector<int64_t>* stored = c.in.attrs.get_ints("weights_shape");
      const std::vector<int64_t>& w = stored ? *stored : c.shape(c.input(3));
      for (size_t i = 1; i < w.size(); ++i) per *= static_cast<double>(w[i]);
    } else {
      const auto& a = c.shape(c.input(0));
      per = a.empty() ? 1 : static_cast<double>(a.back());
    }
    return 2 * per * static_cast<double>(out) * int8_multiply_add_cost() < kParallelFlops ? 1 : c.d.threads;
  }
  if (op == "lstm" || op == "gru" || op == "rnn") {
    // W is [dirs, gates * hidden, input], R [dirs, gates * hidden, hidden]:
    // each time step and batch entry multiplies by both.
    const auto& x = c.shape(c.input(0));
    const double steps = x.size() == 3 ? static_cast<double>(x[0] * x[1]) : 1;
    const double weights = static_cast<double>(c.d.slots[static_cast<size_t>(c.input(1))].numel() +
                                               c.d.slots[static_cast<size_t>(c.input(2))].numel());
    return 2 * steps * weights < kParallelFlops ? 1 : c.d.threads;
  }
  int64_t in = 0;
  for (int32_t s : c.in.inputs) in = std::max(in, c.d.slots[static_cast<size_t>(s)].numel());
  return std::max(in, out) < kParallelElements ? 1 : c.d.threads;
}

}  // namespace

int64_t Ctx::int_attr(std::string_view name) const {
  return edgec::onednn::declared_attr(in.op, name).int_value(in.attrs);
}
double Ctx::float_attr(std::string_view name) const {
  return edgec::onednn::declared_attr(in.op, name).float_value(in.attrs);
}
bool Ctx::bool_attr(std::string_view name) const {
  return edgec::onednn::declared_attr(in.op, name).bool_value(in.attrs);
}

Error bad(const Ctx& c, const std::string& message) {
  return fail(Error::InvalidProgram, "onednn: " + c.what + ": " + message);
}

Error build_instruction(Delegate& d, const Program& program, size_t index) {
  const Instruction& in = program.instructions()[index];
  Ctx c{d, program, index, in, "instruction " + std::to_string(index) + " (" + in.op + ")"};
  if (in.outputs.empty()) return bad(c, "expected at least one output");
  const edgec::onednn::OpRow* row = edgec::onednn::find_op_row(in.op);
  if (!row) return fail(Error::NotSupported, "onednn: " + c.what + ": the operator is not supported by this runtime");
  // f32 throughout (the partitioner takes nothing else), the index
  // operands of the gather family aside (runtime_gather.cpp checks those).
  // (The message is made only for a slot that is not: a concat reads
  // 100,000 operands.)
  // A row moving bytes only takes u8 / i8 data too (OpRow::int8_data).
  const DType first = d.slots.at(static_cast<size_t>(in.inputs.empty() ? in.outputs[0] : in.inputs[0])).dtype;
  const bool int8 = row->int8_data && (first == DType::UInt8 || first == DType::Int8);
  auto f32 = [&](int32_t slot, const char* role, size_t i) {
    const DType t = d.slots.at(static_cast<size_t>(slot)).dtype;
    if (int8 ? t != first : t != DType::Float32)
      throw InvalidPayload(std::string(role) + " " + std::to_string(i) + " (slot " + std::to_string(slot) + ") is " +
                           std::string(dtype_name(t)) + ", expected " + std::string(dtype_name(int8 ? first : DType::Float32)));
  };
  // (A quantized row's builder checks its own operands' types.)
  for (size_t i = 0; i < in.inputs.size() && !row->quantized; ++i)
    if (row->index_from < 0 || i < static_cast<size_t>(row->index_from)) f32(in.inputs[i], "operand", i);
  for (size_t i = 0; i < in.outputs.size() && !row->quantized; ++i) f32(in.outputs[i], "result", i);
  // Primitives are created for the threads they run with (oneDNN sizes its
  // work split at creation).
  d.step_threads = threads_for(c);
  omp_set_num_threads(d.step_threads);
  return row->build(c);
}

}  // namespace edgec::runtime::onednn
