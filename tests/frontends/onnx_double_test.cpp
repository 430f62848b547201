// ONNX models on double tensors, imported and run in the interpreter: every
// float-math operator computes float64 in double. Each result is compared
// with the ONNX definition's formula evaluated in double to 1e-12, which a
// detour through float (errors of ~1e-7) would fail. ONNX's own node tests
// have almost no double cases of these operators, hence this file. Also
// LRN on double, and the window generators (HannWindow, HammingWindow,
// BlackmanWindow) with their output_datatype and periodic attributes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <random>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/tensor_data.h"
#include "interpreter/interpreter.h"
#include "passes/pipeline.h"
#include "support/compare.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::AttributeProto;
using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

const compare::Tolerance kDouble = compare::Tolerance::either(1e-12, 1e-12);

/// A one-node model '/t' of type `op` on a double input x0 of `shape`
/// (opset `opset`), output y.
struct DoubleModel {
  onnx::ModelProto proto = empty_onnx_model();
  onnx::NodeProto* node = nullptr;

  DoubleModel(const std::string& op, const std::vector<int64_t>& shape, int64_t opset = 17) {
    proto.mutable_opset_import(0)->set_version(opset);
    add_input(proto.mutable_graph(), "x0", shape, TensorProto::DOUBLE);
    node = add_node(proto.mutable_graph(), "/t", op, {"x0"}, {"y"});
    proto.mutable_graph()->add_output()->set_name("y");
  }
  /// A float attribute: ONNX stores it as float, so the formula must use
  /// the float-rounded value too.
  DoubleModel& attr(const std::string& name, float v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::FLOAT);
    a->set_f(v);
    return *this;
  }
  DoubleModel& attr(const std::string& name, int64_t v) {
    set_int_attr(node, name, v);
    return *this;
  }
  /// A double initializer named `name`, appended to the node's inputs.
  DoubleModel& operand(const std::string& name, const std::vector<int64_t>& shape, const std::vector<double>& v) {
    auto* t = proto.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::DOUBLE);
    for (int64_t d : shape) t->add_dims(d);
    for (double x : v) t->add_double_data(x);
    node->add_input(name);
    return *this;
  }
};

/// Imports `m`, runs to_edge, constant_prop and dce, and runs it in the
/// interpreter on `x` (shape `shape`); the output's values, which must be
/// double.
std::vector<double> run_double(const DoubleModel& m, const std::vector<int64_t>& shape, const std::vector<double>& x) {
  const std::string bytes = m.proto.SerializeAsString();
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "double.onnx");
  optimize_program(*program);
  std::map<std::string, TensorData> inputs = {{"x0", make_data(DType::Float64, shape, x)}};
  KernelContext ctx;
  const std::vector<TensorData> out = run_program(*program, inputs, ctx);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].type.dtype, DType::Float64);
  return data_as_doubles(out[0]);
}

::testing::AssertionResult near_all(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]);
    if (std::isnan(want[i]) ? !std::isnan(got[i]) : err > kDouble.atol && err > kDouble.rtol * std::fabs(want[i]))
      return ::testing::AssertionFailure() << "element " << i << " is " << got[i] << ", expected " << want[i];
  }
  return ::testing::AssertionSuccess();
}

std::vector<double> values_in(size_t count, double lo, double hi, uint32_t seed = 7) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(count);
  for (double& x : v) x = dist(gen);
  return v;
}

struct UnaryCase {
  std::string op;
  double lo, hi;
  std::function<double(double)> formula;
  std::function<void(DoubleModel&)> attrs = nullptr;
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double softplus(double x) { return std::log1p(std::exp(x)); }

TEST(OnnxDouble, UnaryOperatorsComputeInDouble) {
  const double a = static_cast<double>(0.3f);  // a float attribute as ONNX stores it
  // (ONNX's Celu takes float only; its kernel's double is covered by the
  // kernel cases.)
  const std::vector<UnaryCase> cases = {
      {"Sqrt", 0.0, 9.0, [](double x) { return std::sqrt(x); }},
      {"Reciprocal", 0.5, 9.0, [](double x) { return 1.0 / x; }},
      {"Sin", -5.0, 5.0, [](double x) { return std::sin(x); }},
      {"Cos", -5.0, 5.0, [](double x) { return std::cos(x); }},
      {"Tan", -1.4, 1.4, [](double x) { return std::tan(x); }},
      {"Asin", -1.0, 1.0, [](double x) { return std::asin(x); }},
      {"Acos", -1.0, 1.0, [](double x) { return std::acos(x); }},
      {"Atan", -5.0, 5.0, [](double x) { return std::atan(x); }},
      {"Sinh", -5.0, 5.0, [](double x) { return std::sinh(x); }},
      {"Cosh", -5.0, 5.0, [](double x) { return std::cosh(x); }},
      {"Asinh", -5.0, 5.0, [](double x) { return std::asinh(x); }},
      {"Acosh", 1.0, 9.0, [](double x) { return std::acosh(x); }},
      {"Atanh", -0.99, 0.99, [](double x) { return std::atanh(x); }},
      {"Tanh", -5.0, 5.0, [](double x) { return std::tanh(x); }},
      {"Sigmoid", -20.0, 20.0, sigmoid},
      {"Erf", -4.0, 4.0, [](double x) { return std::erf(x); }},
      {"Floor", -5.0, 5.0, [](double x) { return std::floor(x); }},
      {"Ceil", -5.0, 5.0, [](double x) { return std::ceil(x); }},
      {"Round", -5.0, 5.0, [](double x) { return std::nearbyint(x); }},
      {"Abs", -5.0, 5.0, [](double x) { return std::fabs(x); }},
      {"Neg", -5.0, 5.0, [](double x) { return -x; }},
      {"Relu", -5.0, 5.0, [](double x) { return x < 0 ? 0.0 : x; }},
      {"Softplus", -10.0, 15.0, softplus},
      {"Softsign", -5.0, 5.0, [](double x) { return x / (1.0 + std::fabs(x)); }},
      {"Elu", -5.0, 5.0, [a](double x) { return x > 0 ? x : a * std::expm1(x); },
       [](DoubleModel& m) { m.attr("alpha", 0.3f); }},
      {"LeakyRelu", -5.0, 5.0, [a](double x) { return x > 0 ? x : a * x; },
       [](DoubleModel& m) { m.attr("alpha", 0.3f); }},
      {"ThresholdedRelu", -5.0, 5.0, [a](double x) { return x > a ? x : 0.0; },
       [](DoubleModel& m) { m.attr("alpha", 0.3f); }},
      {"HardSwish", -5.0, 5.0, [](double x) { return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0; }},
      // Without attributes, edgec's defaults: torch's constants in double.
      {"Selu", -5.0, 5.0,
       [](double x) {
         const double alpha = 1.6732632423543772, gamma = 1.0507009873554805;
         return x > 0 ? gamma * x : gamma * alpha * std::expm1(x);
       }},
  };
  const std::vector<int64_t> shape = {3, 7};
  for (const UnaryCase& c : cases) {
    DoubleModel m(c.op, shape);
    if (c.attrs) c.attrs(m);
    const std::vector<double> x = values_in(21, c.lo, c.hi);
    std::vector<double> want;
    for (double v : x) want.push_back(c.formula(v));
    EXPECT_TRUE(near_all(run_double(m, shape, x), want)) << c.op;
  }
}

TEST(OnnxDouble, PowAndSoftmaxComputeInDouble) {
  const std::vector<int64_t> shape = {2, 5};
  const std::vector<double> x = values_in(10, 0.5, 3.0);
  {
    DoubleModel m("Pow", shape);
    m.operand("e", {}, {1.7});
    std::vector<double> want;
    for (double v : x) want.push_back(std::pow(v, 1.7));
    EXPECT_TRUE(near_all(run_double(m, shape, x), want));
  }
  for (const bool log : {false, true}) {
    DoubleModel m(log ? "LogSoftmax" : "Softmax", shape);
    std::vector<double> want;
    for (int r = 0; r < 2; ++r) {
      double total = 0.0;
      for (int j = 0; j < 5; ++j) total += std::exp(x[r * 5 + j]);
      for (int j = 0; j < 5; ++j) want.push_back(log ? x[r * 5 + j] - std::log(total) : std::exp(x[r * 5 + j]) / total);
    }
    EXPECT_TRUE(near_all(run_double(m, shape, x), want)) << (log ? "LogSoftmax" : "Softmax");
  }
}

TEST(OnnxDouble, NormalizationsComputeInDouble) {
  const std::vector<int64_t> shape = {2, 3, 4};
  // A large mean: the statistics must be computed in double to keep digits.
  const std::vector<double> x = values_in(24, 1e3, 1e3 + 5.0);
  const std::vector<double> w = {0.5, -1.25, 2.0}, b = {0.1, 0.2, -0.3};
  const double eps = static_cast<double>(1e-5f);
  // Per (sample, channel) statistics over the last dim.
  auto instance = [&](bool affine) {
    std::vector<double> want;
    for (int n = 0; n < 2; ++n)
      for (int c = 0; c < 3; ++c) {
        const double* p = &x[static_cast<size_t>((n * 3 + c) * 4)];
        double mean = 0, var = 0;
        for (int i = 0; i < 4; ++i) mean += p[i] / 4;
        for (int i = 0; i < 4; ++i) var += (p[i] - mean) * (p[i] - mean) / 4;
        for (int i = 0; i < 4; ++i) {
          const double y = (p[i] - mean) / std::sqrt(var + eps);
          want.push_back(affine ? y * w[static_cast<size_t>(c)] + b[static_cast<size_t>(c)] : y);
        }
      }
    return want;
  };
  {
    DoubleModel m("InstanceNormalization", shape);
    m.operand("w", {3}, w).operand("b", {3}, b);
    EXPECT_TRUE(near_all(run_double(m, shape, x), instance(true))) << "InstanceNormalization";
  }
  {
    // LayerNormalization over the last dim, of the same rows.
    DoubleModel m("LayerNormalization", {6, 4});
    m.operand("w", {4}, {1, 1, 1, 1}).operand("b", {4}, {0, 0, 0, 0});
    EXPECT_TRUE(near_all(run_double(m, {6, 4}, x), instance(false))) << "LayerNormalization";
  }
  {
    DoubleModel m("BatchNormalization", shape);
    const std::vector<double> mean = {1000.5, 1001.0, 1002.5}, var = {0.5, 2.0, 1.5};
    m.operand("w", {3}, w).operand("b", {3}, b).operand("m", {3}, mean).operand("v", {3}, var);
    std::vector<double> want;
    for (size_t i = 0; i < x.size(); ++i) {
      const size_t c = (i / 4) % 3;
      want.push_back((x[i] - mean[c]) / std::sqrt(var[c] + eps) * w[c] + b[c]);
    }
    EXPECT_TRUE(near_all(run_double(m, shape, x), want)) << "BatchNormalization";
  }
}

TEST(OnnxDouble, LrnComputesInDouble) {
  const std::vector<int64_t> shape = {1, 5, 2};
  const std::vector<double> x = values_in(10, -3.0, 3.0);
  DoubleModel m("LRN", shape, 13);
  m.attr("size", int64_t{2}).attr("alpha", 0.5f).attr("beta", 0.6f).attr("bias", 1.5f);
  const double alpha = static_cast<double>(0.5f), beta = static_cast<double>(0.6f), bias = 1.5;
  std::vector<double> want;
  for (int c = 0; c < 5; ++c)
    for (int i = 0; i < 2; ++i) {
      // ONNX's window for size 2: channels c and c + 1.
      double squares = 0;
      for (int k = c; k <= std::min(c + 1, 4); ++k) squares += x[static_cast<size_t>(k * 2 + i)] * x[static_cast<size_t>(k * 2 + i)];
      want.push_back(x[static_cast<size_t>(c * 2 + i)] / std::pow(bias + alpha / 2 * squares, beta));
    }
  EXPECT_TRUE(near_all(run_double(m, shape, x), want));
}

// ---- windows ---------------------------------------------------------------------------

/// A window node of constant size `size` (an int64 scalar initializer),
/// imported and run; its output as doubles and its dtype.
std::vector<double> window(const std::string& op, int64_t size, int64_t periodic, int64_t output_datatype,
                           DType& dtype) {
  onnx::ModelProto proto = empty_onnx_model();
  auto* g = proto.mutable_graph();
  auto* t = g->add_initializer();
  t->set_name("size");
  t->set_data_type(TensorProto::INT64);
  t->add_int64_data(size);
  auto* n = add_node(g, "/t", op, {"size"}, {"y"});
  if (periodic >= 0) set_int_attr(n, "periodic", periodic);
  if (output_datatype >= 0) set_int_attr(n, "output_datatype", output_datatype);
  g->add_output()->set_name("y");
  const std::string bytes = proto.SerializeAsString();
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "window.onnx");
  optimize_program(*program);
  std::map<std::string, TensorData> none;
  KernelContext ctx;
  const std::vector<TensorData> out = run_program(*program, none, ctx);
  EXPECT_EQ(out.size(), 1u);
  dtype = out[0].type.dtype;
  return data_as_doubles(out[0]);
}

TEST(OnnxDouble, WindowsAreCosineSums) {
  struct Kind {
    std::string op;
    double a0, a1, a2;
  };
  const std::vector<Kind> kinds = {{"HannWindow", 0.5, 0.5, 0.0},
                                   {"HammingWindow", 25.0 / 46.0, 21.0 / 46.0, 0.0},
                                   {"BlackmanWindow", 0.42, 0.5, 0.08}};
  for (const Kind& k : kinds) {
    for (const int64_t periodic : {-1, 0, 1}) {
      const int64_t size = 9;
      const double m = periodic == 0 ? size - 1 : size;  // periodic by default
      std::vector<double> want;
      for (int64_t i = 0; i < size; ++i) {
        const double t = 2 * std::numbers::pi * static_cast<double>(i) / m;
        want.push_back(k.a0 - k.a1 * std::cos(t) + k.a2 * std::cos(2 * t));
      }
      DType dtype = DType::Float32;
      EXPECT_TRUE(near_all(window(k.op, size, periodic, TensorProto::DOUBLE, dtype), want)) << k.op << " " << periodic;
      EXPECT_EQ(dtype, DType::Float64);
      // float by default, the same values rounded.
      const std::vector<double> f = window(k.op, size, periodic, -1, dtype);
      EXPECT_EQ(dtype, DType::Float32);
      ASSERT_EQ(f.size(), want.size());
      for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], static_cast<double>(static_cast<float>(want[i]))) << k.op;
    }
    DType dtype = DType::Float32;
    // A symmetric window of one element is 1 (numpy, torch), not ONNX's 0 / 0.
    EXPECT_EQ(window(k.op, 1, 0, TensorProto::DOUBLE, dtype), std::vector<double>{1.0}) << k.op;
    EXPECT_TRUE(window(k.op, 0, 1, -1, dtype).empty()) << k.op;
  }
}

}  // namespace
}  // namespace edgec
