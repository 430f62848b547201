// Runs under contention (runtime/contention.h): a run takes the cores other
// runnable tasks leave free, a new count takes two samples in a row, and
// EDGEC_ADAPTIVE_THREADS turns it off. A thread of this test that spins
// plays the other process (it is not one of the run's OpenMP workers).
#include <gtest/gtest.h>

#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "runtime/contention.h"
#include "runtime/method.h"
#include "support/compiled_program.h"

namespace edgec {
namespace {

using runtime::ContentionGovernor;
using runtime::CoreSample;
using runtime::threads_for_sample;

TEST(Contention, ARunTakesTheCoresOtherTasksLeave) {
  // online, runnable (machine-wide, the caller included), own running.
  EXPECT_EQ(threads_for_sample(2, CoreSample{2, 1, 1}), 2);  // quiet
  EXPECT_EQ(threads_for_sample(2, CoreSample{2, 2, 2}), 2);  // our worker spins: still quiet
  EXPECT_EQ(threads_for_sample(2, CoreSample{2, 2, 1}), 1);  // one other task
  EXPECT_EQ(threads_for_sample(2, CoreSample{2, 3, 2}), 1);  // one other, our worker spinning
  EXPECT_EQ(threads_for_sample(2, CoreSample{2, 9, 1}), 1);  // never below one
  EXPECT_EQ(threads_for_sample(4, CoreSample{16, 13, 1}), 4);
  EXPECT_EQ(threads_for_sample(4, CoreSample{16, 15, 1}), 2);
  EXPECT_EQ(threads_for_sample(1, CoreSample{2, 1, 1}), 1);
  EXPECT_EQ(threads_for_sample(8, CoreSample{4, 1, 1}), 4);  // never above the cores
}

TEST(Contention, ANewCountTakesTwoSamplesInARow) {
  ContentionGovernor g(4, true);
  EXPECT_EQ(g.observe(4), 4);
  EXPECT_EQ(g.observe(1), 4);  // one sample: a task passing by
  EXPECT_EQ(g.observe(4), 4);
  EXPECT_EQ(g.observe(1), 4);
  EXPECT_EQ(g.observe(1), 1);  // two in a row
  EXPECT_EQ(g.observe(3), 1);
  EXPECT_EQ(g.observe(2), 1);  // two samples, but not the same count
  EXPECT_EQ(g.observe(2), 2);
  EXPECT_EQ(g.observe(9), 2);  // clamped to the Method's threads
  EXPECT_EQ(g.observe(9), 4);
}

struct EnvVar {
  explicit EnvVar(const char* value) {
    if (value)
      setenv("EDGEC_ADAPTIVE_THREADS", value, 1);
    else
      unsetenv("EDGEC_ADAPTIVE_THREADS");
  }
  ~EnvVar() { unsetenv("EDGEC_ADAPTIVE_THREADS"); }
};

constexpr const char* kProgram = R"(
program dialect = "aten"
signature {
  input user_input %x target = "x"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[128, 128]
  %r = aten.relu.default(%x) : f32[128, 128]
  %y = aten.matmul.default(%r, %r) : f32[128, 128]
  output(%y)
}
)";

TEST(Contention, EnvironmentSwitch) {
  for (const char* on : {static_cast<const char*>(nullptr), "1", "on"}) {
    EnvVar env(on);
    auto e = ContentionGovernor::enabled_by_environment();
    ASSERT_TRUE(e.ok()) << (on ? on : "unset");
    EXPECT_TRUE(*e);
  }
  for (const char* off : {"0", "off"}) {
    EnvVar env(off);
    auto e = ContentionGovernor::enabled_by_environment();
    ASSERT_TRUE(e.ok()) << off;
    EXPECT_FALSE(*e);
  }
  EnvVar env("sometimes");
  CompiledProgram c(kProgram, "contention.ir", "none");
  ASSERT_TRUE(c.program);
  auto m = runtime::Method::create(*c.program, 1);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), Error::InvalidArgument);
  EXPECT_EQ(error_detail(), "EDGEC_ADAPTIVE_THREADS='sometimes': expected 1 or on (the default), 0 or off");
}

// Runs `m` `runs` times a sample period apart; the threads the last took.
int run_spaced(runtime::Method& m, int runs) {
  for (int i = 0; i < runs; ++i) {
    EXPECT_EQ(m.execute(), Error::Ok) << error_detail();
    std::this_thread::sleep_for(ContentionGovernor::kSamplePeriod + std::chrono::milliseconds(2));
  }
  return m.last_run_threads();
}

// With one other task spinning, a Method given every core runs on fewer;
// with the governor off, it keeps them. On a one-core machine both are 1.
TEST(Contention, ABusyTaskHoldsRunsToTheFreeCores) {
  const int cores = runtime::Method::max_threads();
#if EDGEC_BACKEND_ONEDNN
  const char* const kBackends[] = {"none", "onednn"};
#else
  const char* const kBackends[] = {"none"};
#endif
  for (const char* backends : kBackends) {
    SCOPED_TRACE(backends);
    CompiledProgram c(kProgram, "contention.ir", backends);
    ASSERT_TRUE(c.program);
    std::vector<float> x(128 * 128, 0.5f);
    const int64_t shape[2] = {128, 128};
    const Tensor in = make_tensor(DType::Float32, shape, x.data(), x.size() * sizeof(float));
    std::atomic<bool> stop{false};
    std::thread busy([&] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
    auto m = runtime::Method::create(*c.program, cores);
    ASSERT_TRUE(m.ok()) << error_detail();
    ASSERT_EQ((*m)->set_input(0, in), Error::Ok) << error_detail();
    const int held = run_spaced(**m, 6);
    EXPECT_EQ((*m)->output(0).data_as<float>()[0], 32.f);
    int kept = 0;
    {
      EnvVar off("0");
      auto fixed = runtime::Method::create(*c.program, cores);
      ASSERT_TRUE(fixed.ok()) << error_detail();
      ASSERT_EQ((*fixed)->set_input(0, in), Error::Ok) << error_detail();
      kept = run_spaced(**fixed, 3);
    }
    stop = true;
    busy.join();
    // Other processes of the machine may take more.
    if (cores > 1)
      EXPECT_LT(held, cores) << "the busy thread should have taken a core";
    else
      EXPECT_EQ(held, 1);
    EXPECT_EQ(kept, cores);
  }
}

// Before a run of more than one thread, the team's workers are kept off the
// CPU the caller is on (the caller's CPUs less that one), unless the process
// binds OpenMP's threads itself (OMP_PROC_BIND).
TEST(Contention, WorkersKeepOffTheCallersCpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  const int cores = runtime::Method::max_threads();
  ContentionGovernor g(cores, false);
  const int threads = g.threads_for_run();
  EXPECT_EQ(threads, cores);
  if (cores < 2 || CPU_COUNT(&allowed) < 2) {
    EXPECT_EQ(g.placed_off(), -1) << "one CPU: nowhere else to put a worker";
    return;
  }
  const int off = g.placed_off();
  ASSERT_GE(off, 0);
  ASSERT_TRUE(CPU_ISSET(off, &allowed));
  ASSERT_EQ(g.team().size(), static_cast<size_t>(cores - 1));
  for (pid_t tid : g.team()) {
    ASSERT_GT(tid, 0);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    ASSERT_EQ(sched_getaffinity(tid, sizeof mask, &mask), 0);
    EXPECT_FALSE(CPU_ISSET(off, &mask)) << "worker " << tid << " may still run on the caller's CPU " << off;
    EXPECT_EQ(CPU_COUNT(&mask), CPU_COUNT(&allowed) - 1);
  }
  // The same run again, from the same CPU or another: still off the caller's.
  g.threads_for_run();
  EXPECT_GE(g.placed_off(), 0);

  setenv("OMP_PROC_BIND", "true", 1);
  ContentionGovernor bound(cores, false);
  unsetenv("OMP_PROC_BIND");
  EXPECT_EQ(bound.threads_for_run(), cores);
  EXPECT_EQ(bound.placed_off(), -1) << "OMP_PROC_BIND: OpenMP places the threads";
}

TEST(Contention, ThreadLimit) {
  CompiledProgram c(kProgram, "contention.ir", "none");
  ASSERT_TRUE(c.program);
  const int cores = runtime::Method::max_threads();
  auto m = runtime::Method::create(*c.program, cores);
  ASSERT_TRUE(m.ok()) << error_detail();
  for (int bad : {0, cores + 1}) {
    EXPECT_EQ((*m)->set_thread_limit(bad), Error::InvalidArgument);
    EXPECT_EQ(error_detail(), "a thread limit of " + std::to_string(bad) + " is outside 1 to " +
                                  std::to_string(cores) + " (the Method's threads)");
  }
  std::vector<float> x(128 * 128, 0.5f);
  const int64_t shape[2] = {128, 128};
  ASSERT_EQ((*m)->set_input(0, make_tensor(DType::Float32, shape, x.data(), x.size() * sizeof(float))), Error::Ok);
  ASSERT_EQ((*m)->set_thread_limit(1), Error::Ok);
  ASSERT_EQ((*m)->execute(), Error::Ok) << error_detail();
  EXPECT_EQ((*m)->last_run_threads(), 1);
  EXPECT_EQ((*m)->output(0).data_as<float>()[0], 32.f);
}

}  // namespace
}  // namespace edgec
