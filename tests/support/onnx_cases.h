// Runs ONNX's own test cases (libonnx-testdata: a model.onnx and its
// test_data_set_*/input_*.pb, output_*.pb) through what `edgec compile` and
// `edgec run` do: import, lower, serialize, load the program file with the
// runtime library, execute, compare. Shared by the node tests and the
// model tests.
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/error.h"
#include "compiler/pipeline.h"
#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_data.h"
#include "io/npz.h"
#include "ir/control_flow.h"
#include "kernels/tensor.h"
#include "passes/pipeline.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/compare.h"

namespace edgec::onnx_cases {

namespace fs = std::filesystem;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline onnx::TensorProto read_tensor(const fs::path& p) {
  onnx::TensorProto t;
  if (!t.ParseFromString(slurp(p))) throw CompileError(p.string() + ": not a TensorProto");
  return t;
}

/// Operands that ONNX passes as tensors but that fix shapes, axes or counts
/// (edgec takes them as attributes, so they must be known when compiling):
/// op_type -> input indices.
inline const std::map<std::string, std::set<int>> kShapeOperands = {
    {"Reshape", {1}},  {"Expand", {1}},        {"Slice", {1, 2, 3, 4}}, {"Pad", {1, 2, 3}},
    {"Resize", {1, 2, 3}}, {"Split", {1}},      {"Squeeze", {1}},        {"Unsqueeze", {1}},
    {"ReduceSum", {1}}, {"Tile", {1}},          {"Trilu", {1}},          {"TopK", {1}},
    {"Range", {0, 1, 2}}, {"ConstantOfShape", {0}}, {"OneHot", {1}},    {"Dropout", {1, 2}},
    {"CumSum", {1}},   {"HannWindow", {0}},   {"HammingWindow", {0}},  {"BlackmanWindow", {0}},
    {"MaxUnpool", {2}},
    {"DFT", {1, 2}},   {"STFT", {1, 3}},     {"MelWeightMatrix", {0, 1, 2, 3, 4}},
    // If's condition and Loop's trip count and condition are not among
    // them: they run at run time (docs/semantics.md §8), and the node tests
    // run them so.
};

/// The graph inputs a shape operand is computed from: a user of edgec gives
/// them at compile time (OnnxImportOptions::input_values, `edgec compile
/// --bind`), as this test does with the case's data.
inline std::set<std::string> shape_determining_inputs(const onnx::GraphProto& g) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : g.node())
    for (const auto& o : n.output()) producer[o] = &n;
  std::set<std::string> found, visited;
  std::vector<std::string> work;
  // A Loop whose body has shape operands (a Slice of x[i:i+1]) reads them
  // from its iteration number: a user fixes its trip count and condition
  // to unroll it.
  const std::function<bool(const onnx::GraphProto&)> has_shape_operands = [&](const onnx::GraphProto& body) {
    for (const auto& n : body.node()) {
      if (kShapeOperands.count(n.op_type())) return true;
      for (const auto& a : n.attribute())
        if (a.has_g() && has_shape_operands(a.g())) return true;
    }
    return false;
  };
  for (const auto& n : g.node()) {
    if (n.op_type() == "Loop")
      for (const auto& a : n.attribute())
        if (a.name() == "body" && has_shape_operands(a.g()))
          for (int i = 0; i < 2 && i < n.input_size(); ++i)
            if (!n.input(i).empty()) work.push_back(n.input(i));
    auto it = kShapeOperands.find(n.op_type());
    if (it == kShapeOperands.end()) continue;
    for (int i : it->second)
      if (i < n.input_size() && !n.input(i).empty()) work.push_back(n.input(i));
  }
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    if (!visited.insert(name).second) continue;
    auto p = producer.find(name);
    if (p == producer.end()) {
      found.insert(name);
      continue;
    }
    for (const auto& in : p->second->input())
      if (!in.empty()) work.push_back(in);
  }
  return found;
}

/// Executes the program file `bytes` on `inputs` (by graph input name).
inline std::vector<TensorData> run_file(std::span<const std::byte> bytes, std::map<std::string, TensorData>& inputs) {
  auto loaded = runtime::Program::load_from_bytes(bytes);
  if (!loaded.ok()) throw CompileError("load: " + error_detail());
  const runtime::Program& program = **loaded;
  auto method = runtime::Method::create(program, 1);
  if (!method.ok()) throw CompileError("prepare: " + error_detail());
  for (size_t i = 0; i < program.inputs().size(); ++i) {
    auto it = inputs.find(program.inputs()[i].name);
    if (it == inputs.end()) throw CompileError("no data for input '" + program.inputs()[i].name + "'");
    TensorData& d = it->second;
    const auto shape = d.type.static_shape();
    auto* data = d.bytes ? const_cast<std::byte*>(d.bytes->data()) : nullptr;
    Tensor t = make_tensor(d.type.dtype, shape, data, d.bytes ? d.bytes->size() : 0);
    // ONNX's test data stores a bfloat16 tensor as uint16 (its bits), as
    // `edgec run` takes one from a .npy file (driver/bind.cpp).
    if (t.dtype == DType::UInt16 && program.slots()[static_cast<size_t>(program.inputs()[i].slot)].type.dtype ==
                                        DType::BFloat16)
      t.dtype = DType::BFloat16;
    if ((*method)->set_input(i, t) != Error::Ok) throw CompileError("set_input: " + error_detail());
  }
  if ((*method)->execute() != Error::Ok) throw CompileError("execute: " + error_detail());
  std::vector<TensorData> out;
  for (size_t i = 0; i < program.outputs().size(); ++i) {
    io::NpyArray a = io::NpyArray::from_tensor("output", (*method)->output(i));
    out.push_back({TensorType::of(a.dtype, a.shape), std::make_shared<const std::vector<std::byte>>(std::move(a.data))});
  }
  return out;
}

/// How many output_<i>.pb files the case's data set holds.
inline size_t count_output_files(const fs::path& data) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    const std::string f = e.path().filename().string();
    n += f.rfind("output_", 0) == 0 && e.path().extension() == ".pb";
  }
  return n;
}

inline compare::ArrayView view_of(const TensorData& d) {
  return {d.type.dtype, d.type.static_shape(), d.bytes ? d.bytes->data() : nullptr, d.bytes ? d.bytes->size() : 0};
}

/// Runs one case; returns an empty string on success, else what went wrong.
/// The case's data sets (test_data_set_0, _1, ...), in order.
inline std::vector<fs::path> data_sets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

/// Runs one case (model.onnx and its data sets in `dir`) the way `edgec
/// compile` and `edgec run` do; returns an empty string when every data
/// set's outputs match within `tolerance`, else what went wrong. Inputs
/// that fix shapes are bound at compile time (OnnxImportOptions::
/// input_values, `--fix-inputs`), so a model is compiled per data set.
inline std::string run_case(const onnx::ModelProto& model, const std::string& bytes, const fs::path& dir,
                            compare::Tolerance tolerance) {
  try {
    std::set<std::string> initializers;
    for (const auto& t : model.graph().initializer()) initializers.insert(t.name());
    const std::set<std::string> bound = shape_determining_inputs(model.graph());
    std::vector<std::byte> file;
    std::string problems;
    const auto sets = data_sets(dir);
    if (sets.empty()) return "no test_data_set_* in " + dir.string();
    for (const fs::path& data : sets) {
      std::map<std::string, TensorData> inputs;
      int index = 0;
      for (const auto& in : model.graph().input()) {
        if (initializers.count(in.name())) continue;
        const auto t = read_tensor(data / ("input_" + std::to_string(index++) + ".pb"));
        inputs[in.name()] = onnx_import::tensor_from_proto(t, in.name());
      }
      OnnxImportOptions options;
      for (const auto& name : bound) {
        auto it = inputs.find(name);
        if (it == inputs.end()) continue;  // an initializer: already a constant
        options.input_values[name] = it->second;
        inputs.erase(it);
      }
      if (file.empty() || !options.input_values.empty()) {
        // A Loop's scan outputs over a run-time trip count have a row
        // symbol of their own (NAME_rows, docs/semantics.md §8), which the
        // importer refuses unbounded, naming the flag: bounded as a user
        // would, with the --max-dim NAME_rows=1024 the refusal names.
        std::unique_ptr<Program> program;
        for (int attempt = 0; !program; ++attempt) {
          try {
            program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())),
                                        (dir / "model.onnx").string(), options);
          } catch (const CompileError& e) {
            const std::string what = e.what(), flag = "--max-dim ", suffix = "_rows=MAX";
            const size_t at = what.find(flag), end = what.find(suffix, at);
            if (attempt > 16 || at == std::string::npos || end == std::string::npos) throw;
            const std::string rows = what.substr(at + flag.size(), end + 5 - at - flag.size());
            if (options.dim_bounds.count(rows)) throw;
            options.dim_bounds[rows] = 1024;
          }
        }
        lower_program(*program);
        file = serialize_program(*program);
      }
      const auto outputs = run_file(file, inputs);
      const size_t expected_outputs = count_output_files(data);
      if (outputs.size() != expected_outputs)
        return "the program has " + std::to_string(outputs.size()) + " outputs, the case " +
               std::to_string(expected_outputs) + " (output_*.pb)";
      for (size_t i = 0; i < outputs.size(); ++i) {
        const auto t = read_tensor(data / ("output_" + std::to_string(i) + ".pb"));
        TensorData want = onnx_import::tensor_from_proto(t, "output");
        // A bfloat16 output is stored as uint16 (its bits), as for inputs.
        if (want.type.dtype == DType::UInt16 && outputs[i].type.dtype == DType::BFloat16)
          want.type.dtype = DType::BFloat16;
        const std::string problem = compare::compare_arrays(
            data.filename().string() + " output " + std::to_string(i), view_of(outputs[i]), view_of(want), tolerance);
        if (!problem.empty()) problems += (problems.empty() ? "" : "; ") + problem;
      }
    }
    return problems;
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace edgec::onnx_cases
