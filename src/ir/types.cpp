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

std::optional<int64_t> TensorType::max_numel() const {
  int64_t n = 1;
  for (const Dim& d : dims) {
    auto ub = d.upper_bound();
    if (!ub) return std::nullopt;
    if (*ub != 0 && n > INT64_MAX / *ub) return std::nullopt;
    n *= *ub;
  }
  return n;
}

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
