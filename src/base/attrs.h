// Literal arguments of an operator call (attributes): what the textual IR
// writes after the tensor operands, what the program file stores per
// instruction, and what kernels read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/dtype.h"

namespace edgec {

enum class AttrKind : uint8_t { Int, Float, Bool, String, Ints, Floats, DType };

/// std::monostate never appears in a stored attribute; it marks "absent".
using AttrValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                               std::vector<double>, DType>;

constexpr std::string_view attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::String: return "str";
    case AttrKind::Ints: return "int[]";
    case AttrKind::Floats: return "float[]";
    case AttrKind::DType: return "dtype";
  }
  return "?";
}

inline AttrKind attr_kind(const AttrValue& v) { return static_cast<AttrKind>(v.index()); }

/// Attributes by name. Lookups take string_view so that kernels reading them on
/// the execute path do not allocate.
class Attrs {
 public:
  void set(std::string name, AttrValue value) { values_[std::move(name)] = std::move(value); }
  bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
  const AttrValue* find(std::string_view name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  bool erase(std::string_view name) {
    auto it = values_.find(name);
    if (it == values_.end()) return false;
    values_.erase(it);
    return true;
  }

  // Typed getters with a default for absent attributes. An int attribute is
  // accepted where a float is asked for (the text form of 1.0 may be 1).
  int64_t get_int(std::string_view name, int64_t dflt = 0) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return dflt;
    if (auto* i = std::get_if<int64_t>(v)) return *i;
    if (auto* b = std::get_if<bool>(v)) return *b ? 1 : 0;
    return dflt;
  }
  double get_float(std::string_view name, double dflt = 0.0) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return dflt;
    if (auto* f = std::get_if<double>(v)) return *f;
    if (auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
    return dflt;
  }
  bool get_bool(std::string_view name, bool dflt = false) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return dflt;
    if (auto* b = std::get_if<bool>(v)) return *b;
    if (auto* i = std::get_if<int64_t>(v)) return *i != 0;
    return dflt;
  }
  std::string_view get_string(std::string_view name, std::string_view dflt = {}) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return dflt;
    if (auto* s = std::get_if<std::string>(v)) return *s;
    return dflt;
  }
  /// Returns nullptr when absent or not an int list.
  const std::vector<int64_t>* get_ints(std::string_view name) const {
    const AttrValue* v = find(name);
    return v == nullptr ? nullptr : std::get_if<std::vector<int64_t>>(v);
  }
  const std::vector<double>* get_floats(std::string_view name) const {
    const AttrValue* v = find(name);
    return v == nullptr ? nullptr : std::get_if<std::vector<double>>(v);
  }
  DType get_dtype(std::string_view name, DType dflt) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return dflt;
    if (auto* d = std::get_if<DType>(v)) return *d;
    return dflt;
  }

  /// Sorted by name, so printing and serialization are deterministic.
  const std::map<std::string, AttrValue, std::less<>>& items() const { return values_; }
  bool operator==(const Attrs& other) const { return values_ == other.values_; }

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

}  // namespace edgec
