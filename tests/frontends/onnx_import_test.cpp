// The ONNX importer (src/frontends/onnx): every committed fixture under
// models/fixtures imports, runs through to_edge + constant_prop + dce and
// matches PyTorch's outputs in the interpreter; the signature follows
// docs/semantics.md §1; malformed and unsupported models fail with messages that
// name the file and node.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/half.h"
#include "frontends/onnx/importer.h"
#include "interpreter/interpreter.h"
#include "io/npz.h"
#include "base/diagnostic.h"
#include "ir/operator.h"
#include "ir/text.h"
#include "ir/verifier.h"
#include "compiler/pass_registry.h"
#include "passes/pipeline.h"
#include "support/compare.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

const std::string kFixtures = EDGEC_SOURCE_DIR "/models/fixtures";
const std::string kInvalidFixture = "mask_2d_axis1_invalid";

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures))
    // The invalid export has its own test (InvalidMaskFixtureIsRefused).
    if (e.path().extension() == ".onnx" && e.path().stem() != kInvalidFixture)
      names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

void run_pass(Program& p, const std::string& name) {
  const PassInfo* info = find_pass(name);
  ASSERT_NE(info, nullptr) << name;
  info->create("")->run(p);
  const auto problems = verify(p);
  EXPECT_TRUE(problems.empty()) << "after " << name << ": " << (problems.empty() ? "" : problems[0]);
}

TensorData to_tensor_data(const io::NpyArray& a) {
  return TensorData{TensorType::of(a.dtype, a.shape), std::make_shared<std::vector<std::byte>>(a.data)};
}

/// Element `i` of the T array at `p`.
template <typename T>
T element(const std::byte* p, size_t i) {
  T v;
  std::memcpy(&v, p + sizeof(T) * i, sizeof(T));
  return v;
}

std::vector<double> as_doubles(const TensorData& d) {
  std::vector<double> out;
  const auto* p = d.bytes->data();
  const size_t n = d.bytes->size() / dtype_size(d.type.dtype);
  for (size_t i = 0; i < n; ++i) {
    switch (d.type.dtype) {
      case DType::Float32: out.push_back(element<float>(p, i)); break;
      case DType::Float16: out.push_back(half_to_float(element<Half>(p, i))); break;
      case DType::Int64: out.push_back(static_cast<double>(element<int64_t>(p, i))); break;
      case DType::Int32: out.push_back(element<int32_t>(p, i)); break;
      case DType::Int8: out.push_back(element<int8_t>(p, i)); break;
      case DType::UInt8:
      case DType::Bool: out.push_back(element<uint8_t>(p, i)); break;
      case DType::Float64: out.push_back(element<double>(p, i)); break;
      case DType::Int16: out.push_back(element<int16_t>(p, i)); break;
      case DType::UInt16: out.push_back(element<uint16_t>(p, i)); break;
      case DType::UInt32: out.push_back(element<uint32_t>(p, i)); break;
      case DType::UInt64: out.push_back(static_cast<double>(element<uint64_t>(p, i))); break;
      case DType::BFloat16: out.push_back(bfloat16_to_float(element<uint16_t>(p, i))); break;
    }
  }
  return out;
}

int count_inputs(const Program& p, InputKind kind) {
  int n = 0;
  for (const auto& s : p.inputs) n += s.kind == kind;
  return n;
}

int count_ops(const Program& p, const std::string& op) {
  int n = 0;
  for (const Node* c : p.graph.calls()) n += c->op() == op;
  return n;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

// Each fixture imports to a verified aten program, and after to_edge,
// constant_prop and dce the interpreter reproduces PyTorch's outputs.
TEST_P(FixtureTest, ImportsAndMatchesPyTorch) {
  const std::string name = GetParam();
  const std::string base = kFixtures + "/" + name;
  std::unique_ptr<Program> p;
  // Inputs a deployment fixes (NAME.fixed.npz) are bound when importing,
  // as `edgec compile --fix-inputs` does.
  OnnxImportOptions options;
  if (std::filesystem::exists(base + ".fixed.npz"))
    for (const auto& a : io::read_npz(base + ".fixed.npz")) options.input_values[a.name] = to_tensor_data(a);
  try {
    p = import_onnx(base + ".onnx", options);
  } catch (const CompileError& e) {
    FAIL() << e.what();
  }
  EXPECT_EQ(p->dialect, "aten");
  EXPECT_TRUE(verify(*p).empty());
  // The imported program prints to textual IR that parses back to itself.
  const std::string text = print_program(*p, PrintOptions{1024});
  EXPECT_EQ(print_program(*parse_program(text, name + ".ir"), PrintOptions{1024}), text);
  for (const char* pass : {"to_edge", "constant_prop", "dce"}) {
    try {
      run_pass(*p, pass);
    } catch (const CompileError& e) {
      FAIL() << pass << ": " << e.what();
    }
  }
  std::map<std::string, TensorData> inputs;
  for (const auto& a : io::read_npz(base + ".inputs.npz")) inputs[a.name] = to_tensor_data(a);
  KernelContext ctx;
  std::vector<TensorData> outputs;
  try {
    outputs = run_program(*p, inputs, ctx);
  } catch (const CompileError& e) {
    FAIL() << e.what() << "\n" << print_program(*p, PrintOptions{256});
  }
  const auto expected = io::read_npz(base + ".outputs.npz");
  ASSERT_EQ(outputs.size(), p->outputs.size());
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto it = std::find_if(expected.begin(), expected.end(),
                                 [&](const io::NpyArray& a) { return a.name == p->outputs[i].target; });
    ASSERT_NE(it, expected.end()) << "no reference for output " << p->outputs[i].target;
    // Floats within 1e-4 absolute or relative; integers and booleans exact.
    const TensorData& got = outputs[i];
    const compare::ArrayView got_view{got.type.dtype, got.type.static_shape(), got.bytes ? got.bytes->data() : nullptr,
                                      got.bytes ? got.bytes->size() : 0};
    const compare::ArrayView want_view{it->dtype, it->shape, it->data.data(), it->data.size()};
    EXPECT_TRUE(compare::arrays_match("output '" + p->outputs[i].target + "'", got_view, want_view,
                                      compare::Tolerance::either(1e-4, 1e-4)));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureTest, ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) { return info.param; });

// The exporter's x[:, mask2d] is an invalid graph (a Squeeze of a size-2
// axis); the importer refuses it, naming the node and the sizes.
TEST(OnnxImport, InvalidMaskFixtureIsRefused) {
  try {
    import_onnx(kFixtures + "/" + kInvalidFixture + ".onnx");
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(kInvalidFixture + ".onnx"), std::string::npos) << msg;
    EXPECT_NE(msg.find("node '/Squeeze'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Squeeze, domain ai.onnx, opset 17"), std::string::npos) << msg;
    EXPECT_NE(msg.find("to have size 1, got 2"), std::string::npos) << msg;
  }
}

// docs/semantics.md §1: an initializer that is not a graph input is a constant.
TEST(OnnxImport, InitializerIsConstant) {
  auto p = import_onnx(kFixtures + "/mask_buffer.onnx");
  EXPECT_EQ(count_inputs(*p, InputKind::Parameter), 0);
  EXPECT_EQ(count_inputs(*p, InputKind::Constant), 3);  // the mask, the weight, the bias
  EXPECT_EQ(p->constants.size(), 3u);
}

// docs/semantics.md §1: an initializer that is also a graph input is a parameter
// (its values may be replaced at load time).
TEST(OnnxImport, InitializerThatIsInputIsParameter) {
  auto p = import_onnx(kFixtures + "/mask_buffer_overridable.onnx");
  const int parameters = count_inputs(*p, InputKind::Parameter);
  EXPECT_EQ(count_inputs(*p, InputKind::UserInput), 1);
  EXPECT_GE(parameters, 3);
  EXPECT_TRUE(p->constants.empty());
  EXPECT_EQ(p->state.size(), static_cast<size_t>(parameters));
}

// docs/semantics.md §3.4: the nonzero of a constant mask folds like any other call
// of constants, here already at import: x[mask] reads the mask's positions
// as a constant of static shape, and nothing is left for constant_prop.
TEST(OnnxImport, ConstantMaskNonzeroFoldsAtImport) {
  auto p = import_onnx(kFixtures + "/mask_const_2d.onnx");
  EXPECT_EQ(count_ops(*p, "aten.nonzero.default"), 0);
  EXPECT_EQ(count_ops(*p, "aten.index.default"), 1);
  for (const Node* c : p->graph.calls())
    for (const Value* v : c->inputs()) EXPECT_TRUE(v->type().is_static()) << c->label();
  run_pass(*p, "to_edge");
  const size_t constants = p->constants.size();
  run_pass(*p, "constant_prop");
  EXPECT_EQ(p->constants.size(), constants);
}

// Outputs that are constants or parameters are computed by a clone
// (docs/semantics.md §3.3), and each output keeps its ONNX name as target.
TEST(OnnxImport, FoldedOutputsAreClones) {
  auto p = import_onnx(kFixtures + "/folded_output.onnx");
  ASSERT_EQ(p->outputs.size(), 3u);
  EXPECT_EQ(p->outputs[0].target, "action");
  EXPECT_EQ(p->outputs[1].target, "pos_embed");
  EXPECT_EQ(p->outputs[2].target, "action_scale");
  for (const Value* v : p->graph.output_node()->inputs()) EXPECT_TRUE(v->producer()->is_call());
  std::set<std::string> targets;
  for (const auto& s : p->inputs)
    if (s.kind != InputKind::UserInput) {
      EXPECT_TRUE(targets.insert(s.target).second) << s.target;
    }
  EXPECT_TRUE(p->state.count("action_scale.1") || p->constants.count("action_scale.1"));
}

// Identity chains (the exporter's duplicates of merged initializers) emit
// nothing, and each target is listed once (docs/semantics.md §1).
TEST(OnnxImport, IdentityChainsEmitNothing) {
  auto p = import_onnx(kFixtures + "/transformer.onnx");
  std::set<std::string> targets;
  for (const auto& s : p->inputs)
    if (s.kind != InputKind::UserInput) {
      EXPECT_TRUE(targets.insert(s.target).second) << s.target;
    }
  EXPECT_EQ(count_ops(*p, "aten.clone.default"), 0);
  // The exporter's Identity outputs (layers.1's in_proj_bias, a copy of
  // layers.0's) are not targets: their initializer is.
  onnx::ModelProto model;
  std::ifstream in(kFixtures + "/transformer.onnx", std::ios::binary);
  ASSERT_TRUE(model.ParseFromIstream(&in));
  int identities = 0;
  for (const auto& n : model.graph().node()) {
    if (n.op_type() != "Identity") continue;
    ++identities;
    EXPECT_FALSE(targets.count(n.output(0))) << n.output(0);
    EXPECT_TRUE(targets.count(n.input(0))) << n.input(0);
  }
  EXPECT_GT(identities, 0);
}

// Symbolic dims stay symbolic through the Shape/Gather/Concat chains: the
// dynamic transformer's reshapes become attributes with one -1.
TEST(OnnxImport, SymbolicSequenceLengths) {
  auto p = import_onnx(kFixtures + "/transformer_dynamic.onnx");
  const Value* out = p->graph.output_node()->input(0);
  ASSERT_EQ(out->type().rank(), 3);
  EXPECT_EQ(out->type().dims[0], Dim::symbolic("tgt_len"));
  EXPECT_EQ(count_ops(*p, "aten.reshape.default") > 0, true);
  for (const Node* c : p->graph.calls()) {
    if (c->op() != "aten.reshape.default") continue;
    const auto* shape = c->attrs().get_ints("shape");
    ASSERT_NE(shape, nullptr);
    EXPECT_LE(std::count(shape->begin(), shape->end(), -1), 1);
  }
}

// dim_sizes fixes a dim_param; dim_bounds bounds it.
TEST(OnnxImport, DimOptions) {
  OnnxImportOptions fixed;
  fixed.dim_sizes["batch"] = 3;
  auto p = import_onnx(kFixtures + "/mlp_dynamic.onnx", fixed);
  EXPECT_EQ(p->graph.placeholders()[0]->result()->type().str(), "f32[3, 64]");
  OnnxImportOptions bounded;
  bounded.dim_bounds["batch"] = 8;
  p = import_onnx(kFixtures + "/mlp_dynamic.onnx", bounded);
  EXPECT_EQ(p->graph.placeholders()[0]->result()->type().str(), "f32[batch<=8, 64]");
  OnnxImportOptions typo;
  typo.dim_sizes["btach"] = 3;
  try {
    import_onnx(kFixtures + "/mlp_dynamic.onnx", typo);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "--dim (dim_sizes) names 'btach', but no graph input has a dim of that name (the model's: batch)"),
              std::string::npos)
        << e.what();
  }
}

// ---- errors ---------------------------------------------------------------------

std::string import_error(const onnx::ModelProto& m, const std::string& what = "model.onnx") {
  return onnx_import_error(m.SerializeAsString(), what);
}

std::string import_error_bytes(const std::string& bytes, const std::string& what) {
  return onnx_import_error(bytes, what);
}

/// y = Relu(x) with x f32[2, 3]; opset and IR as torch 1.13 writes them.
onnx::ModelProto relu_model(int64_t opset = 17) {
  auto m = onnx_graph({2, 3}, {{"/relu", "Relu", {"x"}, {"y"}}}, {"y"});
  auto* op = m.mutable_opset_import(0);
  op->set_domain("");
  op->set_version(opset);
  return m;
}

TEST(OnnxImportErrors, SmallModelImports) {
  const std::string bytes = relu_model().SerializeAsString();
  auto p = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "relu.onnx");
  EXPECT_EQ(count_ops(*p, "aten.relu.default"), 1);
  EXPECT_EQ(p->outputs[0].target, "y");
}

// A Pad by zeros on every side (torch's export of avg_pool: DenseNet's
// transitions) is its input: no pad call is left to split a delegate. A
// Pad by something is kept.
TEST(OnnxImport, PadByZerosIsItsInput) {
  for (const int64_t p : {0, 1}) {
    auto m = onnx_graph({1, 2, 3, 3}, {{"/pad", "Pad", {"x", "pads"}, {"y"}}, {"/relu", "Relu", {"y"}, {"z"}}}, {"z"});
    m.mutable_opset_import(0)->set_version(17);
    auto* pads = m.mutable_graph()->add_initializer();
    pads->set_name("pads");
    pads->set_data_type(onnx::TensorProto::INT64);
    pads->add_dims(8);
    for (int i = 0; i < 8; ++i) pads->add_int64_data(i == 3 ? p : 0);
    const std::string bytes = m.SerializeAsString();
    auto prog = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "pad.onnx");
    int pad_calls = 0;
    for (const Node* c : prog->graph.calls()) pad_calls += c->op().find("pad") != std::string::npos;
    EXPECT_EQ(pad_calls, p == 0 ? 0 : 1) << "pads of " << p;
    EXPECT_EQ(count_ops(*prog, "aten.relu.default"), 1);
  }
}

// Regression (fuzz/onnx_fuzzer): a Constant of rank 44 reached constant
// folding, whose tensors hold at most kMaxRank dims, and was written past
// their shape arrays. It is now refused when its data is read. (The fuzzed
// file also marks the attribute as a list of sparse tensors, which the
// schema check refuses first; with that mended, the rank is refused.)
TEST(OnnxImportErrors, RankAboveTheMaximumIsRefused) {
  std::ifstream in(EDGEC_SOURCE_DIR "/tests/frontends/regressions/rank44_constant.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  ASSERT_FALSE(bytes.empty());
  auto compile_error = [](const std::string& b) {
    try {
      auto p = import_onnx_bytes(std::as_bytes(std::span<const char>(b.data(), b.size())), "rank44.onnx");
      optimize_program(*p);
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  std::string msg = compile_error(bytes);
  EXPECT_NE(msg.find("attribute 'value' is a list of sparse tensors; expected a tensor"), std::string::npos) << msg;
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_type(onnx::AttributeProto::TENSOR);
  msg = compile_error(model.SerializeAsString());
  EXPECT_NE(msg.find("edgec supports ranks up to 8"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, JunkBytes) {
  const std::string msg = import_error_bytes("this is certainly not an ONNX model \x01\x02\xff", "junk.onnx");
  EXPECT_EQ(msg.rfind("junk.onnx: ", 0), 0u) << msg;
}

TEST(OnnxImportErrors, EmptyFile) {
  const std::string msg = import_error_bytes("", "empty.onnx");
  EXPECT_EQ(msg.rfind("empty.onnx: ", 0), 0u) << msg;
}

TEST(OnnxImportErrors, MissingFile) {
  try {
    import_onnx(kFixtures + "/no_such_model.onnx");
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_model.onnx: cannot open"), std::string::npos) << e.what();
  }
}

// Truncating a real model anywhere gives a clean error naming the file.
TEST(OnnxImportErrors, TruncatedFile) {
  std::ifstream in(kFixtures + "/mlp.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string full = ss.str();
  ASSERT_GT(full.size(), 1000u);
  for (size_t cut : {size_t{1}, size_t{10}, size_t{100}, full.size() / 3, full.size() / 2, full.size() - 300,
                     full.size() - 20, full.size() - 1}) {
    const std::string msg = import_error_bytes(full.substr(0, cut), "mlp_cut.onnx");
    EXPECT_EQ(msg.rfind("mlp_cut.onnx: ", 0), 0u) << "cut at " << cut << ": " << msg;
  }
}

// The same through a file: the message names the path.
TEST(OnnxImportErrors, TruncatedFileOnDisk) {
  std::ifstream in(kFixtures + "/mlp.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string path = ::testing::TempDir() + "/edgec_truncated_mlp.onnx";
  std::ofstream(path, std::ios::binary) << ss.str().substr(0, ss.str().size() / 2);
  try {
    import_onnx(path);
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
  std::filesystem::remove(path);
}

TEST(OnnxImportErrors, UnknownOperator) {
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_op_type("FancyRelu");
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("model.onnx: node '/relu' (#0, FancyRelu, domain ai.onnx, opset 17)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, UnknownDomain) {
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_domain("com.microsoft");
  auto* op = m.add_opset_import();
  op->set_domain("com.microsoft");
  op->set_version(1);
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("node '/relu' (#0, Relu, domain com.microsoft, opset 1)"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, UnsupportedOpset) {
  const std::string msg = import_error(relu_model(99));
  EXPECT_NE(msg.find("node '/relu' (#0, Relu, domain ai.onnx, opset 99)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("opset 99 of the default domain is not supported"), std::string::npos) << msg;
  EXPECT_NE(import_error(relu_model(0)).find("opset 0"), std::string::npos);
}

TEST(OnnxImportErrors, UnsupportedIrVersion) {
  auto m = relu_model();
  m.set_ir_version(12);
  EXPECT_NE(import_error(m).find("IR version 12 is not supported"), std::string::npos);
}

TEST(OnnxImportErrors, UndefinedInput) {
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_input(0, "nowhere");
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("node '/relu' (#0, Relu"), std::string::npos) << msg;
  EXPECT_NE(msg.find("input 0 'X' (value 'nowhere') is not defined"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, UnsupportedInputType) {
  auto m = relu_model();
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::COMPLEX64);
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("graph input 'x' has element type complex64"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, CastToComplex64) {
  auto m = relu_model();
  auto* n = m.mutable_graph()->mutable_node(0);
  n->set_op_type("Cast");
  set_int_attr(n, "to", onnx::TensorProto::COMPLEX64);
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("attribute 'to' is complex64, which edgec does not compute with"), std::string::npos) << msg;
}

TEST(OnnxImportErrors, UndefinedGraphOutput) {
  auto m = relu_model();
  m.mutable_graph()->mutable_output(0)->set_name("z");
  EXPECT_NE(import_error(m).find("graph output 'z' is not produced"), std::string::npos);
}

/// relu_model()'s y reshaped (by node `name`) to the graph input shape:
/// i64[2]; the graph output is the result, r.
onnx::ModelProto reshaped_relu_model(const std::string& name) {
  auto m = relu_model();
  auto* g = m.mutable_graph();
  add_input(g, "shape", {2}, onnx::TensorProto::INT64);
  add_node(g, name, "Reshape", {"y", "shape"}, {"r"});
  g->mutable_output(0)->set_name("r");
  return m;
}

TEST(OnnxImportErrors, ReshapeTargetComputedAtRunTime) {
  const auto m = reshaped_relu_model("/reshape");
  const std::string msg = import_error(m);
  EXPECT_NE(msg.find("node '/reshape' (#1, Reshape"), std::string::npos) << msg;
  EXPECT_NE(msg.find("must be known at import time"), std::string::npos) << msg;
}

std::unique_ptr<Program> import_with(const onnx::ModelProto& m, const OnnxImportOptions& options) {
  const std::string bytes = m.SerializeAsString();
  return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "model.onnx", options);
}

TensorData i64_data(std::vector<int64_t> shape, std::vector<int64_t> values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * 8);
  std::memcpy(bytes->data(), values.data(), bytes->size());
  return TensorData{TensorType::of(DType::Int64, shape), bytes};
}

// The same model with the shape input fixed at compile time
// (OnnxImportOptions::input_values, `edgec compile --fix-inputs`): the input
// becomes a constant and leaves the signature; a value of the wrong type or
// for a name that is not an input is an error naming it.
TEST(OnnxImport, FixedInputsBecomeConstants) {
  const auto m = reshaped_relu_model("");

  OnnxImportOptions options;
  options.input_values["shape"] = i64_data({2}, {3, 2});
  auto p = import_with(m, options);
  ASSERT_EQ(p->inputs.size(), 1u);
  EXPECT_EQ(p->inputs[0].target, "x");
  EXPECT_EQ(p->graph.output_node()->input(0)->type().str(), "f32[3, 2]");

  options.input_values["shape"] = i64_data({3}, {3, 2, 1});
  std::string msg = onnx_import_error(m.SerializeAsString(), "model.onnx", options);
  EXPECT_NE(msg.find("the value given for graph input 'shape' (--fix-inputs) is i64[3], but the input is i64[2]"),
            std::string::npos)
      << msg;
  options.input_values.clear();
  options.input_values["shpe"] = i64_data({2}, {3, 2});
  msg = onnx_import_error(m.SerializeAsString(), "model.onnx", options);
  EXPECT_NE(msg.find("'shpe', which is not a graph input"), std::string::npos) << msg;
}

// A Constant node feeding only a Reshape's shape becomes an attribute, not
// a placeholder; a Constant read by a computation becomes a constant input.
TEST(OnnxImport, ConstantNodes) {
  auto m = relu_model();
  auto* g = m.mutable_graph();
  auto constant = [&](const std::string& name, std::vector<int64_t> values) {
    auto* n = g->add_node();
    n->set_name(name);
    n->set_op_type("Constant");
    n->add_output(name + "_out");
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  };
  constant("shape", {3, 2});
  add_node(g, "", "Reshape", {"y", "shape_out"}, {"r"});
  g->mutable_output(0)->set_name("r");
  const std::string bytes = m.SerializeAsString();
  auto p = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "c.onnx");
  EXPECT_EQ(p->inputs.size(), 1u);
  EXPECT_EQ(p->graph.output_node()->input(0)->type().str(), "f32[3, 2]");
}

// ---- symbolic shapes, end to end -------------------------------------------------

/// A model built node by node, with f32 inputs whose dims may be names.
struct ModelBuilder {
  onnx::ModelProto m;
  onnx::GraphProto* g;
  ModelBuilder() : m(empty_onnx_model()), g(m.mutable_graph()) {}
  void input(const std::string& name, std::vector<std::string> dims, int elem = onnx::TensorProto::FLOAT) {
    auto* tt = g->add_input();
    tt->set_name(name);
    auto* t = tt->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem);
    for (const auto& d : dims) {
      auto* dim = t->mutable_shape()->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0]))) {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs) {
    return add_node(g, "/" + op + "_" + std::to_string(g->node_size() + 1), op, ins, outs);
  }
  void ints(const std::string& name, std::vector<int64_t> values, bool scalar = false) {
    auto* t = node("Constant", {}, {name})->add_attribute();
    t->set_name("value");
    t->set_type(onnx::AttributeProto::TENSOR);
    t->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->mutable_t()->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->mutable_t()->add_int64_data(v);
  }
  void output(const std::string& name) { g->add_output()->set_name(name); }
  std::unique_ptr<Program> import() {
    const std::string bytes = m.SerializeAsString();
    return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "built.onnx");
  }
};

void set_attr_float_tensor(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(v);
}

TensorData f32_data(std::vector<int64_t> shape, std::vector<float> values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * 4);
  std::memcpy(bytes->data(), values.data(), bytes->size());
  return TensorData{TensorType::of(DType::Float32, shape), bytes};
}

std::vector<double> run_edge(Program& p, std::map<std::string, TensorData> inputs, size_t output = 0) {
  for (const char* pass : {"to_edge", "constant_prop", "dce"}) find_pass(pass)->create("")->run(p);
  verify_or_throw(p);
  KernelContext ctx;
  return as_doubles(run_program(p, inputs, ctx).at(output));
}

// Range(0, n, 1) with n a symbolic size: built as the running sum of ones
// of that size, so the program runs for any n.
TEST(OnnxImportSymbolic, RangeOfSymbolicLength) {
  ModelBuilder b;
  b.input("x", {"n"});
  b.node("Shape", {"x"}, {"shape"});
  b.ints("zero", {0}, true);
  b.ints("one", {1}, true);
  b.node("Gather", {"shape", "zero"}, {"len"});
  b.node("Range", {"zero", "len", "one"}, {"r"});
  auto* cast = b.node("Cast", {"r"}, {"rf"});
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  b.node("Add", {"x", "rf"}, {"y"});
  b.output("y");
  auto p = b.import();
  EXPECT_EQ(p->graph.output_node()->input(0)->type().str(), "f32[n]");
  const auto y = run_edge(*p, {{"x", f32_data({5}, {10, 10, 10, 10, 10})}});
  EXPECT_EQ(y, (std::vector<double>{10, 11, 12, 13, 14}));
}

// ConstantOfShape and Expand with a symbolic target take the size from a
// tensor that has it; the result keeps the symbol.
TEST(OnnxImportSymbolic, ConstantOfShapeAndExpand) {
  ModelBuilder b;
  b.input("x", {"n", "1"});
  b.node("Shape", {"x"}, {"shape"});
  b.ints("zero", {0}, true);
  b.ints("axes", {0});
  b.ints("three", {3});
  b.node("Gather", {"shape", "zero"}, {"len"});
  b.node("Unsqueeze", {"len", "axes"}, {"len1"});
  auto* concat = b.node("Concat", {"len1", "three"}, {"target"});
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  set_attr_float_tensor(b.node("ConstantOfShape", {"target"}, {"twos"}), "value", 2.0f);
  b.node("Expand", {"x", "target"}, {"wide"});
  b.node("Mul", {"wide", "twos"}, {"y"});
  b.output("y");
  auto p = b.import();
  EXPECT_EQ(p->graph.output_node()->input(0)->type().str(), "f32[n, 3]");
  const auto y = run_edge(*p, {{"x", f32_data({2, 1}, {1, 5})}});
  EXPECT_EQ(y, (std::vector<double>{2, 2, 2, 10, 10, 10}));
}

// A shape value used as data is computed at run time.
TEST(OnnxImportSymbolic, ShapeUsedAsData) {
  ModelBuilder b;
  b.input("x", {"n", "3"});
  b.node("Shape", {"x"}, {"shape"});
  set_int_attr(b.node("Cast", {"shape"}, {"y"}), "to", onnx::TensorProto::FLOAT);
  b.output("y");
  auto p = b.import();
  const auto y = run_edge(*p, {{"x", f32_data({4, 3}, std::vector<float>(12, 0.0f))}});
  EXPECT_EQ(y, (std::vector<double>{4, 3}));
}

// Reshape to [n, m] from [n * m] leaves two sizes to run time: refused.
TEST(OnnxImportSymbolic, ReshapeWithTwoSymbolsIsRefused) {
  ModelBuilder b;
  b.input("x", {"n", "m"});
  b.ints("flat", {-1});
  b.node("Reshape", {"x", "flat"}, {"f"});
  b.node("Shape", {"x"}, {"shape"});
  b.node("Reshape", {"f", "shape"}, {"y"});
  b.output("y");
  try {
    b.import();
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("(#3, Reshape"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than one size is symbolic"), std::string::npos) << e.what();
  }
}

// Transpose(NonZero(x)) is NonZero's own [n, rank] layout: the permutes cancel.
TEST(OnnxImport, NonZeroTransposeCancels) {
  ModelBuilder b;
  b.input("x", {"4", "3"});
  b.node("NonZero", {"x"}, {"nz"});
  set_ints(b.node("Transpose", {"nz"}, {"y"}), "perm", {1, 0});
  b.output("y");
  auto p = b.import();
  EXPECT_EQ(count_ops(*p, "aten.permute.default"), 0);
  EXPECT_EQ(count_ops(*p, "aten.nonzero.default"), 1);
}

// A dim with neither a size nor a name is named INPUT_dimI: --dim, --max-dim
// and --shape / --max-shape (OnnxImportOptions::input_shapes) reach it.
TEST(OnnxImport, UnnamedInputDims) {
  auto m = relu_model();
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  const int rank = shape->dim_size();
  shape->mutable_dim(0)->Clear();
  shape->mutable_dim(1)->Clear();
  const auto input_type = [&](const OnnxImportOptions& o) {
    auto p = import_with(m, o);
    for (Node* n : p->graph.placeholders()) return n->result()->type().str();
    return std::string();
  };
  std::string dims_tail;
  for (int i = 2; i < rank; ++i) dims_tail += ", " + std::to_string(shape->dim(i).dim_value());
  EXPECT_EQ(input_type({}), "f32[x_dim0, x_dim1" + dims_tail + "]");
  OnnxImportOptions by_name;
  by_name.dim_sizes["x_dim0"] = 2;
  by_name.dim_bounds["x_dim1"] = 9;
  EXPECT_EQ(input_type(by_name), "f32[2, x_dim1<=9" + dims_tail + "]");
  OnnxImportOptions by_shape;
  std::vector<int64_t> sizes = {3, 5}, bounds = {7, 8};
  for (int i = 2; i < rank; ++i) {
    sizes.push_back(shape->dim(i).dim_value());
    bounds.push_back(shape->dim(i).dim_value());
  }
  by_shape.input_shapes["x"] = sizes;
  EXPECT_EQ(input_type(by_shape), "f32[3, 5" + dims_tail + "]");
  OnnxImportOptions by_max;
  by_max.input_max_shapes["x"] = bounds;
  EXPECT_EQ(input_type(by_max), "f32[x_dim0<=7, x_dim1<=8" + dims_tail + "]");
}

}  // namespace
}  // namespace edgec
