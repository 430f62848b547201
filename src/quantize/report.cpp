// The quantizer's report (quantize.h): what was quantized, each layer's
// float32 and int8 times on this CPU and the decision taken from them, and
// how far the quantized model is from the float one on the held-back
// samples, per output and for the layers that lose most; as text and as
// JSON. Also the --method option's parsing.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "quantize/quantize.h"

namespace edgec::quantize {
namespace {

std::string fixed(double v, int digits) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string general(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

nlohmann::ordered_json comparison_json(const Comparison& c, bool layer) {
  nlohmann::ordered_json j;
  j["name"] = c.name;
  if (layer) {
    j["op_type"] = c.op_type;
    j["tensor"] = c.tensor;
  }
  // JSON has no NaN: a NaN where the float model has none is null.
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); };
  j["max_abs_error"] = number(c.max_abs_error);
  j["cosine"] = number(c.cosine);
  j["relative_error"] = number(c.relative_error);
  return j;
}

}  // namespace

void parse_method(const std::string& text, Options& options) {
  if (text == "minmax") {
    options.method = Calibration::MinMax;
    return;
  }
  if (text == "percentile") {
    options.method = Calibration::Percentile;
    return;
  }
  const std::string prefix = "percentile=";
  if (text.rfind(prefix, 0) == 0) {
    const std::string value = text.substr(prefix.size());
    size_t used = 0;
    double p = 0;
    try {
      p = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == value.size() && !value.empty() && p > 0 && p <= 100 && std::isfinite(p)) {
      options.method = Calibration::Percentile;
      options.percentile = p;
      return;
    }
    throw driver::UsageError("--method: expected percentile=P with P above 0 and at most 100 (the share of values "
                             "the range keeps, e.g. percentile=99.99), got '" + text + "'");
  }
  throw driver::UsageError("--method: expected minmax, percentile or percentile=P (e.g. percentile=99.99), got '" +
                           text + "'");
}

std::vector<std::string> parse_node_list(const std::string& text, const std::string& flag) {
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty())
      throw driver::UsageError(flag + ": expected ONNX node names separated by commas, got '" + text + "'");
    names.push_back(name);
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

nlohmann::ordered_json report_json(const Report& r) {
  nlohmann::ordered_json j;
  j["model"] = r.model;
  j["method"] = r.method;
  j["calibration_samples"] = r.calibration_samples;
  j["holdout_samples"] = r.holdout_samples;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [op, n] : r.quantized_ops) ops[op] = n;
  j["quantized_nodes"] = ops;
  j["kept_float"] = r.kept_float;
  nlohmann::ordered_json m;
  m["measured"] = r.measured;
  if (!r.measured) m["reason"] = r.measure_reason;
  m["isa"] = r.isa;
  m["threads"] = 1;
  m["margin"] = r.measure_margin;
  m["seconds"] = r.measure_seconds;
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& t : r.timings) {
    nlohmann::ordered_json l;
    l["name"] = t.name;
    l["op_type"] = t.op_type;
    l["measured"] = t.measured;
    if (!t.measured) l["reason"] = t.reason;
    if (!t.same_as.empty()) l["same_as"] = t.same_as;
    l["float_ms"] = t.float_ms;
    l["int8_ms"] = t.int8_ms;
    l["runs"] = t.runs;
    l["decision"] = t.int8 ? "int8" : "float32";
    layers.push_back(l);
  }
  m["layers"] = layers;
  m["kept_float"] = r.kept_slower;
  if (r.measured && (r.whole_model.measured || !r.whole_model.reason.empty())) {
    nlohmann::ordered_json w;
    w["sample"] = r.whole_model.name;
    w["measured"] = r.whole_model.measured;
    if (!r.whole_model.measured) w["reason"] = r.whole_model.reason;
    w["float_ms"] = r.whole_model.float_ms;
    w["int8_ms"] = r.whole_model.int8_ms;
    w["runs"] = r.whole_model.runs;
    m["whole_model"] = w;
  }
  j["measurement"] = m;
  j["quantize_linear"] = r.quantize_linear;
  j["dequantize_linear"] = r.dequantize_linear;
  j["int8_weights"] = r.int8_weights;
  j["float_model_bytes"] = r.float_bytes;
  j["quantized_model_bytes"] = r.quantized_bytes;
  j["compared"] = r.compared;
  if (!r.compared) j["reason"] = r.reason;
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (const auto& c : r.outputs) outs.push_back(comparison_json(c, false));
  j["outputs"] = outs;
  j["layers_compared"] = r.layers_compared;
  nlohmann::ordered_json worst = nlohmann::ordered_json::array();
  for (const auto& c : r.worst_layers) worst.push_back(comparison_json(c, true));
  j["worst_layers"] = worst;
  return j;
}

std::string report_text(const Report& r) {
  std::ostringstream s;
  int64_t nodes = 0;
  std::string ops;
  for (const auto& [op, n] : r.quantized_ops) {
    nodes += n;
    ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
  }
  s << "quantized " << nodes << " node(s) of " << r.model << " (" << (ops.empty() ? "none" : ops) << "), "
    << r.method << " calibration on " << r.calibration_samples << " sample(s)\n";
  s << "  " << r.quantize_linear << " QuantizeLinear, " << r.dequantize_linear << " DequantizeLinear, "
    << r.int8_weights << " int8 weight(s); ONNX file " << r.float_bytes << " -> " << r.quantized_bytes << " bytes\n";
  if (!r.kept_float.empty()) {
    s << "  kept float32 (--keep-float):";
    for (const auto& k : r.kept_float) s << " " << k;
    s << "\n";
  }
  if (!r.measured) {
    s << "  layers not timed: " << r.measure_reason << "\n";
  } else if (!r.timings.empty()) {
    int64_t timed = 0;
    for (const auto& t : r.timings) timed += t.measured && t.same_as.empty();
    s << "int8 vs float32 per layer on this CPU (" << r.isa << ", 1 thread; " << timed << " distinct layer(s) timed "
      << "in " << fixed(r.measure_seconds, 1) << " s; a layer stays int8 when its int8 time is at most "
      << fixed(100 * (1 - r.measure_margin), 0) << "% of its float32 time):\n";
    for (const auto& t : r.timings) {
      s << "  " << t.name << " (" << t.op_type << "): ";
      if (!t.measured) {
        s << "not timed (" << t.reason << ") -> int8\n";
        continue;
      }
      s << "float32 " << fixed(t.float_ms, 4) << " ms, int8 " << fixed(t.int8_ms, 4) << " ms ("
        << fixed(t.int8_ms / t.float_ms, 2) << "x) -> " << (t.int8 ? "int8" : "float32");
      if (!t.same_as.empty()) s << " (timed as " << t.same_as << ")";
      s << "\n";
    }
    s << "  kept float32 as int8 is not faster here: ";
    if (r.kept_slower.empty()) s << "none\n";
    else s << r.kept_slower.size() << " layer(s)\n";
    const LayerTiming& w = r.whole_model;
    if (w.measured)
      s << "  the whole model, timed the same way on " << w.name << ": float32 " << fixed(w.float_ms, 4)
        << " ms, quantized " << fixed(w.int8_ms, 4) << " ms (" << fixed(w.int8_ms / w.float_ms, 2) << "x)\n";
    else if (!w.reason.empty())
      s << "  the whole model not timed: " << w.reason << "\n";
  }
  if (!r.compared) {
    s << "not compared with the float model: " << r.reason << "\n";
    return s.str();
  }
  s << "quantized vs float32 on " << r.holdout_samples << " held-back sample(s), both compiled by edgec:\n";
  for (const auto& c : r.outputs)
    s << "  output " << c.name << ": cosine " << fixed(c.cosine, 6) << ", max abs error " << general(c.max_abs_error)
      << ", relative error " << general(c.relative_error) << "\n";
  if (!r.worst_layers.empty()) {
    s << "the " << r.worst_layers.size() << " layer(s) that lose most, of " << r.layers_compared << ":\n";
    for (const auto& c : r.worst_layers)
      s << "  " << c.name << " (" << c.op_type << "): cosine " << fixed(c.cosine, 6) << ", relative error "
        << general(c.relative_error) << ", max abs error " << general(c.max_abs_error) << "\n";
  }
  return s.str();
}

}  // namespace edgec::quantize
