#include "ir/types.h"

namespace edgec {

std::string Dim::str() const {
  switch (kind) {
    case Kind::Static: return std::to_string(value);
    case Kind::Symbolic: return value < 0 ? symbol : symbol + "<=" + std::to_string(value);
    case Kind::Dynamic: return "?<=" + std::to_string(value);
  }
  return "?";
}

TensorType TensorType::of(DType d, const std::vector<int64_t>& shape) {
  TensorType t;
  t.dtype = d;
  for (int64_t s : shape) t.dims.push_back(Dim::fixed(s));
  return t;
}

bool TensorType::is_static() const {
  for (const Dim& d : dims)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> TensorType::static_shape() const {
  std::vector<int64_t> shape;
  shape.reserve(dims.size());
  for (const Dim& d : dims) shape.push_back(d.value);
  return shape;
}

namespace {

/// Overflow-checked element count and bytes of a type's bounded dims.
struct BoundedSize {
  bool unbounded = false;        ///< some dim has no upper bound (counted as 1)
  bool numel_overflows = false;  ///< the count exceeds INT64_MAX
  bool nbytes_overflows = false; ///< the bytes exceed INT64_MAX (also when the count does)
  int64_t numel = 1, nbytes = 0;
};

BoundedSize bounded_size(const TensorType& t) {
  BoundedSize s;
  for (const Dim& d : t.dims) {
    const auto ub = d.upper_bound();
    if (ub && *ub == 0) return BoundedSize{false, false, false, 0, 0};  // empty, however large the others
    if (!ub) s.unbounded = true;
  }
  for (const Dim& d : t.dims) {
    const auto ub = d.upper_bound();
    if (ub && !s.numel_overflows && __builtin_mul_overflow(s.numel, *ub, &s.numel)) s.numel_overflows = true;
  }
  s.nbytes_overflows = s.numel_overflows ||
                       __builtin_mul_overflow(s.numel, static_cast<int64_t>(dtype_size(t.dtype)), &s.nbytes);
  return s;
}

}  // namespace

std::optional<int64_t> TensorType::max_numel() const {
  const BoundedSize s = bounded_size(*this);
  if (s.unbounded || s.numel_overflows) return std::nullopt;
  return s.numel;
}

std::optional<int64_t> TensorType::max_nbytes() const {
  const BoundedSize s = bounded_size(*this);
  if (s.unbounded || s.nbytes_overflows) return std::nullopt;
  return s.nbytes;
}

bool TensorType::size_overflows() const { return bounded_size(*this).nbytes_overflows; }

std::string TensorType::str() const {
  std::string s(dtype_name(dtype));
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += dims[i].str();
  }
  return s + "]";
}

}  // namespace edgec
