// The delegate tests' harness (onednn_*_test.cpp, xnnpack_*_test.cpp): an
// edge program built as text with random inputs and constants, compiled
// with a backend list, run twice through the runtime, and compared with
// the portable kernels within a relative tolerance.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/pipeline.h"
#include "ir/text.h"
#include "lowering/backend.h"
#include "runtime/method.h"
#include "serialize/writer.h"
#include "support/aligned_bytes.h"
#include "support/compare.h"

namespace edgec {
namespace {

inline std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

inline int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

// Builds an edge program's text: user inputs get random values at run time,
// constants random values (or given integers) written into the text.
class Ir {
 public:
  explicit Ir(uint32_t seed = 1) : rng_(seed) {}
  /// An input of `dtype`: random values in [lo, hi] (for an integer dtype,
  /// uniform integers there).
  Ir& input(const std::string& name, std::vector<int64_t> shape, float lo = -2.f, float hi = 2.f,
            DType dtype = DType::Float32) {
    sig_ += "  input user_input %" + name + " target = \"" + name + "\"\n";
    ph_ += "  %" + name + " = placeholder : " + std::string(dtype_name(dtype)) + shape_str(shape) + "\n";
    inputs_.push_back({shape, lo, hi, dtype});
    return *this;
  }
  Ir& constant(const std::string& name, std::vector<int64_t> shape, float lo = -1.f, float hi = 1.f) {
    std::uniform_real_distribution<float> u(lo, hi);
    std::ostringstream values;
    values.precision(9);
    for (int64_t i = 0; i < numel(shape); ++i) values << (i ? ", " : "") << u(rng_);
    return add_constant(name, "f32", shape, values.str());
  }
  Ir& index_constant(const std::string& name, std::vector<int64_t> shape, const std::vector<int64_t>& values) {
    return int_constant(name, DType::Int64, shape, values);
  }
  /// A constant of integer `dtype` with the given values.
  Ir& int_constant(const std::string& name, DType dtype, std::vector<int64_t> shape, const std::vector<int64_t>& values) {
    std::string v;
    for (size_t i = 0; i < values.size(); ++i) v += (i ? ", " : "") + std::to_string(values[i]);
    return add_constant(name, std::string(dtype_name(dtype)), shape, v);
  }
  /// An f32 constant with the given values.
  Ir& float_constant(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& values) {
    std::ostringstream v;
    v.precision(9);
    for (size_t i = 0; i < values.size(); ++i) v << (i ? ", " : "") << values[i];
    return add_constant(name, "f32", shape, v.str());
  }
  Ir& op(const std::string& line) {
    graph_ += "  " + line + "\n";
    return *this;
  }
  std::string text(const std::vector<std::string>& outputs) const {
    std::string sig = sig_, out = "  output(";
    for (size_t i = 0; i < outputs.size(); ++i) {
      sig += "  output user_output %" + outputs[i] + " target = \"" + outputs[i] + "\"\n";
      out += (i ? ", %" : "%") + outputs[i];
    }
    return "program dialect = \"edge\"\nsignature {\n" + sig + "}\ngraph {\n" + ph_ + graph_ + out + ")\n}\n" +
           (consts_.empty() ? "" : "constants {\n" + consts_ + "}\n");
  }
  struct InputSpec {
    std::vector<int64_t> shape;
    float lo, hi;
    DType dtype = DType::Float32;
  };
  const std::vector<InputSpec>& inputs() const { return inputs_; }

 private:
  Ir& add_constant(const std::string& name, const std::string& dtype, const std::vector<int64_t>& shape,
                   const std::string& values) {
    sig_ += "  input constant %" + name + " target = \"" + name + "\"\n";
    ph_ += "  %" + name + " = placeholder : " + dtype + shape_str(shape) + "\n";
    consts_ += "  \"" + name + "\" = dense<[" + values + "]> : " + dtype + shape_str(shape) + "\n";
    return *this;
  }
  std::mt19937 rng_;
  std::string sig_, ph_, graph_, consts_;
  std::vector<InputSpec> inputs_;
};

struct RunResult {
  std::vector<std::vector<float>> outputs;  // f32, or u8, i8, i32 values as floats (exactly)
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> delegated;  // kernel names of the first listed backend's delegates' calls
  std::vector<std::string> steps;      // every delegate's step names
  size_t portable = 0;                 // instructions left on the portable kernels
};

// `edit` (when set) changes the compiled program before it is written, as
// a file from another machine or a crafted one would differ.
inline RunResult compile_and_run(const Ir& ir, const std::vector<std::string>& outputs, const std::string& backends,
                          int threads = 2, const std::function<void(Program&)>& edit = {}) {
  RunResult r;
  auto p = parse_program(ir.text(outputs), "test.ir");
  compile_program(*p, {}, backends);
  if (edit) edit(*p);
  AlignedBytes bytes(serialize_program(*p));
  auto loaded = runtime::Program::load_from_bytes(bytes.span());
  EXPECT_TRUE(loaded.ok()) << error_detail();
  if (!loaded.ok()) return r;
  const std::string first = backends.substr(0, std::min(backends.find(','), backends.find(':')));
  for (const auto& d : (*loaded)->delegates())
    if (d.backend_id == first) r.delegated.insert(r.delegated.end(), d.operators.begin(), d.operators.end());
  for (const auto& in : (*loaded)->instructions()) r.portable += !in.is_delegate_call();
  auto m = runtime::Method::create(**loaded, threads);
  EXPECT_TRUE(m.ok()) << error_detail();
  if (!m.ok()) return r;
  for (size_t i = 0; i < (*loaded)->delegates().size(); ++i)
    for (auto& name : (*m)->delegate_step_names(i)) r.steps.push_back(name);
  std::mt19937 rng(7);
  std::vector<std::vector<float>> data;
  std::vector<std::vector<std::byte>> int_data;  // integer inputs, in their dtype
  for (const auto& spec : ir.inputs()) {
    const bool integer = spec.dtype != DType::Float32;
    std::uniform_real_distribution<float> u(spec.lo, integer ? spec.hi + 1.f : spec.hi);
    auto& v = data.emplace_back(static_cast<size_t>(numel(spec.shape)));
    for (float& x : v) x = integer ? std::min(std::floor(u(rng)), spec.hi) : u(rng);
    auto& b = int_data.emplace_back(integer ? v.size() * dtype_size(spec.dtype) : 0);
    for (size_t k = 0; integer && k < v.size(); ++k) {
      const auto x = static_cast<int32_t>(v[k]);
      if (spec.dtype == DType::UInt8) b[k] = static_cast<std::byte>(static_cast<uint8_t>(x));
      else if (spec.dtype == DType::Int8) b[k] = static_cast<std::byte>(static_cast<int8_t>(x));
      else std::memcpy(&b[k * sizeof x], &x, sizeof x);
    }
  }
  // Twice: the handle's primitives and bindings are reused.
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < data.size(); ++i) {
      const DType dtype = ir.inputs()[i].dtype;
      void* at = dtype == DType::Float32 ? static_cast<void*>(data[i].data()) : static_cast<void*>(int_data[i].data());
      EXPECT_EQ((*m)->set_input(i, make_tensor(dtype, ir.inputs()[i].shape, at, 0)), Error::Ok) << error_detail();
    }
    EXPECT_EQ((*m)->execute(), Error::Ok) << error_detail();
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = (*m)->output(i);
    auto& out = r.outputs.emplace_back();
    switch (t.dtype) {
      case DType::Float32: out.assign(t.data_as<float>(), t.data_as<float>() + t.numel()); break;
      case DType::UInt8: out.assign(t.data_as<uint8_t>(), t.data_as<uint8_t>() + t.numel()); break;
      case DType::Int8: out.assign(t.data_as<int8_t>(), t.data_as<int8_t>() + t.numel()); break;
      case DType::Int32: out.assign(t.data_as<int32_t>(), t.data_as<int32_t>() + t.numel()); break;
      default: ADD_FAILURE() << outputs[i] << ": these tests read f32, u8, i8 and i32 outputs only";
    }
    r.shapes.emplace_back(t.shape().begin(), t.shape().end());
  }
  return r;
}

// Output k of a run, for compare.h.
inline compare::ArrayView output_view(const RunResult& r, size_t k) {
  return {DType::Float32, r.shapes[k], r.outputs[k].data(), r.outputs[k].size() * sizeof(float)};
}

// Every output of `got` matches `want`'s (same count, shapes; NaN only
// where `want` has NaN; within `tol`); `names` name them in the report.
inline void expect_outputs_match(const RunResult& got, const RunResult& want, const compare::Tolerance& tol,
                          const std::vector<std::string>& names, const std::string& context = {}) {
  ASSERT_EQ(got.outputs.size(), want.outputs.size());
  for (size_t k = 0; k < want.outputs.size(); ++k) {
    const std::string name = k < names.size() ? names[k] : "output " + std::to_string(k);
    EXPECT_TRUE(compare::arrays_match(name, output_view(got, k), output_view(want, k), tol)) << context;
  }
}

// Runs `ir` with `backend` and on the portable kernels; expects equal
// outputs within 1e-5 relative and every operator in `delegated` to run in
// the backend's delegates.
inline RunResult expect_matches(const Ir& ir, const std::vector<std::string>& outputs,
                                const std::vector<std::string>& delegated, double tol = 1e-5,
                                const std::string& backend = "onednn", int threads = 2) {
  const RunResult want = compile_and_run(ir, outputs, "none");
  const RunResult got = compile_and_run(ir, outputs, backend, threads);
  EXPECT_TRUE(want.delegated.empty());
  for (const auto& op : delegated)
    EXPECT_NE(std::find(got.delegated.begin(), got.delegated.end(), op), got.delegated.end())
        << op << " was not delegated\n" << ir.text(outputs);
  // |delegate - portable| <= tol * max(1, |portable|).
  expect_outputs_match(got, want, compare::Tolerance::either(tol, tol), outputs, ir.text(outputs));
  return got;
}

// ---- operator tables and refusals -------------------------------------------------------

// One small program per row of a delegate's operator table: the
// partitioner must take the operator, the runtime must build it, and the
// result must match the portable kernel's (the backends' Table tests).
struct TableSample {
  std::function<void(Ir&)> build;  ///< Inputs, constants and the call, whose result is %y.
  double tol = 1e-5;
};

// `call` ("relu.default(%x)") over an input of [2, 3, 17] in [lo, hi].
inline TableSample unary_sample(const std::string& call, float lo = -3.f, float hi = 3.f) {
  return {[=](Ir& ir) {
    ir.input("x", {2, 3, 17}, lo, hi);
    ir.op("%y = edge." + call + " : f32[2, 3, 17]");
  }};
}

// `call` (with its result type) over one input %x of `shape`.
inline TableSample one_call(std::vector<int64_t> shape, const std::string& call, double tol = 1e-5) {
  return {[=](Ir& ir) {
    ir.input("x", shape);
    ir.op("%y = edge." + call);
  }, tol};
}

// The reason `backend`'s partitioner gives for the first call of `text`
// (nullopt: taken).
inline std::optional<std::string> first_call_refusal(const BackendCompiler& backend, const std::string& text) {
  auto p = parse_program(text, "test.ir");
  auto part = backend.make_partitioner("");
  for (Node* n : p->graph.calls()) return part->refuse(*p, *n);
  return "no call";
}

// A program of one call `line` over user inputs "name:type; ...", whose
// result is %y.
inline std::string one_op(const std::string& inputs, const std::string& line) {
  std::string sig, ph;
  std::istringstream in(inputs);
  std::string decl;
  while (std::getline(in, decl, ';')) {
    decl.erase(0, decl.find_first_not_of(' '));
    const auto colon = decl.find(':');
    const std::string name = decl.substr(0, colon);
    sig += "  input user_input %" + name + " target = \"" + name + "\"\n";
    ph += "  %" + name + " = placeholder : " + decl.substr(colon + 1) + "\n";
  }
  return "program dialect = \"edge\"\nsignature {\n" + sig + "  output user_output %y target = \"y\"\n}\ngraph {\n" + ph +
         "  " + line + "\n  output(%y)\n}\n";
}

// `op`.Tensor over [2, 3, 4] and [3, 1] in [0.5, 2] (a divisor away from 0).
inline TableSample binary_sample(const std::string& op) {
  return {[=](Ir& ir) {
    ir.input("a", {2, 3, 4}, 0.5f, 2.f).input("b", {3, 1}, 0.5f, 2.f);
    ir.op("%y = edge." + op + ".Tensor(%a, %b) : f32[2, 3, 4]");
  }};
}

// The samples of the view operators (their result is their input's bytes)
// and clone, added to `s`.
inline void add_view_samples(std::map<std::string, TableSample>& s) {
  s["reshape"] = one_call({2, 3, 4}, "reshape.default(%x, shape = [6, 4]) : f32[6, 4]");
  s["flatten"] = one_call({2, 3, 4}, "flatten.default(%x, start_dim = 1) : f32[2, 12]");
  s["squeeze"] = one_call({2, 1, 4}, "squeeze.default(%x, dims = [1]) : f32[2, 4]");
  s["unsqueeze"] = one_call({2, 4}, "unsqueeze.default(%x, dims = [0]) : f32[1, 2, 4]");
  s["clone"] = one_call({2, 4}, "clone.default(%x) : f32[2, 4]");
}

// Walks a delegate's operator table (`rows`, its operators' names): each
// row's sample must run entirely in `backend`'s delegate and match the
// portable kernel, and each sample must have a row. `outputs` gives a
// row's results (default: %y alone).
inline void expect_every_row_matches(const std::vector<std::string>& rows,
                                     const std::map<std::string, TableSample>& samples, const std::string& backend,
                                     const std::function<std::vector<std::string>(const std::string&)>& outputs = {}) {
  for (const std::string& op : rows) {
    SCOPED_TRACE(op);
    auto it = samples.find(op);
    ASSERT_NE(it, samples.end()) << "the " << backend << " operator table has a row for " << op
                                 << " but this test has no sample program for it";
    Ir ir;
    it->second.build(ir);
    const std::vector<std::string> results = outputs ? outputs(op) : std::vector<std::string>{"y"};
    const RunResult got = expect_matches(ir, results, {op}, it->second.tol, backend);
    // All of it in the delegate: nothing left on the portable kernels.
    EXPECT_EQ(got.portable, 0u) << ir.text(results);
  }
  for (const auto& [op, sample] : samples)
    EXPECT_NE(std::find(rows.begin(), rows.end(), op), rows.end())
        << "a sample for " << op << ", which the operator table does not have";
}

}  // namespace
}  // namespace edgec
