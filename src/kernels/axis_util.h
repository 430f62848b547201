// Helpers shared by the reduction, scan and normalization kernels: dim
// wrapping, float16 widening (f16_compute.h), and StridedDims, a small description of a
// strided iteration space that several operands walk in lockstep.
//
// The kernels here all split a tensor into "lines" (the innermost dimension
// of an iteration space) and do the per-element work in a tight loop over a
// line; everything outside the line is walked by an odometer, so strided
// inputs cost one multiply per element and contiguous ones coalesce into a
// single long line.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "base/half.h"
#include "kernels/f16_compute.h"
#include "kernels/tensor.h"

namespace edgec::axis {

/// Wraps `dim` (which may be negative) into [0, rank). Returns -1 when out of
/// range. A rank-0 tensor accepts 0 and -1, like torch, and yields 0.
inline int wrap_dim(int64_t dim, int rank) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) return -1;
  return static_cast<int>(dim < 0 ? dim + r : dim);
}

using edgec::narrow;
using edgec::widen;

/// An iteration space of `rank` dims walked by `kOps` operands, each with its
/// own element strides. Size-1 dims are dropped when pushed; coalesce()
/// merges neighbours that every operand walks as one.
template <int kOps>
struct StridedDims {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<std::array<int64_t, kMaxRank>, kOps> strides{};

  void push(int64_t size, const std::array<int64_t, kOps>& st) {
    if (size == 1) return;
    sizes[rank] = size;
    for (int k = 0; k < kOps; ++k) strides[k][rank] = st[k];
    ++rank;
  }

  /// Merges dim i into dim i+1 when, for every operand, stepping dim i equals
  /// stepping all of dim i+1.
  void coalesce() {
    if (rank < 2) return;
    int out = 0;
    for (int i = 1; i < rank; ++i) {
      bool merge = true;
      for (int k = 0; k < kOps; ++k) {
        if (strides[k][out] != strides[k][i] * sizes[i]) merge = false;
      }
      if (merge) {
        sizes[out] *= sizes[i];
        for (int k = 0; k < kOps; ++k) strides[k][out] = strides[k][i];
      } else {
        ++out;
        sizes[out] = sizes[i];
        for (int k = 0; k < kOps; ++k) strides[k][out] = strides[k][i];
      }
    }
    rank = out + 1;
  }

  /// Reorders dims so operand 0's |stride| decreases towards the innermost
  /// dim (stride-0 broadcast dims go outermost): walking memory in order is
  /// what makes a permuted view cheap.
  void sort_by_first_operand() {
    auto key = [&](int i) {
      const int64_t s = std::llabs(strides[0][i]);
      return s == 0 ? INT64_MAX : s;
    };
    for (int i = 1; i < rank; ++i) {  // insertion sort: rank <= 8, stable
      for (int j = i; j > 0 && key(j - 1) < key(j); --j) {
        std::swap(sizes[j - 1], sizes[j]);
        for (int k = 0; k < kOps; ++k) std::swap(strides[k][j - 1], strides[k][j]);
      }
    }
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  /// The innermost dim is the line; rank 0 is one line of one element.
  int64_t line_len() const { return rank == 0 ? 1 : sizes[rank - 1]; }
  int64_t line_stride(int k) const { return rank == 0 ? 0 : strides[k][rank - 1]; }
  int64_t line_count() const {
    int64_t n = 1;
    for (int i = 0; i + 1 < rank; ++i) n *= sizes[i];
    return n;
  }
  /// Offset (for operand k) of the start of line `line`.
  int64_t line_offset(int64_t line, int k) const {
    int64_t off = 0;
    for (int i = rank - 2; i >= 0; --i) {
      off += (line % sizes[i]) * strides[k][i];
      line /= sizes[i];
    }
    return off;
  }
};

/// Calls fn(offsets) with the start offsets of lines [begin, end) of `d`, in
/// order; the caller walks each line with d.line_len() / d.line_stride(k).
template <int kOps, typename Fn>
inline void for_each_line(const StridedDims<kOps>& d, int64_t begin, int64_t end, Fn&& fn) {
  if (begin >= end) return;
  const int outer = d.rank > 0 ? d.rank - 1 : 0;
  std::array<int64_t, kMaxRank> idx{};
  std::array<int64_t, kOps> off{};
  int64_t rest = begin;
  for (int i = outer - 1; i >= 0; --i) {
    idx[i] = rest % d.sizes[i];
    rest /= d.sizes[i];
    for (int k = 0; k < kOps; ++k) off[k] += idx[i] * d.strides[k][i];
  }
  for (int64_t line = begin; line < end; ++line) {
    fn(off);
    for (int i = outer - 1; i >= 0; --i) {  // odometer step
      for (int k = 0; k < kOps; ++k) off[k] += d.strides[k][i];
      if (++idx[i] < d.sizes[i]) break;
      for (int k = 0; k < kOps; ++k) off[k] -= d.sizes[i] * d.strides[k][i];
      idx[i] = 0;
    }
  }
}

template <int kOps, typename Fn>
inline void for_each_line(const StridedDims<kOps>& d, Fn&& fn) {
  for_each_line(d, 0, d.line_count(), fn);
}

// GCC/Clang vector extensions: plain C++ that every target compiles (split
// into narrower registers where 256-bit ones do not exist).
typedef float Vec8f __attribute__((vector_size(32)));
typedef int32_t Vec8i __attribute__((vector_size(32)));

/// The largest (kMax) or smallest of p[0, n), contiguous; NaN if any element
/// is NaN (numpy's amax/amin), `init` when n == 0. Written with vector types
/// because GCC will not vectorize a NaN-propagating max reduction on its own.
template <bool kMax>
inline float extremum_contiguous(const float* p, int64_t n, float init) {
  auto pick = [](auto a, auto b) {
    if constexpr (kMax) {
      return b > a ? b : a;
    } else {
      return b < a ? b : a;
    }
  };
  Vec8f m0 = Vec8f{} + init;
  Vec8f m1 = m0;
  Vec8i nan = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Vec8f b0;
    Vec8f b1;
    std::memcpy(&b0, p + i, sizeof b0);
    std::memcpy(&b1, p + i + 8, sizeof b1);
    m0 = pick(m0, b0);
    m1 = pick(m1, b1);
    nan |= (b0 != b0) | (b1 != b1);
  }
  float m = init;
  bool any_nan = false;
  for (int l = 0; l < 8; ++l) {
    m = pick(pick(m, m0[l]), m1[l]);
    any_nan |= nan[l] != 0;
  }
  for (; i < n; ++i) {
    m = pick(m, p[i]);
    any_nan |= p[i] != p[i];
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : m;
}

/// Calls f(step) with step as a compile-time 1 when it is 1, so loops over
/// `p[j * step]` vectorize in the contiguous case without a second copy.
template <typename F>
inline void with_step(int64_t step, F&& f) {
  if (step == 1) {
    f(std::integral_constant<int64_t, 1>{});
  } else {
    f(step);
  }
}

/// Orders strides for "which dim is innermost in memory": |stride|, with
/// broadcast (stride 0) dims treated as outermost.
inline int64_t stride_key(int64_t s) { return s == 0 ? INT64_MAX : std::llabs(s); }

/// The iteration space of a kernel that works along one axis (a scan, an
/// arg reduction, softmax): every other dim, walked by input and output, plus
/// the axis itself. When the axis is the innermost dim in memory each output
/// line is processed on its own (`axis_innermost`); otherwise the kernel
/// sweeps the axis over vectors of neighbouring outputs, which keeps the
/// inner loop contiguous.
struct AxisPlan {
  StridedDims<2> outer;  // every dim but the axis: (input stride, output stride)
  int64_t len = 1;       // size of the axis
  int64_t in_stride = 0;
  int64_t out_stride = 0;
  bool axis_innermost = true;
};

/// `out_strides[i]` is the output's stride for input dim i (the axis's entry
/// is used as the output stride along the axis).
inline AxisPlan make_axis_plan(const Tensor& x, int dim, const int64_t* out_strides) {
  AxisPlan p;
  for (int i = 0; i < x.rank; ++i) {
    if (i != dim) p.outer.push(x.sizes[i], {x.strides[i], out_strides[i]});
  }
  p.outer.sort_by_first_operand();
  p.outer.coalesce();
  if (x.rank > 0) {
    p.len = x.sizes[dim];
    p.in_stride = x.strides[dim];
    p.out_stride = out_strides[dim];
  }
  p.axis_innermost = p.outer.rank == 0 || (p.len > 1 && stride_key(p.in_stride) <
                                                            stride_key(p.outer.line_stride(0)));
  return p;
}

/// How many outputs one parallel task covers when each output walks a whole
/// line of `line_len` elements: enough to amortize the task's index math.
inline int64_t outputs_per_task(int64_t line_len) {
  const int64_t n = 4096 / (line_len > 0 ? line_len : 1);
  return n < 1 ? 1 : (n > 256 ? 256 : n);
}

/// Outputs an outer-axis kernel sweeps together (a stack row of accumulators
/// each); outputs_per_task never exceeds it.
inline constexpr int64_t kChunk = 256;
/// Input elements before threads pay off.
inline constexpr int64_t kParallelMin = 32768;
/// Independent accumulators per line (they let a line's loop vectorize).
inline constexpr int kLanes = 16;

/// Threads for `tasks` tasks over `work` input elements.
inline int thread_count(int max_threads, int64_t work, int64_t tasks) {
  if (work < kParallelMin || max_threads <= 1 || tasks <= 1) return 1;
  return static_cast<int>(tasks < max_threads ? tasks : max_threads);
}

/// Runs a kernel that works along an axis over the outputs of `outer`
/// (walked by the input `x`, operand 0, and the output `y`, operand 1):
/// each line of `outer` is cut into tasks of up to `chunk` neighbouring
/// outputs, run in parallel when `work` input elements pay for threads.
/// body(in, out, n) gets a task's first output's place in x and in y and
/// its number of outputs.
template <typename In, typename Out, typename Body>
inline void run_tasks(const StridedDims<2>& outer, int64_t chunk, const In* x, Out* y, int max_threads, int64_t work,
                      Body&& body) {
  const int64_t len = outer.line_len();
  const int64_t chunks = (len + chunk - 1) / chunk;
  const int64_t tasks = outer.line_count() * chunks;
  const int threads = thread_count(max_threads, work, tasks);
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t line = t / chunks;
    const int64_t j0 = (t % chunks) * chunk;
    const int64_t n = len - j0 < chunk ? len - j0 : chunk;
    body(x + outer.line_offset(line, 0) + j0 * outer.line_stride(0),
         y + outer.line_offset(line, 1) + j0 * outer.line_stride(1), n);
  }
}

/// run_tasks over an AxisPlan's outputs: a task covers outputs_per_task
/// outputs when the axis is innermost (each walks a whole line), else kChunk
/// (swept together along the axis).
template <typename In, typename Out, typename Body>
inline void run_axis_tasks(const AxisPlan& plan, const In* x, Out* y, int max_threads, int64_t work, Body&& body) {
  const int64_t chunk = plan.axis_innermost ? outputs_per_task(plan.len) : kChunk;
  run_tasks(plan.outer, chunk, x, y, max_threads, work, body);
}

}  // namespace edgec::axis
