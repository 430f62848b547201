// bench/lowering_scaling: lowering time (partition + to_backend, with its
// one validation) of synthetic programs with P partitions and K constants,
// each constant shared by two partitions and, for one in four, by a call
// left on the CPU too, so that every rule of docs/semantics.md §5 is exercised at
// scale. Prints the time per size and the ratio time(2N)/time(N); the
// figures go to bench/RESULTS.md.
//
//   lowering_scaling [--max-partitions P] [--max-constants K] [--repeats R]
//
// Each size is timed R times (median); the fitted exponent over all sizes
// is a steadier figure for the growth than any one ratio.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/backends.h"
#include "ir/program.h"
#include "ir/verifier.h"
#include "lowering/partition.h"
#include "lowering/to_backend.h"

namespace {

using edgec::CallSpec;
using edgec::DType;
using edgec::InputKind;
using edgec::InputSpec;
using edgec::OutputKind;
using edgec::OutputSpec;
using edgec::Program;
using edgec::TensorData;
using edgec::TensorType;
using edgec::Value;

/// x -> [partition j: adds of its constants and of the previous block's] ->
/// sin (refused: it separates partitions) -> ... ; every fourth constant is
/// also read by a mul left on the CPU (beside the chain, feeding an add).
std::unique_ptr<Program> make_program(int partitions, int constants) {
  auto p = std::make_unique<Program>();
  p->dialect = "edge";
  const TensorType t = TensorType::of(DType::Float32, {4});
  auto bytes = std::make_shared<const std::vector<std::byte>>(16, std::byte{0});
  Value* x = p->graph.add_placeholder("x", t)->result();
  p->inputs.push_back(InputSpec{InputKind::UserInput, "x", "x", false});
  std::vector<Value*> c;
  for (int k = 0; k < constants; ++k) {
    const std::string name = "c" + std::to_string(k);
    c.push_back(p->graph.add_placeholder(name, t)->result());
    p->inputs.push_back(InputSpec{InputKind::Constant, name, name, false});
    p->constants[name] = TensorData{t, bytes};
  }
  auto call = [&](const char* op, Value* a, Value* b) {
    CallSpec s;
    s.op = op;
    s.inputs = {a};
    if (b) s.inputs.push_back(b);
    s.result_types = {t};
    return p->graph.create_call(std::move(s))->result();
  };
  Value* h = x;
  const int per = std::max(1, constants / partitions);
  for (int j = 0; j < partitions; ++j) {
    const int begin = j * per, end = j + 1 == partitions ? constants : std::min(constants, begin + per);
    for (int k = begin; k < end; ++k) h = call("edge.add.Tensor", h, c[static_cast<size_t>(k)]);
    if (j > 0)
      for (int k = begin - per; k < begin; ++k) h = call("edge.add.Tensor", h, c[static_cast<size_t>(k)]);
    // The CPU's readers sit beside the chain, feeding the partition.
    for (int k = begin; k < end; k += 4) h = call("edge.add.Tensor", h, call("edge.mul.Tensor", x, c[static_cast<size_t>(k)]));
    h = call("edge.sin.default", h, nullptr);
  }
  p->graph.set_outputs({h});
  p->outputs.push_back(OutputSpec{OutputKind::UserOutput, h->name(), "y"});
  edgec::verify_or_throw(*p);
  return p;
}

struct Figure {
  int partitions, constants;
  size_t calls, delegates;
  double seconds;
};

/// One timed lowering of a fresh program.
double time_once(int partitions, int constants, Figure& f) {
  auto p = make_program(partitions, constants);
  f.calls = p->graph.calls().size();
  const auto partitioners = edgec::make_partitioners("reference:add");
  const auto start = std::chrono::steady_clock::now();
  edgec::partition_program(*p, partitioners);
  f.delegates = edgec::to_backend(*p);
  const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start;
  return d.count();
}

}  // namespace

int main(int argc, char** argv) {
  int max_p = 400, max_k = 10000, repeats = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-partitions")) max_p = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-constants")) max_k = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeats")) repeats = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "error: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (max_p < 1 || max_k < max_p || repeats < 1) {
    std::fprintf(stderr, "error: need 1 <= partitions <= constants and repeats >= 1\n");
    return 2;
  }
  try {
    std::printf("%10s %10s %8s %10s %12s %14s\n", "partitions", "constants", "calls", "delegates", "lower_s",
                "t(2N)/t(N)");
    // Sizes are timed in interleaved rounds, and each reports its median:
    // this machine's timings drift by tens of percent over seconds, and
    // interleaving spreads the drift over every size alike.
    std::vector<Figure> figs;
    for (int s = 8; s >= 0; --s)
      if ((max_p >> s) >= 1) figs.push_back(Figure{max_p >> s, max_k >> s, 0, 0, 0});
    std::vector<std::vector<double>> times(figs.size());
    for (int r = 0; r < repeats; ++r)
      for (size_t i = 0; i < figs.size(); ++i) times[i].push_back(time_once(figs[i].partitions, figs[i].constants, figs[i]));
    for (size_t i = 0; i < figs.size(); ++i) {
      std::sort(times[i].begin(), times[i].end());
      Figure& f = figs[i];
      f.seconds = times[i][times[i].size() / 2];
      char ratio[32] = "-";
      if (i > 0) std::snprintf(ratio, sizeof ratio, "%.2f", f.seconds / figs[i - 1].seconds);
      std::printf("%10d %10d %8zu %10zu %12.4f %14s\n", f.partitions, f.constants, f.calls, f.delegates, f.seconds,
                  ratio);
    }
    // The growth exponent k of time ~ calls^k, fitted by least squares over
    // the sizes with at least 1,000 calls: doubling N costs 2^k.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (const Figure& f : figs) {
      if (f.calls < 1000) continue;
      const double x = std::log2(static_cast<double>(f.calls)), y = std::log2(f.seconds);
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++n;
    }
    if (n >= 2) {
      const double k = (n * sxy - sx * sy) / (n * sxx - sx * sx);
      std::printf("fitted growth: time ~ calls^%.2f, so doubling N costs %.2fx\n", k, std::pow(2.0, k));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
