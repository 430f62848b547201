#include "frontends/onnx/sym_int.h"

#include <algorithm>

namespace edgec::onnx_import {

SymInt SymInt::of_dim(const Dim& d, Value* source, int axis) {
  if (d.is_static()) return constant(d.value);
  return SymInt{1, {SymPart{d, source, axis}}};
}

std::string SymInt::str() const {
  if (parts.empty()) return std::to_string(factor);
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on "*" + str.
  std::string s;
  if (factor != 1) s.append(std::to_string(factor)).append("*");
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) s.append("*");
    s.append(parts[i].dim.str());
  }
  return s;
}

namespace {

/// Removes the parts of `b` from `a` (as multisets); false if one is missing.
bool remove_parts(std::vector<SymPart>& a, const std::vector<SymPart>& b) {
  for (const SymPart& p : b) {
    auto it = std::find_if(a.begin(), a.end(), [&](const SymPart& q) { return q.dim == p.dim; });
    if (it == a.end()) return false;
    a.erase(it);
  }
  return true;
}

}  // namespace

bool sym_equal(const SymInt& a, const SymInt& b) {
  if (a.factor != b.factor || a.parts.size() != b.parts.size()) return false;
  std::vector<SymPart> rest = a.parts;
  return remove_parts(rest, b.parts) && rest.empty();
}

std::optional<SymInt> sym_mul(const SymInt& a, const SymInt& b) {
  SymInt r;
  if (__builtin_mul_overflow(a.factor, b.factor, &r.factor)) return std::nullopt;
  if (r.factor == 0) return SymInt::constant(0);
  r.parts = a.parts;
  r.parts.insert(r.parts.end(), b.parts.begin(), b.parts.end());
  return r;
}

std::optional<SymInt> sym_add(const SymInt& a, const SymInt& b) {
  if (a.is_static() && b.is_static()) {
    int64_t s = 0;
    if (__builtin_add_overflow(a.factor, b.factor, &s)) return std::nullopt;
    return SymInt::constant(s);
  }
  if (a.is_static() && a.factor == 0) return b;
  if (b.is_static() && b.factor == 0) return a;
  // f*P + g*P = (f+g)*P
  std::vector<SymPart> rest = a.parts;
  if (a.parts.size() == b.parts.size() && remove_parts(rest, b.parts) && rest.empty()) {
    SymInt r{0, a.parts};
    if (__builtin_add_overflow(a.factor, b.factor, &r.factor)) return std::nullopt;
    if (r.factor == 0) return SymInt::constant(0);
    return r;
  }
  return std::nullopt;
}

std::optional<SymInt> sym_sub(const SymInt& a, const SymInt& b) {
  if (b.factor == INT64_MIN) return std::nullopt;
  SymInt neg = b;
  neg.factor = -b.factor;
  return sym_add(a, neg);
}

std::optional<SymInt> sym_div(const SymInt& a, const SymInt& b) {
  if (b.factor == 0) return std::nullopt;
  if (a.is_static() && b.is_static()) {
    if (a.factor == INT64_MIN && b.factor == -1) return std::nullopt;
    return SymInt::constant(a.factor / b.factor);
  }
  SymInt r{0, a.parts};
  if (!remove_parts(r.parts, b.parts) || a.factor % b.factor != 0) return std::nullopt;
  r.factor = a.factor / b.factor;
  return r;
}

std::optional<SymInt> sym_numel(const TensorType& type, Value* source, size_t begin, size_t end) {
  SymInt r = SymInt::constant(1);
  for (size_t i = begin; i < end; ++i) {
    const Dim& d = type.dims[i];
    if (d.is_static()) {
      if (__builtin_mul_overflow(r.factor, d.value, &r.factor)) return std::nullopt;
    } else {
      r.parts.push_back(SymPart{d, source, static_cast<int>(i)});
    }
  }
  if (r.factor == 0) r.parts.clear();
  return r;
}

}  // namespace edgec::onnx_import
