// Cancelling a run (issue 31): a Loop told to run 2^40 iterations runs
// until Method::cancel, called from another thread, stops it with
// Error::Cancelled; the Method then runs again and gives the right outputs.
// A cancel while nothing runs does not stop the next run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "compiler/pipeline.h"
#include "ir/text.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"

namespace edgec {
namespace {

// y = x + trips (the body adds 1 to the carried value each iteration; its
// condition stays true, so only the trip count ends the loop).
constexpr const char* kLoopProgram = R"(
program dialect = "edge"
signature {
  input user_input %x target = "x"
  input user_input %trips target = "trips"
  output user_output %y target = "y"
}
graph {
  %x = placeholder : f32[3]
  %trips = placeholder : i64[]
  %go = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
  %y = loop(%trips, %go, [%x], []) : f32[3]
  region {
    %i = placeholder : i64[]
    %c = placeholder : bool[]
    %h = placeholder : f32[3]
    %one = edge.full.default(shape = [], value = 1.0, dtype = f32) : f32[]
    %next = edge.add.Tensor(%h, %one) : f32[3]
    %more = edge.full.default(shape = [], value = 1.0, dtype = bool) : bool[]
    output(%more, %next)
  }
  output(%y)
}
)";

class Cancel : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = parse_program(kLoopProgram, "loop.ir");
    compile_program(*p, {}, "none");
    file_ = std::make_unique<AlignedBytes>(serialize_program(*p));
    auto loaded = runtime::Program::load_from_bytes(file_->span());
    ASSERT_TRUE(loaded.ok()) << error_detail();
    program_ = std::move(*loaded);
    auto method = runtime::Method::create(*program_, 1);
    ASSERT_TRUE(method.ok()) << error_detail();
    method_ = std::move(*method);
  }

  // Binds x and `trips` (kept in the fixture: bound, not copied).
  void bind(int64_t trips) {
    trips_ = trips;
    const int64_t shape[1] = {3};
    ASSERT_EQ(method_->set_input(0, make_tensor(DType::Float32, shape, x_, sizeof x_)), Error::Ok) << error_detail();
    ASSERT_EQ(method_->set_input(1, make_tensor(DType::Int64, std::span<const int64_t>(), &trips_, sizeof trips_)),
              Error::Ok)
        << error_detail();
  }

  // Runs with `trips` and expects y = x + trips, exactly (small integers).
  void expect_runs(int64_t trips) {
    bind(trips);
    ASSERT_EQ(method_->execute(), Error::Ok) << error_detail();
    const Tensor& y = method_->output(0);
    ASSERT_EQ(y.numel(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(y.data_as<float>()[i], x_[i] + static_cast<float>(trips)) << i;
  }

  // Runs 2^40 iterations on this thread while another cancels, over and
  // over until the run has returned (a cancel that comes before the run has
  // started is dropped, by design). Returns the run's error and detail.
  std::pair<Error, std::string> run_cancelled() {
    bind(int64_t{1} << 40);
    std::atomic<bool> done{false};
    std::thread canceller([&] {
      while (!done.load()) {
        method_->cancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    const auto start = std::chrono::steady_clock::now();
    const Error err = method_->execute();
    const std::string detail = error_detail();
    done = true;
    canceller.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    return {err, detail};
  }

  std::unique_ptr<AlignedBytes> file_;
  std::unique_ptr<runtime::Program> program_;
  std::unique_ptr<runtime::Method> method_;
  float x_[3] = {1.0f, -2.0f, 0.5f};
  int64_t trips_ = 0;
};

TEST_F(Cancel, AnotherThreadStopsALongLoopAndTheMethodRunsAgain) {
  expect_runs(5);
  for (int round = 0; round < 3; ++round) {
    // Where a cancel lands depends on the scheduler: before the loop
    // (instruction 0 fills its condition, and under emulation its first run
    // is slow) or inside it. Each run must stop with Cancelled, and within a
    // few runs one must stop inside the loop (instruction 1 of the top
    // block, then an iteration or an instruction of the body): 2^40
    // iterations cannot end any other way.
    bool stopped_in_loop = false;
    for (int attempt = 0; attempt < 20 && !stopped_in_loop; ++attempt) {
      const auto [err, detail] = run_cancelled();
      EXPECT_EQ(err, Error::Cancelled) << detail;
      EXPECT_STREQ(error_name(err), "Cancelled");
      EXPECT_NE(detail.find("cancelled before "), std::string::npos) << detail;
      stopped_in_loop = detail.find("instruction 1 (loop): ") != std::string::npos;
      expect_runs(7);
    }
    EXPECT_TRUE(stopped_in_loop) << "20 runs were all cancelled before the loop began";
  }
}

TEST_F(Cancel, ACancelWhileNothingRunsDoesNotStopTheNextRun) {
  method_->cancel();
  expect_runs(5);
  // A cancel after a cancelled run is over does not reach the next one.
  EXPECT_EQ(run_cancelled().first, Error::Cancelled);
  method_->cancel();
  expect_runs(3);
}

}  // namespace
}  // namespace edgec
