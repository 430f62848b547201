// Post-training static quantization (`edgec quantize`, `edgec compile
// --quantize int8`): a float32 ONNX model and a folder of calibration
// inputs become a QDQ ONNX model in the form ONNX Runtime's
// `quantize_static` writes by default (QuantFormat.QDQ, per-channel):
//
// - activations uint8, asymmetric, one scale and zero point per tensor,
//   from the range the calibration samples give (min-max, or a two-sided
//   percentile of a histogram), widened to hold 0;
// - weights int8, symmetric (zero point 0, range -127..127), one scale per
//   output channel (Conv: axis 0; Gemm: axis 0 with transB, else 1; MatMul:
//   B's last axis), stored as int8 initializers behind DequantizeLinear;
// - biases of Conv and Gemm int32, scale x_scale * w_scale, zero point 0;
// - QuantizeLinear -> DequantizeLinear pairs on every float tensor read or
//   written by a quantized node; Relu and Clip after a quantized node are
//   folded into its output's range, and the data-movement operators
//   (Reshape, Transpose, Flatten, Squeeze, Unsqueeze, Resize, MaxPool,
//   AveragePool) pass their input's parameters through.
//
// Tool side only (the runtime links no ONNX). Calibration runs the float
// model through edgec itself: a copy of the ModelProto with every tensor
// the quantizer needs as an extra output, compiled in memory
// (driver::compile_onnx_bytes) and run on each sample. The report compares
// the float model with the quantized one, both compiled by edgec, on
// held-back samples. Failures throw CompileError (or driver::UsageError for
// a bad option value), naming the file, node or tensor.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "driver/driver.h"

namespace edgec::quantize {

enum class Calibration { MinMax, Percentile };

struct Options {
  Calibration method = Calibration::MinMax;
  /// For Percentile: the share of each tensor's values the range keeps,
  /// (100 - percentile) / 2 percent cut off each side.
  double percentile = 99.99;
  /// ONNX node names left in float32.
  std::vector<std::string> keep_float;
  /// Calibration files held back for the report (the last ones by name);
  /// unset: 20% of them, at least 1.
  std::optional<int64_t> holdout;
  /// Whether to compare the quantized model with the float one on the
  /// held-back samples (`edgec compile --quantize` does not).
  bool report = true;
  /// Layers the report lists, those that lose most first.
  int64_t worst_layers = 10;
  /// --fix-inputs and --shape for compiling the float model (inputs left
  /// symbolic take the first sample's shapes).
  driver::ImportFlags import_flags;
  /// The --backends list for the programs calibration and the report run.
  std::string backends;
  /// Whether to time each Conv / Gemm / MatMul layer in float32 and in
  /// int8 on this CPU and leave it float32 unless int8 is faster by
  /// `measure_margin` (int8 time <= (1 - margin) * float32 time); the
  /// measurement (measure.cpp) takes about `measure_budget_ms` per distinct
  /// layer shape, and at least three timed runs of each form.
  bool measure = true;
  double measure_margin = 0.10;
  double measure_budget_ms = 30;
};

/// One output or layer, the quantized model against the float one over
/// every held-back sample.
struct Comparison {
  std::string name;     // Output name, or the node's name.
  std::string op_type;  // Layers only.
  std::string tensor;   // Layers only: the tensor compared.
  double max_abs_error = 0;
  double cosine = 1;
  /// ||quantized - float|| / ||float|| (Euclidean, over all samples).
  double relative_error = 0;
};

/// One Conv / Gemm / MatMul layer timed as a one-layer model in float32
/// and in int8 on the running CPU (Options::measure).
struct LayerTiming {
  std::string name;     // The node's name, or its output tensor's.
  std::string op_type;  // "Conv", or "Conv+Relu" with a folded activation.
  /// Layers of the same operator, attributes and shapes are timed once:
  /// the first one's name ("" for the one timed).
  std::string same_as;
  bool measured = false;
  std::string reason;  // When not measured: why (the layer stays int8).
  /// Median milliseconds of one run of each one-layer model, over `runs`
  /// timed runs each, the two forms alternating.
  double float_ms = 0, int8_ms = 0;
  int64_t runs = 0;
  /// The decision: int8, or left float32 as int8 is not faster by the margin.
  bool int8 = true;
};

struct Report {
  std::string model, method;
  int64_t calibration_samples = 0, holdout_samples = 0;
  /// Quantized nodes by op_type; nodes left float by --keep-float.
  std::map<std::string, int64_t> quantized_ops;
  int64_t quantize_linear = 0, dequantize_linear = 0, int8_weights = 0;
  std::vector<std::string> kept_float;
  /// The per-layer measurement (Options::measure): whether it ran (else
  /// `measure_reason`), on which instruction set, with which margin, each
  /// layer's times and decision, and the layers left float32 by it.
  bool measured = false;
  std::string measure_reason, isa;
  double measure_margin = 0, measure_seconds = 0;
  std::vector<LayerTiming> timings;
  std::vector<std::string> kept_slower;
  /// The whole float32 and quantized models timed the same way on the
  /// first held-back sample (with the report; `name` is the sample).
  LayerTiming whole_model;
  /// Whether the float and quantized models were compared; else `reason`.
  bool compared = false;
  std::string reason;
  std::vector<Comparison> outputs;
  /// The layers that lose most (lowest cosine first).
  std::vector<Comparison> worst_layers;
  int64_t layers_compared = 0;
  uint64_t float_bytes = 0, quantized_bytes = 0;  // The ONNX files.
};

struct Result {
  /// The QDQ model, a serialized ModelProto.
  std::string model;
  Report report;
};

/// Quantizes the ONNX model at `model_path` with the .npz files of
/// `calibration_dir` (each keyed by the model's input names), and, with
/// options.report, compares it with the float model on the held-back ones.
Result quantize_model(const std::string& model_path, const std::string& calibration_dir, const Options& options);

/// The report as `--report FILE.json` writes it.
nlohmann::ordered_json report_json(const Report& report);
/// The report as `edgec quantize` prints it.
std::string report_text(const Report& report);

/// "minmax", "percentile" or "percentile=P" (0 < P <= 100) into `options`;
/// throws driver::UsageError naming --method.
void parse_method(const std::string& text, Options& options);
/// --keep-float's value: node names separated by commas; throws
/// driver::UsageError naming `flag` for an empty name.
std::vector<std::string> parse_node_list(const std::string& text, const std::string& flag);

}  // namespace edgec::quantize
