// What the quantizer's files share (quantize.h is the interface):
// calibration samples, a float or quantized model compiled by edgec with
// extra outputs and run on them (calibration.cpp), the ranges calibration
// collects (calibration.cpp), and the QDQ rewrite (qdq.cpp).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "io/npz.h"
#include "quantize/quantize.h"
#include "runtime/method.h"
#include "runtime/program.h"

namespace edgec::quantize::detail {

/// One calibration file: its arrays, by input name.
struct Sample {
  std::string path;
  std::vector<io::NpyArray> arrays;
};

/// The .npz files of `dir`, sorted by name. Throws UsageError when `dir`
/// is not a folder or holds no .npz file.
std::vector<std::string> list_samples(const std::string& dir);
Sample read_sample(const std::string& path);

/// A model compiled by edgec (driver::compile_onnx_bytes with the default
/// lowering) with `extra_outputs` added as graph outputs, loaded and ready
/// to run one sample at a time.
class Runner {
 public:
  /// `what` names the model in messages. `extra_outputs` are tensor names
  /// of the main graph (those already graph outputs are not added twice).
  Runner(onnx::ModelProto model, const std::vector<std::string>& extra_outputs, const std::string& what,
         const driver::ImportFlags& flags, const std::string& backends);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  /// Binds `sample` (every input by name, nothing extra) and runs it.
  void run(const Sample& sample);
  /// The two halves of run(): bind() once (the sample must outlive the
  /// runs, its arrays are not copied), then execute() as often as wanted.
  void bind(const Sample& sample);
  void execute();
  /// The program's outputs after run(), by ONNX name.
  size_t num_outputs() const;
  const std::string& output_name(size_t i) const;
  const Tensor& output(size_t i) const;
  /// The index of output `name`, or -1.
  int64_t find_output(const std::string& name) const;

 private:
  std::string what_;
  std::unique_ptr<std::byte[], void (*)(std::byte*)> bytes_;
  std::unique_ptr<runtime::Program> program_;
  std::unique_ptr<runtime::Method> method_;
  std::map<std::string, size_t> by_name_;
  std::string bound_;  // The bound sample's path, for messages.
};

/// A float range.
struct Range {
  float lo = 0, hi = 0;
};

/// Per tensor: the minimum and maximum over every sample (min-max), and a
/// histogram over [-T, T] (2048 bins; T doubles, merging bins pairwise, when
/// a sample passes it) for the percentile method.
class RangeCollector {
 public:
  explicit RangeCollector(const Options& options) : options_(options) {}
  /// Adds a float32 tensor's values (other dtypes are ignored).
  void add(const std::string& name, const Tensor& t);
  bool has(const std::string& name) const { return stats_.count(name) != 0; }
  /// The calibrated range of `name` (has(name) must hold).
  Range range(const std::string& name) const;

 private:
  struct Stats {
    float min = 0, max = 0;
    double half_width = 0;          // T
    std::vector<uint64_t> bins;     // Percentile only.
    uint64_t count = 0;
  };
  const Options& options_;
  std::map<std::string, Stats> stats_;
};

/// One quantized layer, for the report: the node, and the tensor carrying
/// its output in the float model and in the QDQ model.
struct Layer {
  std::string node, op_type;
  std::string float_tensor, qdq_tensor;
};

/// The QDQ rewrite of a float model.
struct QdqModel {
  onnx::ModelProto model;
  std::vector<Layer> layers;
  std::map<std::string, int64_t> quantized_ops;
  int64_t quantize_linear = 0, dequantize_linear = 0, int8_weights = 0;
};

/// The float tensors the rewrite may quantize (the superset calibration
/// records): every input and output of a node of an operator the quantizer
/// handles and not in `keep_float`, but for initializers and graph inputs.
std::vector<std::string> calibration_candidates(const onnx::ModelProto& model, const std::set<std::string>& keep_float);

/// Rewrites `model` as ONNX Runtime's QDQ quantizer does (quantize.h).
/// `ranges`: the calibrated range of every float32 activation (a tensor
/// absent from it is not float32, or not computed, and is left alone).
/// Nodes named in `keep_float`, and those whose first output is in
/// `keep_writing` (nodes without a name too), stay float32.
QdqModel rewrite_qdq(const onnx::ModelProto& model, const std::map<std::string, Range>& ranges,
                     const std::set<std::string>& keep_float, const std::set<std::string>& keep_writing = {});

/// The measured layers (measure.cpp): each Conv, Gemm and MatMul node of
/// `q.model` that reads a DequantizeLinear, timed as a one-layer model in
/// float32 (from `float_model`, with a Relu or Clip the rewrite folded
/// into it) and in its QDQ form (from `q.model`: uint8 in, the node between
/// its DequantizeLinear and QuantizeLinear, uint8 out), both compiled by
/// edgec for this CPU (the process's ISA) with `backends` and run on one
/// thread. `shapes`: the shape of every activation the layers read, from a
/// calibration run.
struct Measurement {
  std::vector<LayerTiming> layers;
  /// The first output, in `float_model`, of each node to leave float32.
  std::set<std::string> keep_writing;
};
Measurement measure_layers(const onnx::ModelProto& float_model, const QdqModel& q,
                           const std::map<std::string, std::vector<int64_t>>& shapes, const Options& options);
/// The whole float model against the quantized one, timed the same way on
/// `sample` (LayerTiming's times, runs and measured; `reason` when either
/// does not compile or run).
LayerTiming time_models(const onnx::ModelProto& float_model, const onnx::ModelProto& quantized, const Sample& sample,
                        const driver::ImportFlags& flags, const Options& options);

/// The model's default-domain opset.
int64_t default_opset(const onnx::ModelProto& model);

}  // namespace edgec::quantize::detail
