#include "base/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace edgec {
namespace {

TEST(Half, RoundTripsEveryHalfValue) {
  for (uint32_t bits = 0; bits < 0x10000u; ++bits) {
    Half h{static_cast<uint16_t>(bits)};
    float f = half_to_float(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f).bits, h.bits) << "bits " << bits;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(float_to_half(1.0f).bits, 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f).bits, 0xc000);
  EXPECT_EQ(float_to_half(65504.0f).bits, 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f).bits, 0x7c00);  // rounds to infinity
  EXPECT_EQ(float_to_half(5.9604645e-08f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(2.9802322e-08f).bits, 0x0000);  // half of it: ties to even
  EXPECT_EQ(float_to_half(1.0009766f).bits, 0x3c01);
  EXPECT_EQ(float_to_half(1.00048828125f).bits, 0x3c00);  // tie, even stays
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(std::numeric_limits<float>::quiet_NaN()))));
}

}  // namespace
}  // namespace edgec
