// A run held below the delegate's threads (base/thread_cap.h: contention or
// Method::set_thread_limit) runs the one-thread twins of its convolutions
// and products (runtime_single.cpp) and its own loops on fewer threads, and
// computes what the unheld run computes.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/onednn/runtime_state.h"
#include "backends/onednn_harness.h"
#include "base/thread_cap.h"
#include "runtime/delegate.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

Ir held_program() {
  Ir ir;
  // A 1x1 convolution and a product of two activations, each large enough
  // to be given every thread, and a 3x3 convolution (a Winograd loop
  // where it qualifies).
  ir.input("x", {1, 96, 40, 40}, -1.f, 1.f)
      .constant("w", {96, 96, 1, 1}, -0.1f, 0.1f)
      .constant("b", {96}, -0.1f, 0.1f)
      .constant("w3", {32, 96, 3, 3}, -0.05f, 0.05f);
  ir.op("%c = edge.conv.default(%x, %w, %b) : f32[1, 96, 40, 40]");
  ir.op("%r = edge.relu.default(%c) : f32[1, 96, 40, 40]");
  ir.op("%k = edge.conv.default(%r, %w3, padding = [1, 1]) : f32[1, 32, 40, 40]");
  ir.op("%f = edge.reshape.default(%k, shape = [32, 1600]) : f32[32, 1600]");
  ir.op("%t = edge.permute.default(%f, dims = [1, 0]) : f32[1600, 32]");
  ir.op("%m = edge.matmul.default(%t, %f) : f32[1600, 1600]");
  return ir;
}

// The program itself, unheld, matches the portable kernels.
TEST(OnednnThreads, ProgramMatchesThePortableKernels) {
  expect_matches(held_program(), {"m"}, {"conv", "matmul"});
}

TEST(OnednnThreads, MultiThreadedPrimitivesHaveOneThreadTwins) {
  const int cores = runtime::Method::max_threads();
  CompiledProgram c(held_program().text({"m"}), "held.ir", "onednn");
  ASSERT_TRUE(c.program);
  ASSERT_EQ(c.program->delegates().size(), 1u);
  const auto& info = c.program->delegates()[0];
  auto handle = info.backend->init(info.payload, c.program->named_data(), cores);
  ASSERT_TRUE(handle.ok()) << error_detail();
  auto* d = dynamic_cast<runtime::onednn::Delegate*>(static_cast<runtime::DelegateHandle*>(*handle));
  ASSERT_NE(d, nullptr);
  int multi = 0, twins = 0;
  for (const auto& step : d->steps) {
    if (!step.primitive || step.threads < 2) continue;
    const auto kind = step.primitive.get_kind();
    if (kind != dnnl::primitive::kind::convolution && kind != dnnl::primitive::kind::matmul) continue;
    ++multi;
    twins += static_cast<bool>(step.single);
    EXPECT_TRUE(step.single) << step.name << " has no one-thread twin";
  }
  // Every step is built for one thread on a one-core machine: no twins.
  if (cores > 1)
    EXPECT_GT(multi, 0) << "no convolution or product was given several threads";
  else
    EXPECT_EQ(multi, 0);
  EXPECT_EQ(twins, multi);
  info.backend->destroy(*handle);
}

TEST(OnednnThreads, HeldRunsComputeWhatFullRunsCompute) {
  const int cores = runtime::Method::max_threads();
  CompiledProgram c(held_program().text({"m"}), "held.ir", "onednn");
  ASSERT_TRUE(c.program);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(96 * 40 * 40);
  for (float& v : x) v = u(rng);
  const Tensor in = make_tensor(DType::Float32, std::vector<int64_t>{1, 96, 40, 40}, x.data(), 0);
  std::vector<std::vector<float>> results;
  for (int limit : {cores, 1}) {
    auto m = runtime::Method::create(*c.program, cores);
    ASSERT_TRUE(m.ok()) << error_detail();
    ASSERT_EQ((*m)->set_thread_limit(limit), Error::Ok);
    ASSERT_EQ((*m)->set_input(0, in), Error::Ok) << error_detail();
    ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
    EXPECT_LE((*m)->last_run_threads(), limit);
    const Tensor& y = (*m)->output(0);
    results.emplace_back(y.data_as<float>(), y.data_as<float>() + y.numel());
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  double worst = 0, scale = 0;
  for (size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_FALSE(std::isnan(results[1][i])) << i;
    worst = std::max(worst, static_cast<double>(std::fabs(results[0][i] - results[1][i])));
    scale = std::max(scale, static_cast<double>(std::fabs(results[0][i])));
  }
  EXPECT_LE(worst, 1e-5 * scale) << "held run differs by " << worst << " (largest magnitude " << scale << ")";
  EXPECT_GT(scale, 0);
}

}  // namespace
}  // namespace edgec
