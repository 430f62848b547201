// The dtypes added after the first program files (f64, i16, u16, u32, u64):
// a program that takes, computes on and returns each of them survives the
// text form, the program file and the runtime's load. Values are checked by
// hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/method.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

// %y = -%x and %s = amax(%x) of one dtype, %x a [3] input; a constant [3]
// tensor of the same dtype is added in so that the file carries its data.
std::string program(std::string_view d, const std::string& constant) {
  const std::string t = std::string(d);
  return "program dialect = \"edge\"\nsignature {\n  input user_input %x target = \"x\"\n"
         "  input constant %c target = \"c\"\n"
         "  output user_output %y target = \"y\"\n  output user_output %s target = \"s\"\n}\n"
         "graph {\n  %x = placeholder : " + t + "[3]\n"
         "  %c = placeholder : " + t + "[3]\n"
         "  %n = edge.neg.default(%x) : " + t + "[3]\n"
         "  %y = edge.add.Tensor(%n, %c) : " + t + "[3]\n"
         "  %s = edge.amax.default(%x) : " + t + "[]\n"
         "  output(%y, %s)\n}\n"
         "constants {\n  \"c\" = dense<[" + constant + "]> : " + t + "[3]\n}\n";
}

template <typename T>
void check_round_trip(DType dtype, std::vector<T> x, const std::string& constant_text, std::vector<T> constant) {
  SCOPED_TRACE(std::string(dtype_name(dtype)));
  CompiledProgram c(program(dtype_name(dtype), constant_text), "dtypes.ir", "none");
  ASSERT_TRUE(c.program);
  auto m = runtime::Method::create(*c.program);
  ASSERT_TRUE(m.ok()) << error_detail();
  const int64_t shape[] = {3};
  ASSERT_EQ((*m)->set_input(0, make_tensor(dtype, shape, x.data(), 0)), Error::Ok) << error_detail();
  ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
  const Tensor& y = (*m)->output(0);
  const Tensor& s = (*m)->output(1);
  ASSERT_EQ(y.dtype, dtype);
  ASSERT_EQ(s.dtype, dtype);
  T max = x[0];
  for (size_t i = 0; i < 3; ++i) {
    // Unsigned negation wraps; computed in the unsigned type of T's width.
    const T want = static_cast<T>(static_cast<T>(T{0} - x[i]) + constant[i]);
    EXPECT_EQ(y.data_as<T>()[i], want) << i;
    max = x[i] > max ? x[i] : max;
  }
  EXPECT_EQ(s.data_as<T>()[0], max);
}

TEST(RuntimeDTypes, NewDTypesRoundTripThroughTheProgramFile) {
  check_round_trip<double>(DType::Float64, {0.1, -2.5, 1e300}, "0.25, 1e-300, -1e300", {0.25, 1e-300, -1e300});
  check_round_trip<int16_t>(DType::Int16, {1, -300, 32767}, "-32768, 2, 3", {-32768, 2, 3});
  check_round_trip<uint16_t>(DType::UInt16, {1, 300, 65535}, "65535, 2, 3", {65535, 2, 3});
  check_round_trip<uint32_t>(DType::UInt32, {1, 300, 4294967295u}, "4294967295, 2, 3", {4294967295u, 2, 3});
  check_round_trip<uint64_t>(DType::UInt64, {1, 300, 1ull << 63}, "5, 2, 3", {5, 2, 3});
}

}  // namespace
}  // namespace edgec
