// Models of old opsets (below 13): ONNX's version converter brings them to
// 13; Softmax and LogSoftmax keep their old meaning (softmax over the 2-D
// coercion at 'axis') through handlers of their own, also on symbolic
// dims. Expected values are worked out by hand below.
#include <gtest/gtest.h>

#include <cmath>

#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

/// x: f32[N, 2, 2] (N symbolic) -> OP(axis) at `opset` -> y.
onnx::ModelProto softmax_model(const std::string& op, int64_t opset, int64_t axis) {
  onnx::ModelProto m = empty_onnx_model();
  m.set_ir_version(6);
  m.mutable_opset_import(0)->set_version(opset);
  auto* g = m.mutable_graph();
  add_input(g, "x", {1, 2, 2});
  g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  set_int_attr(add_node(g, "/s", op, {"x"}, {"y"}), "axis", axis);
  g->add_output()->set_name("y");
  return m;
}

std::vector<float> run(const onnx::ModelProto& m, const std::vector<float>& x, int64_t n) {
  std::string bytes;
  m.SerializeToString(&bytes);
  OnnxImportOptions options;
  options.dim_bounds["N"] = 4;
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "m.onnx", options);
  lower_program(*program);
  const auto file = serialize_program(*program);
  auto data = std::make_shared<std::vector<std::byte>>(x.size() * sizeof(float));
  std::memcpy(data->data(), x.data(), data->size());
  std::map<std::string, TensorData> inputs;
  inputs["x"] = TensorData{TensorType::of(DType::Float32, {n, 2, 2}), data};
  const auto out = onnx_cases::run_file(file, inputs);
  std::vector<float> y(out.at(0).bytes->size() / sizeof(float));
  std::memcpy(y.data(), out.at(0).bytes->data(), out.at(0).bytes->size());
  return y;
}

// exp(log k) = k: a row [log 1, log 2, log 3, log 4] has softmax k / 10.
const float kL1 = 0, kL2 = std::log(2.0f), kL3 = std::log(3.0f), kL4 = std::log(4.0f);

TEST(OnnxOldOpsets, SoftmaxBeforeOpset13IsOverTheTrailingDimsFromAxis) {
  // Opset 11, axis 1 of [N, 2, 2]: over the 4 elements of each batch.
  const auto y = run(softmax_model("Softmax", 11, 1), {kL1, kL2, kL3, kL4, kL4, kL3, kL2, kL1}, 2);
  const std::vector<float> want = {0.1f, 0.2f, 0.3f, 0.4f, 0.4f, 0.3f, 0.2f, 0.1f};
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

TEST(OnnxOldOpsets, LogSoftmaxBeforeOpset13IsOverTheTrailingDimsFromAxis) {
  const auto y = run(softmax_model("LogSoftmax", 9, 1), {kL1, kL2, kL3, kL4}, 1);
  const std::vector<float> want = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5) << i;
}

TEST(OnnxOldOpsets, SoftmaxOfOpset13IsAlongItsAxis) {
  // The same model at opset 13 normalizes along dim 1 alone: pairs
  // (log 1, log 3) and (log 2, log 4) give 1/4, 3/4 and 1/3, 2/3.
  const auto y = run(softmax_model("Softmax", 13, 1), {kL1, kL2, kL3, kL4}, 1);
  const std::vector<float> want = {0.25f, 1.0f / 3, 0.75f, 2.0f / 3};
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

TEST(OnnxOldOpsets, OldModelsAreConvertedTo13) {
  // Opset 11 Squeeze reads its axes from an attribute; the converter makes
  // it an input, which the handler reads.
  onnx::ModelProto m = empty_onnx_model();
  m.set_ir_version(6);
  m.mutable_opset_import(0)->set_version(11);
  auto* g = m.mutable_graph();
  add_input(g, "x", {1, 3});
  set_ints(add_node(g, "/q", "Squeeze", {"x"}, {"y"}), "axes", {0});
  g->add_output()->set_name("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "m.onnx");
  EXPECT_EQ(program->graph.output_node()->input(0)->type().str(), "f32[3]");
}

TEST(OnnxOldOpsets, RecurrentLayersOfOpset7MatchOnnxsCases) {
  // LSTM, GRU and RNN did not change from opset 7 to 13 (14 added
  // 'layout'): ONNX's node cases of opset 14, written as opset 7, go
  // through the converter and give the same outputs.
  const std::filesystem::path node = "/usr/share/libonnx-testdata/data/node";
  for (const char* name : {"test_lstm_with_peepholes", "test_gru_seq_length", "test_rnn_seq_length"}) {
    const std::filesystem::path dir = node / name;
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "libonnx-testdata is not installed";
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(onnx_cases::slurp(dir / "model.onnx"))) << name;
    m.mutable_opset_import(0)->set_version(7);
    m.set_ir_version(6);
    std::string bytes;
    m.SerializeToString(&bytes);
    EXPECT_EQ(onnx_cases::run_case(m, bytes, dir, compare::Tolerance::sum(1e-5, 1e-5)), "") << name;
  }
}

}  // namespace
}  // namespace edgec
