// quantize_model (quantize.h): reads the float model, raises an old opset
// to 13, turns Constant nodes into initializers (so that a weight given as
// a Constant is quantized as one), calibrates on the calibration files but
// the held-back ones, rewrites the model as QDQ (qdq.cpp), times each
// Conv / Gemm / MatMul layer in float32 and int8 on this CPU and rewrites
// it again with those not faster in int8 left float32 (measure.cpp), and
// compares the quantized model with the float one on the held-back files,
// both compiled and run by edgec.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "base/diagnostic.h"
#include "frontends/onnx/opsets.h"
#include "kernels/isa.h"
#include "quantize/internal.h"

namespace edgec::quantize {
namespace {

using detail::Range;
using detail::Runner;
using detail::Sample;

onnx::ModelProto read_model(const std::string& path) {
  const std::string bytes = driver::read_file(path);
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw CompileError(path + ": not an ONNX model (the ModelProto does not parse)");
  const int64_t opset = detail::default_opset(model);
  if (opset >= 13) return model;
  // Per-channel DequantizeLinear (its axis) needs opset 13.
  onnx::ModelProto converted = model;
  const auto conversion = onnx_import::convert_to_handlers_opset(converted);
  std::string why = conversion.failure;
  if (why.empty() && !conversion.kept.empty())
    why = "it keeps " + std::to_string(conversion.kept.size()) + " node(s) at their old meaning (Softmax, " +
          "LogSoftmax or PRelu of opset " + std::to_string(opset) + ")";
  if (!why.empty())
    throw CompileError(path + ": default-domain opset " + std::to_string(opset) +
                       "; edgec quantize writes per-channel DequantizeLinear, which needs opset 13 or later, and " +
                       "ONNX's version converter could not raise the model to 13: " + why +
                       "; export the model at opset 13 or later");
  return converted;
}

// Constant nodes holding a tensor become initializers of the same name, and
// so do Identity nodes of an initializer (PyTorch's exporter writes one for
// a parameter shared by two modules): ORT's quantize_static quantizes
// initializers only, and its recommended pre-processing removes both.
void hoist_constants(onnx::ModelProto& model) {
  auto* graph = model.mutable_graph();
  std::set<std::string> outputs, inputs;
  for (const auto& o : graph->output()) outputs.insert(o.name());
  for (const auto& i : graph->input()) inputs.insert(i.name());
  std::map<std::string, int> initializers;
  for (int i = 0; i < graph->initializer_size(); ++i)
    if (!inputs.count(graph->initializer(i).name())) initializers[graph->initializer(i).name()] = i;
  std::vector<onnx::NodeProto> kept;
  for (auto& n : *graph->mutable_node()) {
    const bool standard = n.domain().empty() || n.domain() == "ai.onnx";
    const bool constant = standard && n.op_type() == "Constant" && n.output_size() == 1 && n.attribute_size() == 1 &&
                          n.attribute(0).name() == "value" && !outputs.count(n.output(0));
    const bool identity = standard && n.op_type() == "Identity" && n.input_size() == 1 && n.output_size() == 1 &&
                          initializers.count(n.input(0)) && !outputs.count(n.output(0));
    if (!constant && !identity) {
      kept.push_back(std::move(n));
      continue;
    }
    onnx::TensorProto t = constant ? n.attribute(0).t() : graph->initializer(initializers.at(n.input(0)));
    t.set_name(n.output(0));
    initializers[n.output(0)] = graph->initializer_size();
    *graph->add_initializer() = std::move(t);
  }
  graph->clear_node();
  for (auto& n : kept) *graph->add_node() = std::move(n);
}

struct Accumulator {
  double aa = 0, bb = 0, ab = 0, dd = 0, max_abs = 0;
  void add(const Tensor& a, const Tensor& b) {
    const io::NpyArray ca = io::NpyArray::from_tensor("a", a), cb = io::NpyArray::from_tensor("b", b);
    const auto* x = reinterpret_cast<const float*>(ca.data.data());
    const auto* y = reinterpret_cast<const float*>(cb.data.data());
    for (int64_t i = 0; i < ca.numel(); ++i) {
      const double u = x[i], v = y[i];
      aa += u * u;
      bb += v * v;
      ab += u * v;
      dd += (u - v) * (u - v);
      max_abs = std::max(max_abs, std::fabs(u - v));
      if (std::isnan(u) != std::isnan(v)) max_abs = std::numeric_limits<double>::quiet_NaN();
    }
  }
  void fill(Comparison& c) const {
    c.max_abs_error = max_abs;
    // Two zero tensors are the same; one zero tensor is not like the other.
    c.cosine = aa == 0 && bb == 0 ? 1.0 : (aa == 0 || bb == 0 ? 0.0 : ab / std::sqrt(aa * bb));
    c.relative_error = aa == 0 ? (dd == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : std::sqrt(dd / aa);
  }
};

bool same_shape(const Tensor& a, const Tensor& b) {
  return a.dtype == b.dtype && std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(), b.shape().end());
}

void compare(const std::string& path, const onnx::ModelProto& float_model, const detail::QdqModel& q,
             Runner& float_runner, const std::vector<std::string>& held_back, const Options& options,
             const driver::ImportFlags& flags, Report& report) {
  std::vector<std::string> extra;
  for (const auto& layer : q.layers) extra.push_back(layer.qdq_tensor);
  std::unique_ptr<Runner> qdq;
  try {
    qdq = std::make_unique<Runner>(q.model, extra, path + " (quantized)", flags, options.backends);
  } catch (const CompileError& e) {
    report.reason = std::string("edgec cannot compile the quantized model: ") + e.what();
    return;
  }
  std::vector<Accumulator> outs(static_cast<size_t>(float_model.graph().output_size())), layers(q.layers.size());
  for (const auto& file : held_back) {
    const Sample sample = detail::read_sample(file);
    float_runner.run(sample);
    try {
      qdq->run(sample);
    } catch (const CompileError& e) {
      report.reason = std::string("edgec cannot run the quantized model: ") + e.what();
      return;
    }
    auto pair = [&](const std::string& f, const std::string& g, Accumulator& acc) {
      const int64_t i = float_runner.find_output(f), j = qdq->find_output(g);
      if (i < 0 || j < 0) return;
      const Tensor& a = float_runner.output(static_cast<size_t>(i));
      const Tensor& b = qdq->output(static_cast<size_t>(j));
      if (a.dtype != DType::Float32 || !same_shape(a, b)) return;
      acc.add(a, b);
    };
    for (int k = 0; k < float_model.graph().output_size(); ++k) {
      const std::string& name = float_model.graph().output(k).name();
      pair(name, name, outs[static_cast<size_t>(k)]);
    }
    for (size_t k = 0; k < q.layers.size(); ++k) pair(q.layers[k].float_tensor, q.layers[k].qdq_tensor, layers[k]);
  }
  report.compared = true;
  for (int k = 0; k < float_model.graph().output_size(); ++k) {
    Comparison c;
    c.name = float_model.graph().output(k).name();
    outs[static_cast<size_t>(k)].fill(c);
    report.outputs.push_back(c);
  }
  std::vector<Comparison> all;
  for (size_t k = 0; k < q.layers.size(); ++k) {
    Comparison c;
    c.name = q.layers[k].node;
    c.op_type = q.layers[k].op_type;
    c.tensor = q.layers[k].float_tensor;
    layers[k].fill(c);
    all.push_back(c);
  }
  report.layers_compared = static_cast<int64_t>(all.size());
  std::stable_sort(all.begin(), all.end(), [](const Comparison& a, const Comparison& b) {
    if (a.cosine != b.cosine) return a.cosine < b.cosine;
    return a.relative_error > b.relative_error;
  });
  if (static_cast<int64_t>(all.size()) > options.worst_layers) all.resize(static_cast<size_t>(options.worst_layers));
  report.worst_layers = std::move(all);
}

}  // namespace

Result quantize_model(const std::string& model_path, const std::string& calibration_dir, const Options& options) {
  driver::require_isa();
  onnx::ModelProto model = read_model(model_path);
  hoist_constants(model);

  std::set<std::string> node_names;
  for (const auto& n : model.graph().node())
    if (!n.name().empty()) node_names.insert(n.name());
  std::set<std::string> keep(options.keep_float.begin(), options.keep_float.end());
  for (const auto& name : keep)
    if (!node_names.count(name)) {
      std::string some;
      int shown = 0;
      for (const auto& n : model.graph().node())
        if (!n.name().empty() && n.op_type() != "Constant" && shown < 5) {
          some += (shown++ ? ", '" : "'") + n.name() + "'";
        }
      throw driver::UsageError("--keep-float: " + model_path + " has no node named '" + name +
                               "' (ONNX node names, e.g. " + (some.empty() ? "none: its nodes have no names" : some) +
                               ")");
    }

  const std::vector<std::string> files = detail::list_samples(calibration_dir);
  const int64_t n = static_cast<int64_t>(files.size());
  int64_t holdout = options.holdout ? *options.holdout
                                    : (options.report ? std::max<int64_t>(1, std::llround(0.2 * n)) : 0);
  if (holdout < 0) throw driver::UsageError("--holdout: expected 0 or more files, got " + std::to_string(holdout));
  if (holdout >= n)
    throw driver::UsageError("--calibration '" + calibration_dir + "' holds " + std::to_string(n) + " .npz file(s) and " +
                             std::to_string(holdout) + " are held back for the report, leaving none to calibrate " +
                             "with; add files, or lower --holdout (0 holds none back)");
  const std::vector<std::string> calibrate(files.begin(), files.end() - holdout), held(files.end() - holdout, files.end());

  // Inputs left symbolic take the first sample's shapes.
  driver::ImportFlags flags = options.import_flags;
  const Sample first = detail::read_sample(calibrate.front());
  std::set<std::string> initializers;
  for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
  std::set<std::string> graph_inputs;
  for (const auto& in : model.graph().input()) {
    if (initializers.count(in.name())) continue;
    graph_inputs.insert(in.name());
    bool symbolic = !in.type().tensor_type().has_shape();
    for (const auto& d : in.type().tensor_type().shape().dim()) symbolic |= !d.has_dim_value();
    if (!symbolic || flags.shapes.count(in.name()) || flags.max_shapes.count(in.name())) continue;
    for (const auto& a : first.arrays)
      if (a.name == in.name()) flags.shapes[in.name()] = a.shape;
  }

  const std::vector<std::string> candidates = detail::calibration_candidates(model, keep);
  std::vector<std::string> computed;
  for (const auto& c : candidates)
    if (!graph_inputs.count(c)) computed.push_back(c);
  Runner float_runner(model, computed, model_path, flags, options.backends);
  detail::RangeCollector collector(options);
  const std::set<std::string> wanted(candidates.begin(), candidates.end());
  // The shapes of the first sample's tensors, for the per-layer measurement.
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& file : calibrate) {
    const Sample sample = file == first.path ? first : detail::read_sample(file);
    float_runner.run(sample);
    for (size_t i = 0; i < float_runner.num_outputs(); ++i) {
      const Tensor& t = float_runner.output(i);
      if (!wanted.count(float_runner.output_name(i))) continue;
      collector.add(float_runner.output_name(i), t);
      shapes.try_emplace(float_runner.output_name(i), t.shape().begin(), t.shape().end());
    }
    for (const auto& a : sample.arrays)
      if (wanted.count(a.name)) {
        collector.add(a.name, a.view());
        shapes.try_emplace(a.name, a.shape);
      }
  }
  std::map<std::string, Range> ranges;
  for (const auto& c : candidates)
    if (collector.has(c)) ranges[c] = collector.range(c);
  // As ONNX Runtime: a Softmax's output is quantized over [0, 1].
  for (const auto& node : model.graph().node())
    if (node.op_type() == "Softmax" && node.output_size() > 0 && ranges.count(node.output(0)))
      ranges[node.output(0)] = Range{0.0f, 1.0f};

  detail::QdqModel q = detail::rewrite_qdq(model, ranges, keep);
  // Layers not faster in int8 on this CPU stay float32 (measure.cpp).
  Result result;
  Report& report = result.report;
  report.measure_margin = options.measure_margin;
  report.isa = isa_name(kernel_isa());
  if (!options.measure) {
    report.measure_reason = "turned off (--no-measure)";
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    detail::Measurement m = detail::measure_layers(model, q, shapes, options);
    report.measure_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report.measured = true;
    for (const auto& t : m.layers)
      if (!t.int8) report.kept_slower.push_back(t.name);
    report.timings = std::move(m.layers);
    if (!m.keep_writing.empty()) q = detail::rewrite_qdq(model, ranges, keep, m.keep_writing);
  }
  if (!q.model.SerializeToString(&result.model)) throw CompileError(model_path + ": cannot serialize the quantized model");
  report.model = model_path;
  report.method = options.method == Calibration::MinMax ? "minmax" : "percentile=" + [&] {
    std::string s = std::to_string(options.percentile);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  }();
  report.calibration_samples = static_cast<int64_t>(calibrate.size());
  report.holdout_samples = holdout;
  report.quantized_ops = q.quantized_ops;
  report.quantize_linear = q.quantize_linear;
  report.dequantize_linear = q.dequantize_linear;
  report.int8_weights = q.int8_weights;
  report.kept_float.assign(keep.begin(), keep.end());
  std::error_code ec;
  report.float_bytes = std::filesystem::file_size(model_path, ec);
  report.quantized_bytes = result.model.size();
  if (!options.report) report.reason = "not asked for";
  else if (held.empty()) report.reason = "no calibration file is held back (--holdout 0)";
  else compare(model_path, model, q, float_runner, held, options, flags, report);
  if (report.measured && !held.empty())
    report.whole_model = detail::time_models(model, q.model, detail::read_sample(held.front()), flags, options);
  return result;
}

}  // namespace edgec::quantize
