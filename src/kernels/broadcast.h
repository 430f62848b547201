// Numpy broadcasting and strided iteration for kernels that combine N
// operands element by element into one contiguous output (elementwise ops,
// where, casts, copies).
//
// StridedLoop does not visit elements one at a time: it coalesces the
// iteration shape (drops size-1 dims, merges dims every operand walks
// contiguously) and hands out rows, runs along the innermost dim with one
// stride per operand. A kernel specializes its row loop for stride 1 (and 0,
// a broadcast scalar) so that the common cases are plain vectorizable loops,
// and a fully contiguous tensor is a single row.
//
// An operand that is a transposed view walks memory with a large stride
// along the rows; visiting rows in order then touches a new cache line per
// element and uses it once. run_rows() instead visits short row pieces
// column block by column block (tiling), so each line fetched for the
// transposed operand serves the next rows too.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "base/error.h"
#include "kernels/tensor.h"

namespace edgec {

/// A shape held by value (no heap), e.g. the result of broadcasting.
struct StaticShape {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};

  std::span<const int64_t> dims() const { return {sizes.data(), static_cast<size_t>(rank)}; }
};

/// Checks that `t` has a rank in [0, kMaxRank] and non-negative sizes, so
/// that loops over it stay in bounds. `op` prefixes the error message.
Error check_tensor_layout(std::string_view op, const Tensor& t);

/// The numpy broadcast of the operands' shapes: shapes are aligned at their
/// last dim and each dim must be equal or 1 across operands. Fails with
/// InvalidShape ("<op>: cannot broadcast shapes [2, 3] and [4]") otherwise, or
/// when an operand's layout is invalid (see check_tensor_layout).
Result<StaticShape> broadcast_shapes(std::string_view op,
                                     std::initializer_list<const Tensor*> operands);

namespace detail {
/// Runs fn(ctx, i) for i in [0, chunks) on up to `chunks` OpenMP threads.
/// Kept out of line so that only broadcast.cpp needs OpenMP.
void run_parallel_chunks(int chunks, void (*fn)(void* ctx, int chunk), void* ctx);
}  // namespace detail

/// Below this many elements a kernel runs on the calling thread: thread
/// start-up costs more than the work.
inline constexpr int64_t kParallelMinElements = 32768;

/// Walks N operands over a common iteration shape in row-major order.
/// Operand k's element at index i of the shape is at element offset
/// sum(i[d] * stride_k[d]); an operand of lower rank or with a size-1 dim
/// broadcasts (stride 0 there), as do 0-strided views.
template <int N>
class StridedLoop {
 public:
  using Offsets = std::array<int64_t, N>;

  /// Every operand must broadcast to `shape` (e.g. checked by
  /// broadcast_shapes, or be `shape` itself, like the output).
  StridedLoop(std::span<const int64_t> shape, const std::array<const Tensor*, N>& operands) {
    const int rank = static_cast<int>(shape.size());
    numel_ = 1;
    for (int64_t d : shape) numel_ *= d;
    // Aligned strides, skipping size-1 dims: they never advance any operand.
    rank_ = 0;
    for (int d = 0; d < rank; ++d) {
      if (shape[d] == 1) continue;
      sizes_[rank_] = shape[d];
      for (int k = 0; k < N; ++k) {
        const Tensor& t = *operands[k];
        const int td = d - (rank - t.rank);
        strides_[k][rank_] = (td < 0 || t.sizes[td] == 1) ? 0 : t.strides[td];
      }
      ++rank_;
    }
    // Merge a dim into the next inner one when every operand steps over the
    // pair as over one longer dim.
    int merged = 0;
    for (int d = 0; d < rank_; ++d) {
      bool can_merge = merged > 0;
      for (int k = 0; k < N && can_merge; ++k) {
        can_merge = strides_[k][merged - 1] == strides_[k][d] * sizes_[d];
      }
      if (can_merge) {
        sizes_[merged - 1] *= sizes_[d];
        for (int k = 0; k < N; ++k) strides_[k][merged - 1] = strides_[k][d];
      } else {
        sizes_[merged] = sizes_[d];
        for (int k = 0; k < N; ++k) strides_[k][merged] = strides_[k][d];
        ++merged;
      }
    }
    rank_ = merged;
    if (rank_ == 0) {  // a single element
      rank_ = 1;
      sizes_[0] = 1;
      for (int k = 0; k < N; ++k) strides_[k][0] = 0;
    }
    choose_tile_dim();
  }

  int64_t numel() const { return numel_; }
  /// Dims left after coalescing (1 for any contiguous same-shape walk).
  int rank() const { return rank_; }

  /// Calls row(offsets, strides, n) for consecutive rows covering the linear
  /// (row-major) element range [begin, end): offsets[k] is operand k's element
  /// offset of the row's first element, strides[k] its stride along the row.
  template <typename RowFn>
  void for_each_row(int64_t begin, int64_t end, RowFn&& row) const {
    if (begin >= end) return;
    const int inner = rank_ - 1;
    std::array<int64_t, kMaxRank> index{};
    Offsets offsets{};
    Offsets inner_strides{};
    int64_t rest = begin;
    for (int d = inner; d >= 0; --d) {
      index[d] = rest % sizes_[d];
      rest /= sizes_[d];
      for (int k = 0; k < N; ++k) offsets[k] += index[d] * strides_[k][d];
    }
    for (int k = 0; k < N; ++k) inner_strides[k] = strides_[k][inner];

    for (int64_t pos = begin; pos < end;) {
      const int64_t n = std::min(sizes_[inner] - index[inner], end - pos);
      row(static_cast<const Offsets&>(offsets), static_cast<const Offsets&>(inner_strides), n);
      pos += n;
      index[inner] += n;
      for (int k = 0; k < N; ++k) offsets[k] += n * inner_strides[k];
      for (int d = inner; d > 0 && index[d] == sizes_[d]; --d) {
        index[d] = 0;
        ++index[d - 1];
        for (int k = 0; k < N; ++k) offsets[k] += strides_[k][d - 1] - sizes_[d] * strides_[k][d];
      }
    }
  }

  /// Calls row(offsets, strides, n) (as for_each_row) on rows covering every
  /// element once, in an unspecified order: tiled when an operand is a
  /// transposed view, and split across up to `num_threads` threads when there
  /// are enough elements. `row` must be safe to call concurrently on
  /// disjoint rows and must not depend on the order.
  template <typename RowFn>
  void run_rows(int num_threads, RowFn&& row) const {
    // Work units: element ranges in row-major order, or tiles.
    const int64_t units = tile_dim_ < 0 ? numel_ : num_tiles();
    const int64_t max_chunks = numel_ / kParallelMinElements;
    const int chunks =
        static_cast<int>(std::min<int64_t>({num_threads, max_chunks, units}));
    if (chunks <= 1) {
      run_units(0, units, row);
      return;
    }
    struct Job {
      const StridedLoop* loop;
      RowFn* row;
      int64_t units;
      int chunks;
    } job{this, &row, units, chunks};
    detail::run_parallel_chunks(
        chunks,
        [](void* ctx, int chunk) {
          const Job& j = *static_cast<const Job*>(ctx);
          const int64_t base = j.units / j.chunks;
          const int64_t extra = j.units % j.chunks;
          const int64_t begin = base * chunk + std::min<int64_t>(chunk, extra);
          const int64_t end = begin + base + (chunk < extra ? 1 : 0);
          j.loop->run_units(begin, end, *j.row);
        },
        &job);
  }

  /// The dim whose rows run_rows() visits column block by column block, or
  /// -1 when it visits rows in order (for tests).
  int tile_dim() const { return tile_dim_; }

  /// Row length of a tile: 16 elements of a transposed operand are 16 cache
  /// lines (often on 16 pages), few enough to stay in L1 and the TLB while
  /// the next rows reuse them (measured: 16 beats 32 and 64 on a 2048^2
  /// transpose).
  static constexpr int64_t kTileWidth = 16;

 private:
  // Tiling pays off when some operand steps through memory along the rows
  // with a stride larger than along another dim: tile over that dim.
  void choose_tile_dim() {
    tile_dim_ = -1;
    const int inner = rank_ - 1;
    if (inner < 1) return;
    int worst = -1;
    int64_t worst_stride = 1;
    for (int k = 0; k < N; ++k) {
      const int64_t s = strides_[k][inner] < 0 ? -strides_[k][inner] : strides_[k][inner];
      if (s > worst_stride) {
        worst_stride = s;
        worst = k;
      }
    }
    if (worst < 0) return;
    int64_t best_stride = worst_stride;
    for (int d = 0; d < inner; ++d) {
      const int64_t s = strides_[worst][d] < 0 ? -strides_[worst][d] : strides_[worst][d];
      if (s != 0 && s < best_stride) {
        best_stride = s;
        tile_dim_ = d;
      }
    }
  }

  // Tiles: every index of the dims other than tile_dim_ and the innermost,
  // times the blocks of kTileWidth along the innermost dim.
  int64_t num_tiles() const {
    const int inner = rank_ - 1;
    if (numel_ == 0) return 0;
    int64_t n = (sizes_[inner] + kTileWidth - 1) / kTileWidth;
    for (int d = 0; d < inner; ++d) {
      if (d != tile_dim_) n *= sizes_[d];
    }
    return n;
  }

  template <typename RowFn>
  void run_units(int64_t begin, int64_t end, RowFn& row) const {
    if (tile_dim_ < 0) {
      for_each_row(begin, end, row);
      return;
    }
    const int inner = rank_ - 1;
    const int64_t blocks = (sizes_[inner] + kTileWidth - 1) / kTileWidth;
    Offsets inner_strides{};
    for (int k = 0; k < N; ++k) inner_strides[k] = strides_[k][inner];
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t col = (tile % blocks) * kTileWidth;
      const int64_t n = std::min(kTileWidth, sizes_[inner] - col);
      Offsets base{};
      for (int k = 0; k < N; ++k) base[k] = col * strides_[k][inner];
      int64_t rest = tile / blocks;
      for (int d = inner - 1; d >= 0; --d) {
        if (d == tile_dim_) continue;
        const int64_t i = rest % sizes_[d];
        rest /= sizes_[d];
        for (int k = 0; k < N; ++k) base[k] += i * strides_[k][d];
      }
      Offsets offsets = base;
      for (int64_t i = 0; i < sizes_[tile_dim_]; ++i) {
        row(static_cast<const Offsets&>(offsets), static_cast<const Offsets&>(inner_strides), n);
        for (int k = 0; k < N; ++k) offsets[k] += strides_[k][tile_dim_];
      }
    }
  }

  int rank_ = 0;
  int64_t numel_ = 0;
  std::array<int64_t, kMaxRank> sizes_{};
  std::array<std::array<int64_t, kMaxRank>, N> strides_{};
  int tile_dim_ = -1;
};

}  // namespace edgec
