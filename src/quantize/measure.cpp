// The per-layer measurement (internal.h, measure_layers): whether a Conv,
// Gemm or MatMul runs faster in int8 than in float32 is timed on the
// running CPU, never assumed (oneDNN's int8 primitives are fast with VNNI
// and its exact reference implementation is slow without it, see
// docs/architecture.md on the onednn delegate). Each layer the QDQ rewrite
// quantized becomes two one-layer ONNX models:
//
// - float32: the node as in the float model (float weights and bias), with
//   the Relu or Clip the rewrite folded into it; float inputs of the shapes
//   a calibration run gave, a float output;
// - int8: the node as in the QDQ model with the DequantizeLinear of each
//   input and the QuantizeLinear of its output; a quantized activation is a
//   uint8 graph input and the output stays uint8, so that fuse_qdq makes
//   one integer operator of it (qlinear_conv / qlinear_matmul), as the
//   layer runs between two quantized neighbours.
//
// Both are compiled in memory by edgec (the default lowering, the given
// backends, the instruction set this process runs: EDGEC_ISA, or the best
// the CPU has) and run on one thread on fixed pseudo-random inputs. After a
// warm-up run of each, timed samples alternate between the two forms (a
// sample repeats its form enough times to last about 50 us, so that the
// clock's resolution does not matter) until the layer's time budget is
// spent: at least 3 and at most 25 samples of each; the medians per run
// are compared. Layers of the same operators, attributes and shapes are
// timed once; a layer that reads constants only is not (compiling folds
// it). A layer stays int8 when int8_ms <= (1 - margin) * float_ms,
// else it is left float32 (a layer left float32 between quantized
// neighbours also pays a DequantizeLinear before it and a QuantizeLinear
// after it; the margin covers those and the timing noise).
//
// time_models times the whole float and quantized models the same way
// (ten layers' budget) on a held-back sample, for the report: what the
// per-layer decisions add up to.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "base/diagnostic.h"
#include "kernels/isa.h"
#include "quantize/internal.h"

namespace edgec::quantize::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMinSamples = 3, kMaxSamples = 25;
constexpr double kSampleSeconds = 50e-6;
// A graph output's producer writes NAME + this in the QDQ model (qdq.cpp).
const std::string kOutputSuffix = "_QuantizeLinear_Input";

bool standard(const onnx::NodeProto& n) { return n.domain().empty() || n.domain() == "ai.onnx"; }

struct InputType {
  int32_t elem = onnx::TensorProto::FLOAT;
  std::vector<int64_t> dims;
};

// A one-layer model: `nodes` (in order) of `source`; a tensor they read and
// do not write is copied as an initializer when `source` has it, else it is
// a graph input of the type `types` gives. `key` describes the model
// without its names or values: equal keys, equal work.
struct OneLayer {
  onnx::ModelProto model;
  std::string key;
  std::vector<std::pair<std::string, InputType>> inputs;
};

OneLayer assemble(const onnx::ModelProto& source, const std::map<std::string, const onnx::TensorProto*>& initializers,
                  const std::vector<const onnx::NodeProto*>& nodes, const std::map<std::string, InputType>& types,
                  const std::string& output) {
  OneLayer out;
  out.model.set_ir_version(source.ir_version());
  *out.model.mutable_opset_import() = source.opset_import();
  auto* graph = out.model.mutable_graph();
  graph->set_name("layer");
  std::set<std::string> written, added;
  for (const auto* n : nodes) {
    out.key += n->domain() + "::" + n->op_type() + "(";
    for (const auto& in : n->input()) {
      if (in.empty()) {
        out.key += "-,";
        continue;
      }
      if (written.count(in)) {
        out.key += "N,";
        continue;
      }
      auto init = initializers.find(in);
      if (init != initializers.end()) {
        out.key += "C" + std::to_string(init->second->data_type());
        for (int64_t d : init->second->dims()) out.key += "x" + std::to_string(d);
        if (added.insert(in).second) *graph->add_initializer() = *init->second;
      } else {
        const InputType& t = types.at(in);
        out.key += "I" + std::to_string(t.elem);
        for (int64_t d : t.dims) out.key += "x" + std::to_string(d);
        if (added.insert(in).second) {
          auto* vi = graph->add_input();
          vi->set_name(in);
          auto* tt = vi->mutable_type()->mutable_tensor_type();
          tt->set_elem_type(t.elem);
          for (int64_t d : t.dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
          out.inputs.emplace_back(in, t);
        }
      }
      out.key += ",";
    }
    out.key += ")";
    for (const auto& a : n->attribute()) out.key += a.SerializeAsString();
    out.key += ";";
    *graph->add_node() = *n;
    for (const auto& o : n->output()) written.insert(o);
  }
  graph->add_output()->set_name(output);
  return out;
}

// Fixed pseudo-random values for each graph input (a linear congruential
// generator: the same inputs every run).
Sample make_sample(const OneLayer& layer, const std::string& what) {
  Sample s;
  s.path = what;
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state >> 33);
  };
  for (const auto& [name, type] : layer.inputs) {
    io::NpyArray a;
    a.name = name;
    a.shape = type.dims;
    int64_t n = 1;
    for (int64_t d : type.dims) n *= d;
    if (type.elem == onnx::TensorProto::FLOAT) {
      a.dtype = DType::Float32;
      std::vector<float> v(static_cast<size_t>(n));
      for (auto& x : v) x = static_cast<float>(next() % 20001) / 10000.0f - 1.0f;
      a.data.resize(v.size() * sizeof(float));
      std::memcpy(a.data.data(), v.data(), a.data.size());
    } else {
      a.dtype = type.elem == onnx::TensorProto::INT8 ? DType::Int8 : DType::UInt8;
      a.data.resize(static_cast<size_t>(n));
      for (auto& b : a.data) b = static_cast<std::byte>(next() & 0xff);
    }
    s.arrays.push_back(std::move(a));
  }
  return s;
}

// Seconds per run of `reps` runs.
double time_runs(Runner& r, int64_t reps) {
  const auto t0 = Clock::now();
  for (int64_t i = 0; i < reps; ++i) r.execute();
  return std::chrono::duration<double>(Clock::now() - t0).count() / static_cast<double>(reps);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Times the two compiled forms of one layer (LayerTiming's times and runs).
void time_layer(Runner& f, Runner& q, double budget_seconds, LayerTiming& t) {
  // Warm-up: the first run primes caches and the delegates' scratch memory;
  // the second sizes the samples.
  f.execute();
  q.execute();
  auto reps = [](double seconds) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(kSampleSeconds / std::max(seconds, 1e-9))), 1, 100000);
  };
  const int64_t rf = reps(time_runs(f, 1)), rq = reps(time_runs(q, 1));
  std::vector<double> fs, qs;
  const auto start = Clock::now();
  for (int i = 0; i < kMaxSamples; ++i) {
    if (i % 2 == 0) {
      fs.push_back(time_runs(f, rf));
      qs.push_back(time_runs(q, rq));
    } else {
      qs.push_back(time_runs(q, rq));
      fs.push_back(time_runs(f, rf));
    }
    if (i + 1 >= kMinSamples && std::chrono::duration<double>(Clock::now() - start).count() > budget_seconds) break;
  }
  t.float_ms = median(fs) * 1e3;
  t.int8_ms = median(qs) * 1e3;
  t.runs = static_cast<int64_t>(fs.size());
  t.measured = true;
}

}  // namespace

Measurement measure_layers(const onnx::ModelProto& float_model, const QdqModel& q,
                           const std::map<std::string, std::vector<int64_t>>& shapes, const Options& options) {
  const auto& fg = float_model.graph();
  const auto& qg = q.model.graph();
  std::map<std::string, const onnx::TensorProto*> f_init, q_init;
  for (const auto& t : fg.initializer()) f_init[t.name()] = &t;
  for (const auto& t : qg.initializer()) q_init[t.name()] = &t;
  // Graph inputs with an initializer of their name are inputs, not constants.
  for (const auto& i : fg.input()) f_init.erase(i.name());
  for (const auto& i : qg.input()) q_init.erase(i.name());
  std::map<std::string, const onnx::NodeProto*> f_prod, q_prod;
  std::map<std::string, std::vector<const onnx::NodeProto*>> q_readers;
  for (const auto& n : fg.node())
    for (const auto& o : n.output()) f_prod[o] = &n;
  for (const auto& n : qg.node()) {
    for (const auto& o : n.output()) q_prod[o] = &n;
    for (const auto& i : n.input()) q_readers[i].push_back(&n);
  }
  auto strip = [](std::string name) {
    if (name.size() > kOutputSuffix.size() && name.ends_with(kOutputSuffix))
      name.resize(name.size() - kOutputSuffix.size());
    return name;
  };
  auto is_call = [](const onnx::NodeProto* n, const char* op) { return n && standard(*n) && n->op_type() == op; };

  Measurement result;
  std::map<std::string, size_t> timed;  // OneLayer keys -> the layer timed.
  for (const auto& n : qg.node()) {
    if (!standard(n) || (n.op_type() != "Conv" && n.op_type() != "Gemm" && n.op_type() != "MatMul") ||
        n.output_size() < 1)
      continue;
    auto from_dq = [&](const std::string& i) {
      auto it = q_prod.find(i);
      return it != q_prod.end() && is_call(it->second, "DequantizeLinear");
    };
    if (std::none_of(n.input().begin(), n.input().end(), from_dq)) continue;
    LayerTiming t;
    t.name = n.name().empty() ? n.output(0) : n.name();
    t.op_type = n.op_type();

    // The node in the float model: it writes the same tensor, or a Relu or
    // Clip folded into it does.
    std::string out = n.output(0);
    if (!f_prod.count(out)) out = strip(out);
    const onnx::NodeProto* fnode = f_prod.count(out) ? f_prod.at(out) : nullptr;
    const onnx::NodeProto* act = nullptr;
    if (fnode && (is_call(fnode, "Relu") || is_call(fnode, "Clip")) && f_prod.count(fnode->input(0))) {
      act = fnode;
      fnode = f_prod.at(fnode->input(0));
    }
    if (!fnode || !is_call(fnode, n.op_type().c_str())) {
      t.reason = "no node of the float model writes '" + out + "'";
      result.layers.push_back(t);
      continue;
    }
    if (act) t.op_type += "+" + act->op_type();

    std::string missing;
    auto shape_of = [&](const std::string& name) -> std::vector<int64_t> {
      auto it = shapes.find(name);
      if (it != shapes.end()) return it->second;
      if (missing.empty()) missing = name;
      return {};
    };
    // The float32 form.
    std::vector<const onnx::NodeProto*> fnodes{fnode};
    if (act) fnodes.push_back(act);
    std::map<std::string, InputType> ftypes;
    for (const auto* m : fnodes)
      for (const auto& i : m->input())
        if (!i.empty() && !f_init.count(i) && i != fnode->output(0))
          ftypes[i] = InputType{onnx::TensorProto::FLOAT, shape_of(i)};
    // The int8 form: the DequantizeLinear nodes, the node, its QuantizeLinear.
    std::vector<const onnx::NodeProto*> qnodes;
    std::map<std::string, InputType> qtypes;
    for (const auto& i : n.input()) {
      if (i.empty()) continue;
      if (!from_dq(i)) {
        if (!q_init.count(i)) qtypes[i] = InputType{onnx::TensorProto::FLOAT, shape_of(i)};
        continue;
      }
      const onnx::NodeProto* dq = q_prod.at(i);
      if (std::find(qnodes.begin(), qnodes.end(), dq) != qnodes.end()) continue;
      qnodes.push_back(dq);
      const std::string& x = dq->input(0);
      if (q_init.count(x)) continue;
      // An activation: the QuantizeLinear writing x reads the float tensor.
      auto qit = q_prod.find(x);
      const std::string tensor = qit != q_prod.end() && is_call(qit->second, "QuantizeLinear")
                                     ? strip(qit->second->input(0))
                                     : x;
      int32_t elem = onnx::TensorProto::UINT8;
      if (dq->input_size() > 2 && q_init.count(dq->input(2))) elem = q_init.at(dq->input(2))->data_type();
      qtypes[x] = InputType{elem, shape_of(tensor)};
    }
    qnodes.push_back(&n);
    std::string qout = n.output(0);
    const auto& readers = q_readers[n.output(0)];
    if (readers.size() == 1 && is_call(readers[0], "QuantizeLinear")) {
      qnodes.push_back(readers[0]);
      qout = readers[0]->output(0);
    }
    if (!missing.empty()) {
      t.reason = "no calibration run gave the shape of '" + missing + "'";
      result.layers.push_back(t);
      continue;
    }
    const OneLayer fl = assemble(float_model, f_init, fnodes, ftypes, fnodes.back()->output(0));
    const OneLayer ql = assemble(q.model, q_init, qnodes, qtypes, qout);
    const std::string key = fl.key + "|" + ql.key;

    auto done = timed.find(key);
    if (fl.inputs.empty() && ql.inputs.empty()) {
      t.reason = "it reads constants only, which edgec computes at compile time in either form";
    } else if (done != timed.end()) {
      const LayerTiming& first = result.layers[done->second];
      t.same_as = first.name;
      t.measured = first.measured;
      t.reason = first.reason;
      t.float_ms = first.float_ms;
      t.int8_ms = first.int8_ms;
      t.runs = first.runs;
      t.int8 = first.int8;
    } else {
      try {
        const Sample fs = make_sample(fl, "random inputs"), qs = make_sample(ql, "random inputs");
        Runner f(fl.model, {}, "layer '" + t.name + "' in float32", driver::ImportFlags{}, options.backends);
        Runner qr(ql.model, {}, "layer '" + t.name + "' in int8", driver::ImportFlags{}, options.backends);
        f.bind(fs);
        qr.bind(qs);
        time_layer(f, qr, options.measure_budget_ms / 1e3, t);
        t.int8 = t.int8_ms <= (1 - options.measure_margin) * t.float_ms;
      } catch (const CompileError& e) {
        t.measured = false;
        t.reason = e.what();
      }
      timed[key] = result.layers.size();
    }
    if (!t.int8) result.keep_writing.insert(fnode->output(0));
    result.layers.push_back(std::move(t));
  }
  return result;
}

LayerTiming time_models(const onnx::ModelProto& float_model, const onnx::ModelProto& quantized, const Sample& sample,
                        const driver::ImportFlags& flags, const Options& options) {
  LayerTiming t;
  t.name = sample.path;
  try {
    Runner f(float_model, {}, "the float32 model", flags, options.backends);
    Runner q(quantized, {}, "the quantized model", flags, options.backends);
    f.bind(sample);
    q.bind(sample);
    time_layer(f, q, 10 * options.measure_budget_ms / 1e3, t);
  } catch (const CompileError& e) {
    t.measured = false;
    t.reason = e.what();
  }
  return t;
}

}  // namespace edgec::quantize::detail
