// The int8 delegates' tests (onednn_int8_test.cpp, xnnpack_int8_test.cpp):
// float(acc) * m of one output element of a qlinear_conv, the accumulator
// computed from the definition (docs/semantics.md §9), so that a
// difference between a delegate and the portable kernel can be explained
// (a tie: the product exactly halfway between two integers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/delegate_harness.h"

namespace edgec {

/// `c`: the case's geometry (x, k, stride, pad, dil: shapes and window;
/// groups, cout). `b`: what was built (y: the output shape; wv, bias: the
/// constants' values; m: the multiplier per output channel). `x`: the
/// input's values; `e`: the output element (row-major index into y).
template <typename Case, typename Built>
float qlinear_conv_product(const Case& c, const Built& b, int64_t x_zp, int64_t w_zp, const std::vector<float>& x,
                           int64_t e) {
  const size_t nd = c.x.size() - 2;
  std::vector<int64_t> idx(b.y.size());
  for (size_t d = b.y.size(), r = static_cast<size_t>(e); d-- > 0;) {
    idx[d] = static_cast<int64_t>(r) % b.y[d];
    r /= static_cast<size_t>(b.y[d]);
  }
  const int64_t n = idx[0], o = idx[1], cg = c.x[1] / c.groups, g = o / (c.cout / c.groups);
  int64_t acc = b.bias[static_cast<size_t>(o)];
  const int64_t taps = numel(c.k);
  for (int64_t ci = 0; ci < cg; ++ci)
    for (int64_t t = 0; t < taps; ++t) {
      int64_t xoff = n * c.x[1] + g * cg + ci, woff = o * cg + ci, rest = t;
      bool inside = true;
      std::vector<int64_t> kk(nd);
      for (size_t d = nd; d-- > 0;) {
        kk[d] = rest % c.k[d];
        rest /= c.k[d];
      }
      for (size_t d = 0; d < nd; ++d) {
        const int64_t pos = idx[2 + d] * c.stride[d] - c.pad[d] + kk[d] * c.dil[d];
        inside = inside && pos >= 0 && pos < c.x[2 + d];
        xoff = xoff * c.x[2 + d] + pos;
        woff = woff * c.k[d] + kk[d];
      }
      if (inside)
        acc += (static_cast<int64_t>(x[static_cast<size_t>(xoff)]) - x_zp) * (b.wv[static_cast<size_t>(woff)] - w_zp);
    }
  return static_cast<float>(acc) * b.m[static_cast<size_t>(o)];
}

}  // namespace edgec
