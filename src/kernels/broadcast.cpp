#include "kernels/broadcast.h"

#include <string>

namespace edgec {

Error check_tensor_layout(std::string_view op, const Tensor& t) {
  if (t.rank < 0 || t.rank > kMaxRank) {
    return fail(Error::InvalidShape, std::string(op) + ": expected a rank in [0, " +
                                         std::to_string(kMaxRank) + "], got " +
                                         std::to_string(t.rank));
  }
  for (int d = 0; d < t.rank; ++d) {
    if (t.sizes[d] < 0) {
      return fail(Error::InvalidShape,
                  std::string(op) + ": negative size in shape " + shape_string(t.shape()));
    }
  }
  return Error::Ok;
}

Result<StaticShape> broadcast_shapes(std::string_view op,
                                     std::initializer_list<const Tensor*> operands) {
  StaticShape out;
  for (const Tensor* t : operands) {
    EDGEC_TRY(check_tensor_layout(op, *t));
    out.rank = std::max(out.rank, t->rank);
  }
  std::fill(out.sizes.begin(), out.sizes.begin() + out.rank, int64_t{1});
  for (const Tensor* t : operands) {
    const int lead = out.rank - t->rank;
    for (int d = 0; d < t->rank; ++d) {
      int64_t& o = out.sizes[lead + d];
      const int64_t s = t->sizes[d];
      if (s == o || s == 1) continue;
      if (o == 1) {
        o = s;
        continue;
      }
      std::string shapes;
      for (const Tensor* u : operands) {
        if (!shapes.empty()) shapes += " and ";
        shapes += shape_string(u->shape());
      }
      return fail(Error::InvalidShape, std::string(op) + ": cannot broadcast shapes " + shapes);
    }
  }
  return out;
}

namespace detail {

void run_parallel_chunks(int chunks, void (*fn)(void* ctx, int chunk), void* ctx) {
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int i = 0; i < chunks; ++i) fn(ctx, i);
}

}  // namespace detail
}  // namespace edgec
