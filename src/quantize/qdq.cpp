// The QDQ rewrite (internal.h): which tensors of a float model get
// QuantizeLinear -> DequantizeLinear, with which parameters, in the form
// ONNX Runtime's QDQ quantizer (quantize_static, QuantFormat.QDQ,
// per_channel=True, QUInt8 activations, QInt8 weights) writes:
//
// - Nodes are visited in the file's order, and each marks tensors to
//   quantize as ORT's operator classes do: Conv and Gemm their input,
//   output, weight (per channel) and bias; MatMul its inputs (a constant B
//   per channel along its last axis) and output; Add, Mul, Concat and
//   GlobalAveragePool every input and output; a Relu or Clip whose input
//   is marked is folded into its producer (the producer writes the
//   activation's output, whose range already starts at 0 or at the clip)
//   when nothing else reads that input; Reshape, Transpose, Flatten,
//   Squeeze, Unsqueeze, Resize, MaxPool and AveragePool give their output
//   their input's parameters when the input is marked.
// - Names are ORT's: T_QuantizeLinear / T_DequantizeLinear nodes,
//   T_QuantizeLinear_Output / T_DequantizeLinear_Output tensors, T_scale and
//   T_zero_point; a graph output keeps its name on the DequantizeLinear (its
//   producer writes T_QuantizeLinear_Input); W_quantized for an int8 weight;
//   B_quantized, B_quantized_scale, B_quantized_zero_point for an int32 bias,
//   whose DequantizeLinear writes B.
// - Parameters follow ORT's compute_scale_zp: the range widened to hold 0,
//   scale = (max - min) / (qmax - qmin) in float64 then float32, zero point
//   round-half-even(qmin - min / scale); weights symmetric in -127..127
//   (zero point 0); a bias scale is x_scale * w_scale[c] in float32.
//   Values are quantized as ONNX's QuantizeLinear does: nearbyint(x / scale)
//   in float32, saturated.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

#include "base/diagnostic.h"
#include "quantize/internal.h"

namespace edgec::quantize::detail {
namespace {

enum class Kind { Conv, Gemm, MatMul, General, Removable, Direct };

std::optional<Kind> kind_of(const onnx::NodeProto& n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") return std::nullopt;
  const std::string& op = n.op_type();
  if (op == "Conv") return Kind::Conv;
  if (op == "Gemm") return Kind::Gemm;
  if (op == "MatMul") return Kind::MatMul;
  if (op == "Add" || op == "Mul" || op == "Concat" || op == "GlobalAveragePool") return Kind::General;
  if (op == "Relu" || op == "Clip") return Kind::Removable;
  if (op == "Reshape" || op == "Transpose" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
      op == "Resize" || op == "AveragePool")
    return Kind::Direct;
  if (op == "MaxPool" && n.output_size() == 1) return Kind::Direct;  // Not with Indices.
  return std::nullopt;
}

std::vector<float> floats_of(const onnx::TensorProto& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError("initializer '" + t.name() + "' is stored in an external data file; edgec quantize reads " +
                       "models with every tensor inside the .onnx file (save it with save_as_external_data=False)");
  if (t.has_raw_data()) {
    if (t.raw_data().size() != v.size() * sizeof(float))
      throw CompileError("initializer '" + t.name() + "': raw_data holds " + std::to_string(t.raw_data().size()) +
                         " bytes, its dims need " + std::to_string(v.size() * sizeof(float)));
    std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
  } else {
    if (static_cast<size_t>(t.float_data_size()) != v.size())
      throw CompileError("initializer '" + t.name() + "': float_data holds " + std::to_string(t.float_data_size()) +
                         " values, its dims need " + std::to_string(v.size()));
    std::copy(t.float_data().begin(), t.float_data().end(), v.begin());
  }
  return v;
}

template <typename T>
onnx::TensorProto make_tensor(const std::string& name, int32_t type, const std::vector<int64_t>& dims,
                              const std::vector<T>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
  return t;
}

// compute_scale_zp: (zero point, scale) for the range [lo, hi] in
// [qmin, qmax], symmetric or not.
std::pair<int32_t, float> scale_zero_point(float lo, float hi, int32_t qmin, int32_t qmax, bool symmetric) {
  float rmin = std::min(lo, 0.0f), rmax = std::max(hi, 0.0f);
  if (symmetric) {
    const float absmax = std::max(std::fabs(rmin), std::fabs(rmax));
    rmin = -absmax;
    rmax = absmax;
  }
  const double scale = static_cast<double>(rmax - rmin) / (static_cast<double>(qmax) - qmin);
  if (scale < static_cast<double>(std::numeric_limits<float>::min())) return {0, 1.0f};
  const double zp = symmetric ? std::nearbyint((qmax + qmin) / 2.0) : std::nearbyint(qmin - rmin / scale);
  return {static_cast<int32_t>(zp), static_cast<float>(scale)};
}

int32_t quantize_value(float x, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
  const float q = std::nearbyint(x / scale) + static_cast<float>(zp);
  return static_cast<int32_t>(std::clamp(q, static_cast<float>(qmin), static_cast<float>(qmax)));
}

struct Mark {
  enum Type { Activation, Weight } type = Activation;
  int64_t axis = -1;     // Weights per channel along it; -1: per tensor.
  std::string provider;  // Shares this tensor's parameters.
};

struct Quantized {
  std::string scale, zero_point, dq_output;
};

struct Bias {
  std::string bias, input, weight;
  float alpha = 1;
};

class Rewriter {
 public:
  Rewriter(const onnx::ModelProto& model, const std::map<std::string, Range>& ranges,
           const std::set<std::string>& keep_float, const std::set<std::string>& keep_writing)
      : ranges_(ranges), keep_float_(keep_float), keep_writing_(keep_writing) {
    out_.model = model;
    graph_ = out_.model.mutable_graph();
    for (const auto& i : graph_->input()) graph_inputs_.insert(i.name());
    for (const auto& o : graph_->output()) graph_outputs_.insert(o.name());
    for (const auto& t : graph_->initializer())
      if (!graph_inputs_.count(t.name())) initializers_[t.name()] = t;
    for (const auto& n : graph_->node()) {
      nodes_.push_back(n);
      for (const auto& o : n.output()) names_.insert(o);
    }
    for (const auto& [name, t] : initializers_) names_.insert(name);
    for (const auto& name : graph_inputs_) names_.insert(name);
  }

  QdqModel run() {
    removed_.assign(nodes_.size(), false);
    for (size_t i = 0; i < nodes_.size(); ++i) visit(i);
    quantize_normal();
    quantize_shared();
    quantize_biases();
    assemble();
    return std::move(out_);
  }

 private:
  bool is_float_initializer(const std::string& name) const {
    auto it = initializers_.find(name);
    return it != initializers_.end() && it->second.data_type() == onnx::TensorProto::FLOAT;
  }
  bool quantizable(const std::string& name) const {
    return !name.empty() && (is_float_initializer(name) || ranges_.count(name));
  }
  bool is_marked(const std::string& name) const { return marks_.count(name) != 0; }

  void mark(const std::string& name, Mark m, bool overwrite) {
    if (!quantizable(name)) return;
    if (!marks_.count(name)) order_.push_back(name);
    else if (!overwrite) return;
    marks_[name] = std::move(m);
  }
  void activation(const std::string& name) { mark(name, Mark{}, false); }
  void shared(const std::string& name, const std::string& provider) {
    mark(name, Mark{Mark::Activation, -1, provider}, true);
  }
  void weight(const std::string& name, int64_t axis) {
    if (is_float_initializer(name)) mark(name, Mark{Mark::Weight, axis, ""}, true);
  }

  size_t readers(const std::string& name) const {
    size_t n = 0;
    for (const auto& node : nodes_)
      n += std::any_of(node.input().begin(), node.input().end(), [&](const std::string& s) { return s == name; });
    return n;
  }
  void rename_output(const std::string& from, const std::string& to) {
    for (auto& node : nodes_)
      for (auto& o : *node.mutable_output())
        if (o == from) o = to;
  }
  void rename_input(const std::string& from, const std::string& to) {
    for (auto& node : nodes_)
      for (auto& i : *node.mutable_input())
        if (i == from) i = to;
  }

  void visit(size_t index) {
    onnx::NodeProto& n = nodes_[index];
    const auto kind = kind_of(n);
    if (!kind || (!n.name().empty() && keep_float_.count(n.name())) || n.output_size() < 1 ||
        keep_writing_.count(n.output(0)))
      return;
    const std::string in0 = n.input_size() > 0 ? n.input(0) : "", out0 = n.output(0);
    const size_t marked_before = marks_.size() + biases_.size();
    std::string layer_tensor = out0, op_type = n.op_type();
    switch (*kind) {
      case Kind::Conv:
      case Kind::Gemm: {
        activation(in0);
        activation(out0);
        if (n.input_size() < 2 || !is_float_initializer(n.input(1))) break;
        // The output channels: Conv's weight [Cout, Cin/g, k...]; Gemm's B
        // [K, N], or [N, K] with transB.
        int64_t axis = 0;
        float alpha = 1;
        if (*kind == Kind::Gemm) {
          axis = 1;
          for (const auto& a : n.attribute()) {
            if (a.name() == "transB") axis = a.i() ? 0 : 1;
            if (a.name() == "alpha") alpha = a.f();
          }
        }
        if (axis >= initializers_.at(n.input(1)).dims_size()) axis = -1;
        weight(n.input(1), axis);
        if (n.input_size() > 2 && is_float_initializer(n.input(2))) {
          const auto& w = initializers_.at(n.input(1));
          const auto& b = initializers_.at(n.input(2));
          if (axis >= 0 && b.dims_size() == 1 && b.dims(0) == w.dims(static_cast<int>(axis)))
            biases_.push_back(Bias{n.input(2), in0, n.input(1), alpha});
        }
        break;
      }
      case Kind::MatMul:
        for (int i = 0; i < n.input_size() && i < 2; ++i) {
          const std::string& name = n.input(i);
          if (is_float_initializer(name)) {
            const int rank = initializers_.at(name).dims_size();
            weight(name, i == 1 && rank >= 2 ? rank - 1 : -1);
          } else {
            activation(name);
          }
        }
        activation(out0);
        break;
      case Kind::General:
        for (const auto& name : n.input()) activation(name);
        activation(out0);
        break;
      case Kind::Removable:
        if (!is_marked(in0)) return;
        if (ranges_.count(out0) && readers(in0) == 1 && !graph_outputs_.count(in0) && !graph_inputs_.count(in0)) {
          // The producer now writes the activation's output.
          rename_output(in0, out0);
          marks_.erase(in0);
          order_.erase(std::remove(order_.begin(), order_.end(), in0), order_.end());
          removed_[index] = true;
          for (auto& layer : out_.layers)
            if (layer.float_tensor == in0) {
              layer.float_tensor = out0;
              layer.op_type += "+" + n.op_type();
            }
          ++out_.quantized_ops[n.op_type() + " (folded)"];
          activation(out0);
          return;
        }
        activation(in0);
        activation(out0);
        break;
      case Kind::Direct:
        if (is_marked(in0) && ranges_.count(out0)) shared(out0, in0);
        break;
    }
    if (marks_.size() + biases_.size() == marked_before && !is_marked(out0)) return;
    ++out_.quantized_ops[op_type];
    const bool data_movement = *kind == Kind::Direct && op_type != "Resize" && op_type != "MaxPool" &&
                               op_type != "AveragePool";
    if (!data_movement && is_marked(layer_tensor))
      out_.layers.push_back(Layer{n.name().empty() ? layer_tensor : n.name(), op_type, layer_tensor, ""});
  }

  std::string fresh(const std::string& name) {
    if (!names_.insert(name).second)
      throw CompileError("edgec quantize: the model already has a tensor named '" + name +
                         "', a name the quantized model needs (ONNX Runtime's naming); rename it in the model");
    return name;
  }

  void add_initializer(onnx::TensorProto t) {
    fresh(t.name());
    new_initializers_.push_back(std::move(t));
  }

  onnx::NodeProto make_node(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                            const std::string& output, int64_t axis) {
    onnx::NodeProto n;
    n.set_op_type(op);
    n.set_name(fresh(name));
    for (auto& i : inputs) n.add_input(i);
    n.add_output(output);
    if (axis >= 0) {
      auto* a = n.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(axis);
    }
    if (op == "QuantizeLinear") ++out_.quantize_linear;
    else ++out_.dequantize_linear;
    return n;
  }

  // A constant: quantized values, scale and zero point as initializers, and
  // a DequantizeLinear writing `output`.
  void quantize_initializer(const std::string& name, const Mark& m) {
    const onnx::TensorProto& t = initializers_.at(name);
    const std::vector<float> data = floats_of(t);
    std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
    const bool is_weight = m.type == Mark::Weight;
    const int32_t qmin = is_weight ? -127 : 0, qmax = is_weight ? 127 : 255;
    int64_t channels = 1, inner = static_cast<int64_t>(data.size()), outer = 1;
    if (m.axis >= 0) {
      channels = dims[static_cast<size_t>(m.axis)];
      inner = 1;
      for (size_t d = static_cast<size_t>(m.axis) + 1; d < dims.size(); ++d) inner *= dims[d];
      outer = static_cast<int64_t>(data.size()) / std::max<int64_t>(channels * inner, 1);
    }
    std::vector<float> scales(static_cast<size_t>(channels));
    std::vector<int32_t> zps(static_cast<size_t>(channels));
    std::vector<int32_t> q(data.size());
    for (int64_t c = 0; c < channels; ++c) {
      float lo = std::numeric_limits<float>::infinity(), hi = -lo;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k) {
          const float v = data[static_cast<size_t>((o * channels + c) * inner + k)];
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      if (!std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 0;
      const auto [zp, scale] = scale_zero_point(lo, hi, qmin, qmax, is_weight);
      scales[static_cast<size_t>(c)] = scale;
      zps[static_cast<size_t>(c)] = zp;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t k = 0; k < inner; ++k) {
          const size_t at = static_cast<size_t>((o * channels + c) * inner + k);
          q[at] = quantize_value(data[at], scale, zp, qmin, qmax);
        }
    }
    const std::string qname = name + "_quantized", sname = name + "_scale", zname = name + "_zero_point";
    const std::vector<int64_t> pdims = m.axis >= 0 ? std::vector<int64_t>{channels} : std::vector<int64_t>{};
    if (is_weight) {
      add_initializer(make_tensor(qname, onnx::TensorProto::INT8, dims, std::vector<int8_t>(q.begin(), q.end())));
      add_initializer(make_tensor(zname, onnx::TensorProto::INT8, pdims, std::vector<int8_t>(zps.begin(), zps.end())));
      ++out_.int8_weights;
    } else {
      add_initializer(make_tensor(qname, onnx::TensorProto::UINT8, dims, std::vector<uint8_t>(q.begin(), q.end())));
      add_initializer(
          make_tensor(zname, onnx::TensorProto::UINT8, pdims, std::vector<uint8_t>(zps.begin(), zps.end())));
    }
    add_initializer(make_tensor(sname, onnx::TensorProto::FLOAT, pdims, scales));
    scale_values_[sname] = scales;
    const std::string dq_out = fresh(name + "_DequantizeLinear_Output");
    rename_input(name, dq_out);
    front_.push_back(make_node("DequantizeLinear", name + "_DequantizeLinear", {qname, sname, zname}, dq_out, m.axis));
    dropped_.insert(name);
    done_[name] = Quantized{sname, zname, dq_out};
  }

  // An activation: QuantizeLinear -> DequantizeLinear after its producer,
  // every reader then reading the DequantizeLinear.
  void add_pair(const std::string& name, const std::string& scale, const std::string& zp) {
    std::string q_input = name, dq_output = name + "_DequantizeLinear_Output";
    if (graph_outputs_.count(name)) {
      q_input = fresh(name + "_QuantizeLinear_Input");
      dq_output = name;
      rename_output(name, q_input);
    } else {
      fresh(dq_output);
      rename_input(name, dq_output);
    }
    const std::string q_output = fresh(name + "_QuantizeLinear_Output");
    std::vector<onnx::NodeProto>& at = graph_inputs_.count(name) ? front_ : after_[name];
    at.push_back(make_node("QuantizeLinear", name + "_QuantizeLinear", {q_input, scale, zp}, q_output, -1));
    at.push_back(make_node("DequantizeLinear", name + "_DequantizeLinear", {q_output, scale, zp}, dq_output, -1));
    done_[name] = Quantized{scale, zp, dq_output};
  }

  void quantize_normal() {
    for (const auto& name : order_) {
      const Mark& m = marks_.at(name);
      if (!m.provider.empty() || done_.count(name)) continue;
      if (initializers_.count(name)) {
        quantize_initializer(name, m);
        continue;
      }
      const Range r = ranges_.at(name);
      const auto [zp, scale] = scale_zero_point(r.lo, r.hi, 0, 255, false);
      const std::string sname = name + "_scale", zname = name + "_zero_point";
      add_initializer(make_tensor(sname, onnx::TensorProto::FLOAT, {}, std::vector<float>{scale}));
      add_initializer(make_tensor(zname, onnx::TensorProto::UINT8, {}, std::vector<uint8_t>{static_cast<uint8_t>(zp)}));
      scale_values_[sname] = {scale};
      add_pair(name, sname, zname);
    }
  }

  void quantize_shared() {
    std::vector<std::string> pending;
    for (const auto& name : order_)
      if (!marks_.at(name).provider.empty()) pending.push_back(name);
    while (!pending.empty()) {
      std::vector<std::string> left;
      for (const auto& name : pending) {
        auto it = done_.find(marks_.at(name).provider);
        if (it == done_.end()) {
          left.push_back(name);
          continue;
        }
        const Quantized provider = it->second;
        add_pair(name, provider.scale, provider.zero_point);
      }
      if (left.size() == pending.size()) break;  // Providers never quantized: left float.
      pending.swap(left);
    }
  }

  void quantize_biases() {
    for (const Bias& b : biases_) {
      if (done_.count(b.bias) || !done_.count(b.weight) || !done_.count(b.input)) continue;
      const std::vector<float>& w_scale = scale_values_.at(done_.at(b.weight).scale);
      const float x_scale = scale_values_.at(done_.at(b.input).scale).at(0);
      const std::vector<float> data = floats_of(initializers_.at(b.bias));
      if (data.size() != w_scale.size() && w_scale.size() != 1) continue;
      std::vector<float> scales(data.size());
      std::vector<int32_t> q(data.size());
      for (size_t c = 0; c < data.size(); ++c) {
        scales[c] = x_scale * w_scale[w_scale.size() == 1 ? 0 : c] * b.alpha;
        const double v = std::nearbyint(static_cast<double>(data[c] / scales[c]));
        q[c] = static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0));
      }
      const std::string qname = b.bias + "_quantized";
      const std::vector<int64_t> dims{static_cast<int64_t>(data.size())};
      add_initializer(make_tensor(qname, onnx::TensorProto::INT32, dims, q));
      add_initializer(make_tensor(qname + "_scale", onnx::TensorProto::FLOAT, dims, scales));
      add_initializer(make_tensor(qname + "_zero_point", onnx::TensorProto::INT32, dims,
                                  std::vector<int32_t>(data.size(), 0)));
      front_.push_back(make_node("DequantizeLinear", b.bias + "_DequantizeLinear",
                                 {qname, qname + "_scale", qname + "_zero_point"}, b.bias, 0));
      dropped_.insert(b.bias);
      done_[b.bias] = Quantized{qname + "_scale", qname + "_zero_point", b.bias};
    }
  }

  // The graph in topological order: the constants' DequantizeLinear and the
  // graph inputs' pairs first, then each node followed by its outputs' pairs.
  void assemble() {
    graph_->clear_node();
    for (auto& n : front_) *graph_->add_node() = std::move(n);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (removed_[i]) continue;
      const onnx::NodeProto& n = nodes_[i];
      *graph_->add_node() = n;
      for (const auto& o : n.output()) {
        // A graph output's producer writes NAME_QuantizeLinear_Input.
        std::string key = o;
        const std::string suffix = "_QuantizeLinear_Input";
        if (!after_.count(key) && key.size() > suffix.size() && key.ends_with(suffix))
          key = key.substr(0, key.size() - suffix.size());
        auto it = after_.find(key);
        if (it == after_.end()) continue;
        for (auto& q : it->second) *graph_->add_node() = std::move(q);
        after_.erase(it);
      }
    }
    if (!after_.empty())
      throw CompileError("edgec quantize: no node of the main graph writes '" + after_.begin()->first +
                         "', which it was to quantize (an internal error)");
    // Initializers: the float ones quantized are gone; the others stay.
    auto* inits = graph_->mutable_initializer();
    std::vector<onnx::TensorProto> kept;
    for (auto& t : *inits)
      if (!dropped_.count(t.name())) kept.push_back(std::move(t));
    inits->Clear();
    for (auto& t : kept) *inits->Add() = std::move(t);
    for (auto& t : new_initializers_) *inits->Add() = std::move(t);
    // value_info of tensors renamed away (a folded activation's input).
    std::set<std::string> present(graph_inputs_.begin(), graph_inputs_.end());
    for (const auto& n : graph_->node())
      for (const auto& o : n.output()) present.insert(o);
    auto* infos = graph_->mutable_value_info();
    for (int i = infos->size() - 1; i >= 0; --i)
      if (!present.count(infos->Get(i).name())) infos->DeleteSubrange(i, 1);
    for (auto& layer : out_.layers) {
      auto it = done_.find(layer.float_tensor);
      layer.qdq_tensor = it == done_.end() ? "" : it->second.dq_output;
    }
    std::erase_if(out_.layers, [](const Layer& l) { return l.qdq_tensor.empty(); });
  }

  const std::map<std::string, Range>& ranges_;
  const std::set<std::string>& keep_float_;
  const std::set<std::string>& keep_writing_;
  QdqModel out_;
  onnx::GraphProto* graph_ = nullptr;
  std::set<std::string> graph_inputs_, graph_outputs_, names_, dropped_;
  std::map<std::string, onnx::TensorProto> initializers_;
  std::vector<onnx::NodeProto> nodes_;
  std::vector<bool> removed_;
  std::map<std::string, Mark> marks_;
  std::vector<std::string> order_;
  std::vector<Bias> biases_;
  std::map<std::string, Quantized> done_;
  std::map<std::string, std::vector<float>> scale_values_;
  std::vector<onnx::TensorProto> new_initializers_;
  std::vector<onnx::NodeProto> front_;
  std::map<std::string, std::vector<onnx::NodeProto>> after_;
};

}  // namespace

int64_t default_opset(const onnx::ModelProto& model) {
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  return 0;
}

std::vector<std::string> calibration_candidates(const onnx::ModelProto& model,
                                                const std::set<std::string>& keep_float) {
  std::set<std::string> constant;
  for (const auto& t : model.graph().initializer()) constant.insert(t.name());
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (!name.empty() && !constant.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const auto& n : model.graph().node()) {
    if (!kind_of(n) || (!n.name().empty() && keep_float.count(n.name()))) continue;
    for (const auto& i : n.input()) add(i);
    for (const auto& o : n.output()) add(o);
  }
  return out;
}

QdqModel rewrite_qdq(const onnx::ModelProto& model, const std::map<std::string, Range>& ranges,
                     const std::set<std::string>& keep_float, const std::set<std::string>& keep_writing) {
  return Rewriter(model, ranges, keep_float, keep_writing).run();
}

}  // namespace edgec::quantize::detail
