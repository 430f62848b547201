// An attribute list in one expression, for tests that call kernels or
// shape functions: attrs_of({{"dims", std::vector<int64_t>{0}}, {"keepdim", true}}).
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "base/attrs.h"

namespace edgec {

inline Attrs attrs_of(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs a;
  for (const auto& [k, v] : items) a.set(k, v);
  return a;
}

}  // namespace edgec
