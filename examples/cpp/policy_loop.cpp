// A fixed-rate control loop on the edgec C++ runtime: the program is loaded
// and prepared once, then every tick binds a new observation, executes and
// reads the action, and the loop sleeps until the next tick. At the end it
// prints the latency of set_input + execute (p50, p99, max) and the ticks
// that missed their deadline.
//
//   policy_loop PROGRAM.edgec [--hz 100] [--ticks 200] [--threads 1]
//               [--obs FILE.bin]
//
// Observations: input i gets the raw bytes of FILE.bin (the inputs'
// bytes one after another, native order; symbolic dims take size 1) at tick
// 0, then the same plus a small deterministic drift each tick; without
// --obs, deterministic values. Tick 0's outputs are printed
// ("tick 0 NAME: v0 v1 ...") so that a test can check them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <edgec/edgec.hpp>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

// The runtime never throws: each call returns an Error, explained by
// error_detail() (per thread).
void check(edgec::Error err, const std::string& what) {
  if (err != edgec::Error::Ok) die(what + ": " + edgec::error_name(err) + ": " + edgec::error_detail());
}

struct Input {
  edgec::DType dtype;
  std::vector<int64_t> shape;
  std::vector<float> values;  // float32 inputs only (a policy's observations)
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: policy_loop PROGRAM.edgec [--hz N] [--ticks N] [--threads N] [--obs FILE]\n");
    return 2;
  }
  double hz = 100;
  long ticks = 200;
  int threads = 1;
  std::string obs_path;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--hz") hz = std::atof(argv[i + 1]);
    else if (flag == "--ticks") ticks = std::atol(argv[i + 1]);
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else if (flag == "--obs") obs_path = argv[i + 1];
    else die("unknown option " + flag);
  }
  if (hz <= 0 || ticks <= 0) die("--hz and --ticks must be positive");

  // Load and prepare once: mmap and validation, then the Method's arena and
  // delegate handles.
  auto program = edgec::runtime::Program::load(argv[1]);
  if (!program.ok()) die(std::string("cannot load ") + argv[1] + ": " + edgec::error_detail());
  auto method = edgec::runtime::Method::create(**program, threads);
  if (!method.ok()) die("cannot prepare the program: " + edgec::error_detail());
  edgec::runtime::Method& m = **method;

  // One buffer per input, of its declared type.
  std::vector<Input> inputs;
  for (const edgec::runtime::IoSlot& io : (*program)->inputs()) {
    const edgec::runtime::TypeInfo& type = (*program)->slots()[static_cast<size_t>(io.slot)].type;
    if (type.dtype != edgec::DType::Float32) die("input '" + io.name + "' is not float32");
    Input in{type.dtype, {}, {}};
    size_t count = 1;
    for (const edgec::runtime::DimInfo& d : type.dims) {
      in.shape.push_back(d.kind == edgec::runtime::DimInfo::Kind::Static ? d.value : 1);
      count *= static_cast<size_t>(in.shape.back());
    }
    in.values.resize(count);
    for (size_t k = 0; k < count; ++k) in.values[k] = std::sin(0.1f * static_cast<float>(k));
    inputs.push_back(std::move(in));
  }
  if (!obs_path.empty()) {
    std::ifstream f(obs_path, std::ios::binary);
    if (!f) die("cannot open " + obs_path);
    for (Input& in : inputs)
      if (!f.read(reinterpret_cast<char*>(in.values.data()), static_cast<std::streamsize>(in.values.size() * 4)))
        die(obs_path + " is too short for the program's inputs");
    if (f.peek() != std::char_traits<char>::eof()) die(obs_path + " is too long for the program's inputs");
  }

  std::vector<double> latency_us;
  latency_us.reserve(static_cast<size_t>(ticks));
  long missed = 0;
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / hz));
  auto deadline = Clock::now() + period;
  for (long tick = 0; tick < ticks; ++tick) {
    // A new observation (here: the last one drifted), bound without a copy.
    if (tick > 0)
      for (Input& in : inputs)
        for (size_t k = 0; k < in.values.size(); ++k) in.values[k] += 0.001f * std::cos(0.01f * static_cast<float>(tick) + static_cast<float>(k));
    const auto start = Clock::now();
    for (size_t i = 0; i < inputs.size(); ++i)
      check(m.set_input(i, edgec::make_tensor(inputs[i].dtype, inputs[i].shape, inputs[i].values.data(),
                                              inputs[i].values.size() * 4)),
            "set_input");
    check(m.execute(), "execute");
    const auto end = Clock::now();
    latency_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    // The action: valid until the next execute.
    if (tick == 0) {
      for (size_t o = 0; o < m.num_outputs(); ++o) {
        const edgec::Tensor& out = m.output(o);
        std::printf("tick 0 %s:", (*program)->outputs()[o].name.c_str());
        if (out.dtype == edgec::DType::Float32 && out.is_contiguous())
          for (int64_t k = 0; k < out.numel(); ++k) std::printf(" %.9g", static_cast<double>(out.data_as<float>()[k]));
        std::printf("\n");
      }
    }
    if (end > deadline) ++missed;
    std::this_thread::sleep_until(deadline);
    deadline += period;
  }

  std::vector<double> sorted = latency_us;
  std::sort(sorted.begin(), sorted.end());
  auto pct = [&](double p) { return sorted[static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5)]; };
  std::printf("%ld ticks at %g Hz: latency p50 %.1f us, p99 %.1f us, max %.1f us; %ld missed deadline(s)\n", ticks,
              hz, pct(0.50), pct(0.99), sorted.back(), missed);
  return 0;
}
