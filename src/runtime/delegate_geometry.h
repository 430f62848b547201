// Attribute arithmetic a delegate's partitioner and runtime must agree on
// (the onednn and xnnpack delegates'): the partitioner refuses a call
// exactly when the runtime could not express it, so both read conv /
// pooling attributes through these helpers.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "base/attrs.h"

namespace edgec {

/// `name` as nd entries (default `dflt` when absent or empty).
inline std::vector<int64_t> spatial_ints(const Attrs& attrs, std::string_view name, size_t nd, int64_t dflt) {
  const std::vector<int64_t>* v = attrs.get_ints(name);
  if (v == nullptr || v->empty()) return std::vector<int64_t>(nd, dflt);
  // Always nd entries (a verified program has them; a corrupt payload may
  // not, and spatial_sizes_ok reports it).
  std::vector<int64_t> out(nd, dflt);
  for (size_t i = 0; i < nd && i < v->size(); ++i) out[i] = (*v)[i];
  return out;
}

/// True when every spatial attribute in `names` has no entries or nd of
/// them ('padding' may also have 2 * nd).
inline bool spatial_sizes_ok(const Attrs& attrs, std::initializer_list<std::string_view> names, size_t nd) {
  for (std::string_view name : names) {
    const std::vector<int64_t>* v = attrs.get_ints(name);
    if (v == nullptr || v->empty() || v->size() == nd) continue;
    if (name == "padding" && v->size() == 2 * nd) continue;
    return false;
  }
  return true;
}

/// 'padding' as begins and ends: nd entries (symmetric) or 2 * nd.
inline void spatial_padding(const Attrs& attrs, size_t nd, std::vector<int64_t>& begin, std::vector<int64_t>& end) {
  begin.assign(nd, 0);
  end.assign(nd, 0);
  const std::vector<int64_t>* v = attrs.get_ints("padding");
  if (v == nullptr || (v->size() != nd && v->size() != 2 * nd)) return;
  for (size_t i = 0; i < nd; ++i) {
    begin[i] = (*v)[i];
    end[i] = (*v)[v->size() == nd ? i : nd + i];
  }
}

/// The right padding a pooling with explicit padding (oneDNN's, XNNPACK's)
/// needs so that its floor formula, (in + pl + pr - ((k - 1) * d + 1)) / s
/// + 1, gives the `out` the graph inferred (torch's, which may round up
/// with ceil_mode). The smallest non-negative value that does, since
/// neither library takes negative padding; -1 if none does.
/// -1 too when the arithmetic would overflow (a corrupt attribute).
inline int64_t pool_pad_right(int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t pl) {
  // 128-bit: every operand is an int64, no term overflows.
  const __int128 needed = static_cast<__int128>(out - 1) * s + static_cast<__int128>(k - 1) * d + 1 - in - pl;
  if (needed > INT64_MAX || needed < -static_cast<__int128>(INT64_MAX)) return -1;
  if (needed >= 0) return static_cast<int64_t>(needed);
  return needed + s - 1 >= 0 ? 0 : -1;
}

/// True when every spatial attribute in `names` holds values in [lo, hi].
inline bool spatial_values_in(const Attrs& attrs, std::initializer_list<std::string_view> names, int64_t lo, int64_t hi) {
  for (std::string_view name : names)
    if (const std::vector<int64_t>* v = attrs.get_ints(name))
      for (int64_t x : *v)
        if (x < lo || x > hi) return false;
  return true;
}


/// Which dims a reduction (sum, mean, amax, ...) reduces: 'dims' as a list
/// or a single int; absent or empty reduces every dim.
inline std::vector<bool> reduced_dims(const Attrs& attrs, int rank) {
  std::vector<int64_t> list;
  if (const AttrValue* v = attrs.find("dims"); v && std::holds_alternative<int64_t>(*v)) {
    list = {std::get<int64_t>(*v)};
  } else if (const std::vector<int64_t>* l = attrs.get_ints("dims")) {
    list = *l;
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), list.empty());
  for (int64_t d : list) {
    const int64_t n = d < 0 ? d + rank : d;
    if (n >= 0 && n < rank) reduced[static_cast<size_t>(n)] = true;
  }
  return reduced;
}

}  // namespace edgec
