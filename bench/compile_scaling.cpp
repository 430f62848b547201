// bench/compile_scaling: the time of each phase of `edgec compile` (import,
// to_edge, constant_prop, dce, partition, to_backend, memory_plan, the
// backends' constant preparation, serialization, and the verifier runs
// between them) on synthetic ONNX models of growing size N, and the
// doubling ratio time(2N)/time(N) of each phase. Every phase should be
// linear (ratio about 2) or n log n; a ratio of 4 is a quadratic phase.
//
//   compile_scaling [--max N] [--min N] [--models LIST] [--backends LIST] [--repeats R] [--cpu-time]
//                   [--save DIR]
//
// --save DIR also writes each model as DIR/MODEL_N.onnx, to time `edgec
// compile` on it.
//
// Phases are timed by the wall clock, or with --cpu-time by the process's
// CPU time (steadier on a machine other processes are busy on).
//
// Models (each built in memory as an ONNX ModelProto, then imported from
// its bytes as `edgec compile` imports a file):
//   foldable  N distinct Mul(Constant, Constant) nodes, each product added
//             to the input (what an export without constant folding, or a
//             model with many small literal tensors, looks like): constant
//             folding materializes N constants.
//   chain     an N-node chain x -> Add(., c_k) -> Relu -> ... with an
//             initializer per Add.
//   concat    one Concat of N distinct values (each a Relu of the input).
//   sum       one Sum of N distinct values.
// Sizes are N, N/2, N/4, ... down to --min. Each table ends with the
// doubling ratio of a least-squares fit over all sizes per phase ("fit x"),
// and over the four largest ("fit>=12k" for --max 100000): small sizes fit
// in the caches and large ones do not, so a linear phase whose per-node
// cost grows as its data leaves the caches shows more than 2 over all sizes;
// over the largest it shows the algorithm's own growth.
// The timings go to bench/RESULTS.md; nothing here is asserted (a ctest
// entry smoke-runs it).
#include <onnx/onnx_pb.h>

#if EDGEC_MIMALLOC
#include <mimalloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compiler/backends.h"
#include "frontends/onnx/importer.h"
#include "base/diagnostic.h"
#include "ir/verifier.h"
#include "lowering/backend.h"
#include "lowering/partition.h"
#include "compiler/pipeline.h"
#include "lowering/to_backend.h"
#include "compiler/pass_registry.h"
#include "serialize/writer.h"

namespace {

bool g_cpu_time = false;

// Milliseconds on the wall clock, or of this process's CPU time.
double now_ms() {
  if (g_cpu_time) {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

onnx::ModelProto empty_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  m.mutable_graph()->set_name("scaling");
  return m;
}

void add_value_info(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                    const std::vector<int64_t>& dims) {
  auto* vi = list->Add();
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> inputs,
                          const std::string& output) {
  auto* n = g->add_node();
  n->set_name("/" + output);
  n->set_op_type(op);
  for (auto& i : inputs) n->add_input(std::move(i));
  n->add_output(output);
  return n;
}

// Four floats that differ for every k, so that no two constants are equal
// (equal constants are merged, which would hide the cost being measured).
void fill_distinct(onnx::TensorProto* t, const std::string& name, int k, float salt) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(4);
  for (int i = 0; i < 4; ++i) t->add_float_data(salt + static_cast<float>(k) * 4.0f + static_cast<float>(i));
}

// x: f32[4] through `n` steps to the output: step k adds to `g` the nodes
// that compute "h<k>" (`next`) from the previous step's value `h`.
using Step = std::function<void(onnx::GraphProto* g, int k, const std::string& h, const std::string& next)>;
onnx::ModelProto chained_model(int n, const Step& step) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value_info(g->mutable_input(), "x", {4});
  std::string h = "x";
  for (int k = 0; k < n; ++k) {
    const std::string next = "h" + std::to_string(k);
    step(g, k, h, next);
    h = next;
  }
  add_value_info(g->mutable_output(), h, {4});
  return m;
}

onnx::ModelProto foldable_model(int n) {
  return chained_model(n, [](onnx::GraphProto* g, int k, const std::string& h, const std::string& next) {
    const std::string a = "a" + std::to_string(k), b = "b" + std::to_string(k), p = "p" + std::to_string(k);
    for (const auto& [name, salt] : {std::pair{a, 0.5f}, std::pair{b, 0.25f}}) {
      auto* c = add_node(g, "Constant", {}, name);
      auto* attr = c->add_attribute();
      attr->set_name("value");
      attr->set_type(onnx::AttributeProto::TENSOR);
      fill_distinct(attr->mutable_t(), name, k, salt);
    }
    add_node(g, "Mul", {a, b}, p);
    add_node(g, "Add", {h, p}, next);
  });
}

onnx::ModelProto chain_model(int n) {
  return chained_model(n, [](onnx::GraphProto* g, int k, const std::string& h, const std::string& next) {
    if (k % 2 == 0) {
      const std::string c = "c" + std::to_string(k);
      fill_distinct(g->add_initializer(), c, k, 0.125f);
      add_node(g, "Add", {h, c}, next);
    } else {
      add_node(g, "Relu", {h}, next);
    }
  });
}

onnx::ModelProto wide_model(int n, const std::string& op) {
  auto m = empty_model();
  auto* g = m.mutable_graph();
  add_value_info(g->mutable_input(), "x", {4});
  std::vector<std::string> parts;
  for (int k = 0; k < n; ++k) {
    parts.push_back("r" + std::to_string(k));
    // Distinct values: x + k (an Add of a scalar constant each).
    const std::string c = "c" + std::to_string(k);
    auto* t = g->add_initializer();
    t->set_name(c);
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(static_cast<float>(k));
    add_node(g, "Add", {"x", c}, parts.back());
  }
  auto* node = add_node(g, op, parts, "y");
  if (op == "Concat") {
    auto* axis = node->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
  }
  add_value_info(g->mutable_output(), "y", {op == "Concat" ? 4 * static_cast<int64_t>(n) : 4});
  return m;
}

onnx::ModelProto make_model(const std::string& name, int n) {
  if (name == "foldable") return foldable_model(n);
  if (name == "chain") return chain_model(n);
  if (name == "concat") return wide_model(n, "Concat");
  if (name == "sum") return wide_model(n, "Sum");
  throw std::runtime_error("unknown model '" + name + "' (foldable, chain, concat, sum)");
}

const char* const kPhases[] = {"import", "to_edge", "fold", "dce", "partition", "to_backend",
                               "mem_plan", "prepare", "serialize", "verify"};
constexpr size_t kNumPhases = std::size(kPhases);

struct Timing {
  double ms[kNumPhases] = {};
  double total() const {
    double t = 0;
    for (double v : ms) t += v;
    return t;
  }
};

// One compile of `model` with `backends`, each phase timed as
// compile_program runs it (lowering/pipeline.cpp), the verifier separately.
Timing compile_once(const std::string& bytes, const std::string& backends) {
  Timing t;
  auto timed = [&](size_t phase, const std::function<void()>& f) {
    const double start = now_ms();
    f();
    t.ms[phase] += now_ms() - start;
  };
  std::unique_ptr<edgec::Program> p;
  timed(0, [&] {
    p = edgec::import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "scaling.onnx");
  });
  timed(9, [&] { edgec::verify_or_throw(*p); });
  auto pass = [&](size_t phase, const char* name) {
    timed(phase, [&] { edgec::find_pass(name)->create("")->run(*p); });
    timed(9, [&] { edgec::verify_or_throw(*p); });
  };
  pass(1, "to_edge");
  pass(2, "constant_prop");
  pass(3, "dce");
  const auto partitioners = edgec::make_partitioners(backends);
  if (!partitioners.empty()) {
    timed(4, [&] { edgec::partition_program(*p, partitioners); });
    timed(5, [&] { edgec::to_backend(*p); });
  }
  pass(6, "memory_plan");
  timed(7, [&] { edgec::prepare_delegate_constants(*p); });
  timed(8, [&] { (void)edgec::serialize_program(*p); });
  return t;
}

// Per phase, the doubling ratio 2^a of the least-squares fit of
// log(time) = a log(N) + b over the sizes where the phase takes 2 ms or
// more: steadier than any one ratio on a machine whose timings drift.
void print_fitted_doubling(const std::vector<int>& sizes, const std::vector<Timing>& rows, int from,
                           const char* label) {
  std::printf("%8s", label);
  for (size_t ph = 0; ph <= kNumPhases; ++ph) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (sizes[i] < from) continue;
      const double t = ph == kNumPhases ? rows[i].total() : rows[i].ms[ph];
      if (t < 2.0) continue;
      const double x = std::log(static_cast<double>(sizes[i])), y = std::log(t);
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++n;
    }
    if (n >= 3 && n * sxx - sx * sx > 0) {
      const double a = (n * sxy - sx * sy) / (n * sxx - sx * sx);
      std::printf(" %7.2f     ", std::pow(2.0, a));
    } else {
      std::printf(" %7s     ", "-");
    }
  }
  std::printf("\n");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
#if EDGEC_MIMALLOC
  mi_option_enable(mi_option_large_os_pages);  // as `edgec compile` (tools/edgec/allocator.cpp)
#endif
  int max_n = 100000, min_n = 1000, repeats = 1;
  std::string save_dir;
  std::vector<std::string> models = {"foldable", "chain", "concat", "sum"};
  std::vector<std::string> backends = {"none", "onednn"};
  auto split = [](const char* s) {
    std::vector<std::string> out;
    std::string cur;
    for (const char* c = s;; ++c) {
      if (*c == ',' || *c == '\0') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
        if (*c == '\0') break;
      } else {
        cur += *c;
      }
    }
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--max" && v) max_n = std::atoi(argv[++i]);
    else if (a == "--min" && v) min_n = std::atoi(argv[++i]);
    else if (a == "--repeats" && v) repeats = std::max(1, std::atoi(argv[++i]));
    else if (a == "--models" && v) models = split(argv[++i]);
    else if (a == "--backends" && v) backends = split(argv[++i]);
    else if (a == "--cpu-time") g_cpu_time = true;
    else if (a == "--save" && v) save_dir = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: compile_scaling [--max N] [--min N] [--models foldable,chain,concat,sum] "
                   "[--backends none,onednn] [--repeats R] [--cpu-time] [--save DIR]\n");
      return 2;
    }
  }
  if (max_n < 1 || min_n < 1) {
    std::fprintf(stderr, "error: --max and --min expect sizes of 1 or more\n");
    return 2;
  }
  std::vector<int> sizes;
  for (int n = max_n; n >= min_n; n /= 2) sizes.insert(sizes.begin(), n);
  if (sizes.empty()) sizes.push_back(max_n);

  try {
    for (const auto& model : models) {
      for (const auto& be : backends) {
        std::printf("\n%s model, --backends %s (ms of %s; x = time(N) / time(N/2), shown where the phase takes 2 ms "
                    "or more)\n",
                    model.c_str(), be.c_str(), g_cpu_time ? "CPU time" : "wall-clock time");
        std::printf("%8s", "N");
        for (const char* ph : kPhases) std::printf(" %12s", ph);
        std::printf(" %12s\n", "total");
        std::vector<Timing> rows;
        for (int n : sizes) {
          const std::string bytes = make_model(model, n).SerializeAsString();
          if (!save_dir.empty()) {
            const std::string path = save_dir + "/" + model + "_" + std::to_string(n) + ".onnx";
            std::FILE* f = std::fopen(path.c_str(), "wb");
            if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
              throw std::runtime_error("cannot write " + path);
          }
          std::vector<Timing> runs;
          for (int r = 0; r < repeats; ++r) runs.push_back(compile_once(bytes, be));
          Timing med;
          for (size_t ph = 0; ph < kNumPhases; ++ph) {
            std::vector<double> v;
            for (const auto& run : runs) v.push_back(run.ms[ph]);
            med.ms[ph] = median(v);
          }
          std::printf("%8d", n);
          auto cell = [&](double now, double before, bool have_before) {
            char ratio[16] = "";
            if (have_before && now >= 2.0 && before > 0) std::snprintf(ratio, sizeof ratio, " x%.2f", now / before);
            std::printf(" %7.1f%-5s", now, ratio);
          };
          const bool have = !rows.empty();
          for (size_t ph = 0; ph < kNumPhases; ++ph) cell(med.ms[ph], have ? rows.back().ms[ph] : 0, have);
          cell(med.total(), have ? rows.back().total() : 0, have);
          std::printf("\n");
          std::fflush(stdout);
          rows.push_back(med);
        }
        print_fitted_doubling(sizes, rows, 0, "fit x");
        // Past the caches: the scaling of the algorithm rather than of the
        // memory hierarchy, over the largest sizes.
        if (sizes.size() >= 4) {
          char label[32];
          const int from = sizes[sizes.size() - 4];
          if (from >= 1000) std::snprintf(label, sizeof label, "fit>=%dk", from / 1000);
          else std::snprintf(label, sizeof label, "fit>=%d", from);
          print_fitted_doubling(sizes, rows, sizes[sizes.size() - 4], label);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
