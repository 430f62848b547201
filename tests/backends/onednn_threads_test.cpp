// A run held below the delegate's threads (base/thread_cap.h: contention or
// Method::set_thread_limit) runs the one-thread twins of its primitives
// (runtime_single.cpp) and its own loops on fewer threads, forks no wider
// parallel region, and computes what the unheld run computes.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <stdlib.h>

#include <atomic>
#include <cmath>
#include <set>

#include "backends/onednn/runtime_state.h"
#include "backends/delegate_harness.h"
#include "base/thread_cap.h"
#include "runtime/delegate.h"
#include "support/compare.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

// Counts the parallel regions of more than one thread forked while
// `counting` is set: this definition of libgomp's entry point stands in for
// libgomp's own (the executable's symbol comes first), for oneDNN's forks
// as for ours, and passes each call on.
std::atomic<bool> counting{false};
std::atomic<int> wide_regions{0};

}  // namespace
}  // namespace edgec

extern "C" void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  using Entry = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static const Entry libgomp = reinterpret_cast<Entry>(dlsym(RTLD_NEXT, "GOMP_parallel"));
  // 0: the team OpenMP's setting gives; an if clause that fails passes 1.
  const int team = num_threads ? static_cast<int>(num_threads) : omp_get_max_threads();
  if (edgec::counting.load() && team > 1) ++edgec::wide_regions;
  libgomp(fn, data, num_threads, flags);
}

namespace edgec {
namespace {

Ir held_program() {
  Ir ir;
  // A 1x1 convolution and a product of two activations, each large enough
  // to be given every thread; a 3x3 convolution (a Winograd loop where it
  // qualifies); and the kinds of primitive besides them that oneDNN also
  // splits when it creates them: the input's reorder to a blocked layout,
  // pooling, batch norm, concat, softmax.
  ir.input("x", {1, 96, 40, 40}, -1.f, 1.f)
      .constant("w", {96, 96, 1, 1}, -0.1f, 0.1f)
      .constant("b", {96}, -0.1f, 0.1f)
      .constant("w3", {32, 96, 3, 3}, -0.05f, 0.05f)
      .constant("g", {96}, 0.5f, 1.5f)
      .constant("bb", {96}, -0.1f, 0.1f)
      .constant("mu", {96}, -0.1f, 0.1f)
      .constant("var", {96}, 0.5f, 1.5f);
  ir.op("%c = edge.conv.default(%x, %w, %b) : f32[1, 96, 40, 40]");
  ir.op("%r = edge.relu.default(%c) : f32[1, 96, 40, 40]");
  ir.op("%k = edge.conv.default(%r, %w3, padding = [1, 1]) : f32[1, 32, 40, 40]");
  ir.op("%p = edge.max_pool.default(%r, kernel_size = [3, 3], stride = [1, 1], padding = [1, 1]) : "
        "f32[1, 96, 40, 40]");
  ir.op("%n = edge.batch_norm.default(%p, %g, %bb, %mu, %var, eps = 1.0e-5) : f32[1, 96, 40, 40]");
  ir.op("%j = edge.concat.default([%n, %k], dim = 1) : f32[1, 128, 40, 40]");
  ir.op("%f = edge.reshape.default(%k, shape = [32, 1600]) : f32[32, 1600]");
  ir.op("%t = edge.permute.default(%f, dims = [1, 0]) : f32[1600, 32]");
  ir.op("%m = edge.matmul.default(%t, %f) : f32[1600, 1600]");
  ir.op("%s = edge.softmax.default(%m, dim = 1) : f32[1600, 1600]");
  return ir;
}

// The program itself, unheld, matches the portable kernels.
TEST(OnednnThreads, ProgramMatchesThePortableKernels) {
  expect_matches(held_program(), {"s", "j"}, {"conv", "matmul", "max_pool", "concat", "softmax"});
}

TEST(OnednnThreads, MultiThreadedPrimitivesHaveOneThreadTwins) {
  const int cores = runtime::Method::max_threads();
  CompiledProgram c(held_program().text({"s", "j"}), "held.ir", "onednn");
  ASSERT_TRUE(c.program);
  ASSERT_EQ(c.program->delegates().size(), 1u);
  const auto& info = c.program->delegates()[0];
  auto handle = info.backend->init(info.payload, c.program->named_data(), cores);
  ASSERT_TRUE(handle.ok()) << error_detail();
  auto* d = dynamic_cast<runtime::onednn::Delegate*>(static_cast<runtime::DelegateHandle*>(*handle));
  ASSERT_NE(d, nullptr);
  int multi = 0, twins = 0;
  std::set<dnnl::primitive::kind> kinds;
  for (const auto& step : d->steps) {
    if (!step.primitive || step.threads < 2) continue;
    kinds.insert(step.primitive.get_kind());
    ++multi;
    twins += static_cast<bool>(step.single);
    EXPECT_TRUE(step.single) << step.name << " has no one-thread twin";
  }
  // Every step is built for one thread on a one-core machine: no twins.
  if (cores > 1) {
    for (auto kind : {dnnl::primitive::kind::convolution, dnnl::primitive::kind::matmul,
                      dnnl::primitive::kind::softmax_v2, dnnl::primitive::kind::concat})
      EXPECT_TRUE(kinds.count(kind)) << "no step of kind " << static_cast<int>(kind) << " was given several threads";
  } else {
    EXPECT_EQ(multi, 0);
  }
  EXPECT_EQ(twins, multi);
  info.backend->destroy(*handle);
}

TEST(OnednnThreads, HeldRunsComputeWhatFullRunsCompute) {
  const int cores = runtime::Method::max_threads();
  CompiledProgram c(held_program().text({"s", "j"}), "held.ir", "onednn");
  ASSERT_TRUE(c.program);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> x(96 * 40 * 40);
  for (float& v : x) v = u(rng);
  const Tensor in = make_tensor(DType::Float32, std::vector<int64_t>{1, 96, 40, 40}, x.data(), 0);
  std::vector<std::vector<float>> results;
  int wide_when_held = -1, wide_when_full = -1;
  for (int limit : {cores, 1}) {
    // Without the governor, so that a busy machine does not hold the full
    // run to fewer threads too (the limit holds the other).
    setenv("EDGEC_ADAPTIVE_THREADS", "0", 1);
    auto m = runtime::Method::create(*c.program, cores);
    unsetenv("EDGEC_ADAPTIVE_THREADS");
    ASSERT_TRUE(m.ok()) << error_detail();
    ASSERT_EQ((*m)->set_thread_limit(limit), Error::Ok);
    ASSERT_EQ((*m)->set_input(0, in), Error::Ok) << error_detail();
    // The first run finds the Method's OpenMP team with a region of all its
    // threads (runtime/contention.h); the second is the one counted.
    ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
    wide_regions = 0;
    counting = true;
    const Error run = (*m)->execute();
    counting = false;
    ASSERT_EQ(run, Error::Ok) << error_detail();
    (limit == 1 ? wide_when_held : wide_when_full) = wide_regions.load();
    EXPECT_LE((*m)->last_run_threads(), limit);
    for (size_t o = 0; o < 2; ++o) {
      const Tensor& y = (*m)->output(o);
      results.emplace_back(y.data_as<float>(), y.data_as<float>() + y.numel());
    }
  }
  // Held to one thread, nothing forks a team: a region of two threads would
  // wait for a core another process holds.
  EXPECT_EQ(wide_when_held, 0) << "parallel regions of more than one thread in a run held to one";
  if (cores > 1) {
    EXPECT_GT(wide_when_full, 0) << "the count saw no region in the full run";
  }
  results[0].insert(results[0].end(), results[1].begin(), results[1].end());
  results[1] = results[2];
  results[1].insert(results[1].end(), results[3].begin(), results[3].end());
  results.resize(2);
  ASSERT_EQ(results[0].size(), results[1].size());
  // The full run is the reference. Its inputs and weights are finite, so it
  // must be too: compare.h lets NaN through where the reference has NaN,
  // and a fold with std::max would drop it (max(worst, NaN) is worst).
  double scale = 0;
  size_t not_finite = 0;
  for (float v : results[0]) {
    if (!std::isfinite(v)) {
      ++not_finite;
      continue;
    }
    scale = std::max(scale, static_cast<double>(std::fabs(v)));
  }
  EXPECT_EQ(not_finite, 0u) << "the full run computed NaN or infinity";
  EXPECT_GT(scale, 0);
  // The held run, element by element (NaN anywhere fails), within 1e-5 of
  // the largest magnitude.
  EXPECT_TRUE(compare::arrays_match("held run vs full run", compare::view_of(results[1]),
                                    compare::view_of(results[0]), compare::Tolerance::absolute(1e-5 * scale)));
}

}  // namespace
}  // namespace edgec
