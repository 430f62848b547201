// Method::create takes 1 to Method::max_threads() threads (the machine's
// cores) and refuses any other count with InvalidArgument and a detail
// giving the range and the count; it used to pass a huge count on to
// OpenMP, which crashed (SIGSEGV in libgomp) on the first parallel kernel.
// The onednn delegate's init checks the count it is given too.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <memory>
#include <string>

#include "ir/text.h"
#include "compiler/pipeline.h"
#include "runtime/backend.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

constexpr const char* kProgram = R"(
program dialect = "aten"
signature {
  input user_input %x target = "x"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[64, 64]
  %r = aten.relu.default(%x) : f32[64, 64]
  %y = aten.matmul.default(%r, %r) : f32[64, 64]
  output(%y)
}
)";

void expect_refused(const runtime::Program& program, int threads) {
  auto m = runtime::Method::create(program, threads);
  ASSERT_FALSE(m.ok()) << threads << " threads accepted";
  EXPECT_EQ(m.error(), Error::InvalidArgument) << threads;
  const std::string want = "expected 1 to " + std::to_string(runtime::Method::max_threads()) +
                           " threads (the cores of this machine), got " + std::to_string(threads);
  EXPECT_EQ(error_detail(), want);
}

TEST(MethodThreads, OutsideOneToTheCoresIsRefused) {
#if EDGEC_BACKEND_ONEDNN
  const char* const kBackends[] = {"none", "onednn"};
#else
  const char* const kBackends[] = {"none"};
#endif
  for (const char* backends : kBackends) {
    SCOPED_TRACE(backends);
    CompiledProgram c(kProgram, "threads.ir", backends);
    ASSERT_TRUE(c.program);
    const int cores = runtime::Method::max_threads();
    ASSERT_GE(cores, 1);
    for (int threads : {0, -1, INT_MIN, cores + 1, 100000, INT_MAX}) expect_refused(*c.program, threads);
    for (int threads : {1, cores}) {
      auto m = runtime::Method::create(*c.program, threads);
      ASSERT_TRUE(m.ok()) << threads << ": " << error_detail();
      std::vector<float> x(64 * 64, 1.f);
      const int64_t shape[2] = {64, 64};
      ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), x.size() * sizeof(float))), Error::Ok)
          << error_detail();
      ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
      EXPECT_EQ((*m)->output(0).data_as<float>()[0], 64.f);
    }
  }
}

#if EDGEC_BACKEND_ONEDNN
// The delegate's init, called directly (as a backend embedding another
// would), checks the count before it reaches omp_set_num_threads.
TEST(MethodThreads, OnednnInitRefusesAnUnusableCount) {
  CompiledProgram c(kProgram, "threads.ir", "onednn");
  ASSERT_TRUE(c.program);
  ASSERT_EQ(c.program->delegates().size(), 1u);
  const auto& d = c.program->delegates()[0];
  ASSERT_EQ(d.backend_id, "onednn");
  for (int threads : {0, -3, runtime::Method::max_threads() + 1, 100000}) {
    auto handle = d.backend->init(d.payload, c.program->named_data(), threads);
    ASSERT_FALSE(handle.ok()) << threads;
    EXPECT_EQ(handle.error(), Error::InvalidArgument);
    EXPECT_NE(error_detail().find("onednn: expected 1 to " + std::to_string(runtime::Method::max_threads()) +
                                  " threads (the cores of this machine), got " + std::to_string(threads)),
              std::string::npos)
        << error_detail();
  }
  auto handle = d.backend->init(d.payload, c.program->named_data(), 1);
  ASSERT_TRUE(handle.ok()) << error_detail();
  d.backend->destroy(*handle);
}
#endif

}  // namespace
}  // namespace edgec
