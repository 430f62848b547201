// bench/isa_kernels: each kernel built per instruction set (kernels/isa/
// kernels.h), its AVX2 build against its AVX-512 build on the same
// operands, one thread, interleaved (A B A B ...) so that the machine's
// drift falls on both alike. Prints the median time per call of each build
// and their ratio; the figures go to bench/RESULTS.md. The AVX-512 builds
// are skipped on a CPU without AVX-512.
//
//   isa_kernels [--rounds R] [--only NAME] [--smoke]
//
// --only: the kernels whose line contains NAME. --smoke: small shapes and one round (the ctest smoke test).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "backends/onednn/conv1d_gemm.h"
#include "backends/onednn/gemm_prepacked.h"
#include "backends/onednn/winograd.h"
#include "kernels/isa.h"
#include "kernels/isa/kernels.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Median microseconds per call of each of `fns`, timed in turn `rounds`
// times, each time over enough calls to take about 20 ms.
std::vector<double> time_interleaved(const std::vector<std::function<void()>>& fns, int rounds) {
  std::vector<int> reps(fns.size());
  for (size_t i = 0; i < fns.size(); ++i) {
    fns[i]();  // warm
    const auto t0 = Clock::now();
    fns[i]();
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    reps[i] = std::max(1, static_cast<int>(20000 / std::max(us, 1.0)));
  }
  std::vector<std::vector<double>> times(fns.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < fns.size(); ++i) {
      const auto t0 = Clock::now();
      for (int k = 0; k < reps[i]; ++k) fns[i]();
      times[i].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / reps[i]);
    }
  std::vector<double> med;
  for (auto& t : times) {
    std::sort(t.begin(), t.end());
    med.push_back(t[t.size() / 2]);
  }
  return med;
}

bool g_avx512 = false;
int g_rounds = 15;
const char* g_only = nullptr;

void report(const std::string& name, double flops, const std::function<void(edgec::Isa)>& run) {
  if (g_only && name.find(g_only) == std::string::npos) return;
  std::vector<std::function<void()>> fns = {[&] { run(edgec::Isa::Avx2); }};
  if (g_avx512) fns.push_back([&] { run(edgec::Isa::Avx512); });
  const std::vector<double> us = time_interleaved(fns, g_rounds);
  std::printf("%-44s avx2 %10.2f us (%6.1f GFLOP/s)", name.c_str(), us[0], flops / us[0] / 1e3);
  if (g_avx512)
    std::printf("  avx512 %10.2f us (%6.1f GFLOP/s)  avx2/avx512 %.3f", us[1], flops / us[1] / 1e3, us[0] / us[1]);
  std::printf("\n");
}

void bench_gemm(int64_t M, int64_t N, int64_t K) {
  auto a = random_floats(M * K, 1), b = random_floats(K * N, 2);
  std::vector<float> c(M * N);
  report("gemm_f32 " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K), 2.0 * M * N * K,
         [&](edgec::Isa isa) {
           auto* f = isa == edgec::Isa::Avx512 ? &edgec::avx512::gemm_f32 : &edgec::avx2::gemm_f32;
           f(M, N, K, a.data(), K, 1, b.data(), N, 1, c.data(), N, false, 1);
         });
}

void bench_prepacked(int64_t M, int64_t N, int64_t K) {
  auto a = random_floats(M * K, 3), b = random_floats(K * N, 4), bias = random_floats(N, 5);
  std::vector<float> packed(edgec::gemm_prepacked_floats(K, N)), c(M * N);
  edgec::gemm_prepack_b(K, N, b.data(), N, 1, packed.data());
  report("gemm_prepacked_f32 " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K),
         2.0 * M * N * K, [&](edgec::Isa isa) {
           auto* f = isa == edgec::Isa::Avx512 ? &edgec::avx512::gemm_prepacked_f32 : &edgec::avx2::gemm_prepacked_f32;
           f(M, N, K, a.data(), K, packed.data(), bias.data(), c.data(), N, true, 1);
         });
}

void bench_conv1d(int64_t cin, int64_t cout, int64_t length, int64_t kernel) {
  edgec::Conv1dShape s;
  s.cin = cin;
  s.cout = cout;
  s.length = s.out_length = length;
  s.kernel = kernel;
  s.pad_left = kernel / 2;
  auto x = random_floats(cin * length, 6), w = random_floats(cout * cin * kernel, 7), bias = random_floats(cout, 8);
  std::vector<float> y(cout * length), scratch(edgec::conv1d_gemm_scratch_floats(s));
  report("conv1d_gemm c" + std::to_string(cin) + "->" + std::to_string(cout) + " l" + std::to_string(length) + " k" +
             std::to_string(kernel),
         2.0 * cout * cin * kernel * length, [&](edgec::Isa isa) {
           auto* f = isa == edgec::Isa::Avx512 ? &edgec::avx512::conv1d_gemm : &edgec::avx2::conv1d_gemm;
           f(s, x.data(), w.data(), bias.data(), nullptr, y.data(), true, scratch.data(), 1);
         });
}

void bench_winograd(int64_t c, int64_t hw) {
  edgec::Winograd43Shape s;
  s.cin = s.cout = c;
  s.h = s.w = s.oh = s.ow = hw;
  s.pad_top = s.pad_left = 1;
  auto x = random_floats(c * hw * hw, 9), w = random_floats(c * c * 9, 10), bias = random_floats(c, 11);
  std::vector<float> u(edgec::winograd43_weights_floats(c, c)), y(c * hw * hw);
  std::vector<float> scratch(edgec::winograd43_scratch_floats(s, 1));
  edgec::avx2::winograd43_transform_weights(w.data(), c, c, u.data());
  // The blocking winograd43_conv computes (backends/onednn/winograd.cpp) for one thread.
  edgec::WinogradBlocking b;
  b.tiles_h = b.tiles_w = (hw + 3) / 4;
  b.tiles = b.tiles_h * b.tiles_w;
  const int64_t cp = (c + 15) / 16 * 16;
  const int64_t most = std::clamp<int64_t>(edgec::winograd::kBlockFloats / (36 * (c + cp)), 6, 48);
  b.blocks = (b.tiles + most - 1) / most;
  b.per_block = (b.tiles + b.blocks - 1) / b.blocks;
  report("winograd43_conv c" + std::to_string(c) + " " + std::to_string(hw) + "x" + std::to_string(hw),
         2.0 * c * c * 9 * hw * hw, [&](edgec::Isa isa) {
           auto* f = isa == edgec::Isa::Avx512 ? &edgec::avx512::winograd43_conv : &edgec::avx2::winograd43_conv;
           f(s, b, x.data(), u.data(), bias.data(), nullptr, y.data(), true, scratch.data(), 1);
         });
  report("winograd43_transform_weights c" + std::to_string(c), 0, [&](edgec::Isa isa) {
    auto* f = isa == edgec::Isa::Avx512 ? &edgec::avx512::winograd43_transform_weights
                                        : &edgec::avx2::winograd43_transform_weights;
    f(w.data(), c, c, u.data());
  });
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--smoke")) {
      smoke = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      g_only = argv[++i];
    } else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) {
      g_rounds = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: isa_kernels [--rounds R] [--only NAME] [--smoke]\n");
      return 2;
    }
  }
  const edgec::CpuFeatures f = edgec::cpu_features();
  g_avx512 = f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl;
  std::printf("AVX-512 builds %s; one thread, median of %d interleaved rounds\n",
              g_avx512 ? "timed" : "skipped (this CPU has no AVX-512)", smoke ? 1 : g_rounds);
  if (smoke) {
    g_rounds = 1;
    bench_gemm(12, 32, 8);
    bench_prepacked(7, 20, 5);
    bench_conv1d(8, 8, 5, 3);
    bench_winograd(8, 6);
    return 0;
  }
  bench_gemm(256, 256, 256);
  bench_gemm(64, 1024, 512);
  bench_gemm(3136, 64, 147);
  bench_prepacked(20, 192, 64);
  bench_prepacked(20, 256, 256);
  bench_prepacked(1, 512, 512);
  bench_conv1d(256, 256, 16, 5);
  bench_conv1d(64, 64, 8, 5);
  bench_winograd(64, 56);
  bench_winograd(128, 28);
  return 0;
}
