// Nodes in any order (importer.cpp, import_order): ONNX requires a graph's
// nodes in topological order, but ONNX Runtime sorts them, and converters
// write unsorted files (onnxconverter_common's float16 conversion appends
// the input Casts at the end). The importer imports each graph, and each
// If/Loop subgraph, in topological order, keeping the file's order among
// nodes ready at once, and names nodes by their index in the file. Small
// models built here are compiled and run as `edgec compile` and `edgec run`
// do, sorted and unsorted, against values worked out by hand; a cycle is
// refused, node by node.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "frontends/onnx/tensor_data.h"
#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

const char* kWhat = "order.onnx";

std::unique_ptr<Program> import_model(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat);
}

/// Compiles and runs `m` on x = {1, -2, 3, 0.5} (and `extra` inputs): every
/// output, as doubles.
std::vector<std::vector<double>> run(const onnx::ModelProto& m, std::map<std::string, TensorData> extra = {}) {
  auto program = import_model(m);
  lower_program(*program);
  const auto file = serialize_program(*program);
  extra["x"] = make_data(DType::Float32, {4}, {1, -2, 3, 0.5});
  std::vector<std::vector<double>> out;
  for (const auto& t : onnx_cases::run_file(file, extra)) out.push_back(data_as_doubles(t));
  return out;
}

/// The imported program's operators, in order.
std::vector<std::string> ops_of(const Program& p) {
  std::vector<std::string> ops;
  for (const Node* n : p.graph.calls()) ops.push_back(n->op());
  return ops;
}

std::string refusal(const onnx::ModelProto& m) {
  try {
    import_model(m);
  } catch (const onnx_import::ImportRefusal& e) {
    return e.what();
  }
  return "(imported)";
}

/// `g`'s nodes in the order `order` gives (indices into the current list).
void reorder(onnx::GraphProto* g, const std::vector<int>& order) {
  std::vector<onnx::NodeProto> nodes(g->node().begin(), g->node().end());
  g->clear_node();
  for (int i : order) *g->add_node() = nodes[static_cast<size_t>(i)];
}

void reverse_nodes(onnx::GraphProto* g) {
  std::vector<int> order(static_cast<size_t>(g->node_size()));
  for (int i = 0; i < g->node_size(); ++i) order[static_cast<size_t>(i)] = g->node_size() - 1 - i;
  reorder(g, order);
}

/// A float16 initializer [4].
void add_f16(onnx::GraphProto* g, const std::string& name, const std::vector<float>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT16);
  t->add_dims(static_cast<int64_t>(values.size()));
  // Halves of the values below are exact: sign, exponent, 10-bit fraction.
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    const uint32_t sign = (bits >> 16) & 0x8000u, exp = (bits >> 23) & 0xffu, frac = bits & 0x7fffffu;
    t->add_int32_data(static_cast<int32_t>(v == 0 ? sign : sign | ((exp - 112u) << 10) | (frac >> 13)));
  }
}

/// What onnxconverter_common makes of a float model: x: f32[4] is cast to
/// float16, y = cast_back(relu(x16 * w) + x16) and z = -x in float32.
/// Listed sorted: to16, mul, relu, add, to32, neg.
onnx::ModelProto half_model() {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {4});
  add_f16(g, "w", {0.5f, 2.f, -1.f, 3.f});
  set_int_attr(add_node(g, "to16", "Cast", {"x"}, {"x16"}), "to", TensorProto::FLOAT16);
  add_node(g, "mul", "Mul", {"x16", "w"}, {"m"});
  add_node(g, "relu", "Relu", {"m"}, {"r"});
  add_node(g, "add", "Add", {"r", "x16"}, {"a"});
  set_int_attr(add_node(g, "to32", "Cast", {"a"}, {"y"}), "to", TensorProto::FLOAT);
  add_node(g, "neg", "Neg", {"x"}, {"z"});
  g->add_output()->set_name("y");
  g->add_output()->set_name("z");
  return m;
}

// x * w = {0.5, -4, -3, 1.5}; relu: {0.5, 0, 0, 1.5}; + x: {1.5, -2, 3, 2}
// (all exact in float16).
const std::vector<std::vector<double>> kHalfModelOutputs = {{1.5, -2, 3, 2}, {-1, 2, -3, -0.5}};

TEST(OnnxNodeOrder, ReversedNodesCompileAndMatch) {
  const auto sorted = half_model();
  EXPECT_EQ(run(sorted), kHalfModelOutputs);
  auto reversed = sorted;
  reverse_nodes(reversed.mutable_graph());
  EXPECT_EQ(reversed.graph().node(0).name(), "neg");
  EXPECT_EQ(run(reversed), kHalfModelOutputs);
  EXPECT_EQ(run(reversed), run(sorted));
}

// The converter's order: the input Cast appended after the nodes reading
// it. It is imported first, the others in the file's order.
TEST(OnnxNodeOrder, AppendedCastsImportFirstAndTheRestInFileOrder) {
  auto m = half_model();
  reorder(m.mutable_graph(), {1, 2, 3, 4, 5, 0});  // mul, relu, add, to32, neg, to16
  EXPECT_EQ(run(m), kHalfModelOutputs);
  // neg reads only x: ready at once, it keeps its place before to16 (the
  // smallest ready index first).
  EXPECT_EQ(ops_of(*import_model(m)),
            (std::vector<std::string>{"aten.neg.default", "aten.cast.default", "aten.mul.Tensor",
                                      "aten.relu.default", "aten.add.Tensor", "aten.cast.default"}));
}

// A sorted graph imports in its own order, whichever of the valid orders
// the file has.
TEST(OnnxNodeOrder, SortedGraphsKeepTheirOrder) {
  const auto a = onnx_graph({4}, {{"n", "Neg", {"x"}, {"p"}}, {"r", "Relu", {"x"}, {"q"}}}, {"p", "q"});
  const auto b = onnx_graph({4}, {{"r", "Relu", {"x"}, {"q"}}, {"n", "Neg", {"x"}, {"p"}}}, {"p", "q"});
  EXPECT_EQ(ops_of(*import_model(a)), (std::vector<std::string>{"aten.neg.default", "aten.relu.default"}));
  EXPECT_EQ(ops_of(*import_model(b)), (std::vector<std::string>{"aten.relu.default", "aten.neg.default"}));
}

// Messages name a node by its index in the file, whatever the order it is
// imported in.
TEST(OnnxNodeOrder, MessagesNameTheFileIndex) {
  // #0 multiplies f32[4] by f32[3, 5] (refused by the operator table); #1
  // makes its operand and is imported first.
  auto m = onnx_graph({4}, {{"bad", "MatMul", {"p", "w"}, {"y"}}, {"first", "Relu", {"x"}, {"p"}}}, {"y"});
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(5);
  for (int i = 0; i < 15; ++i) w->add_float_data(1.f);
  const std::string why = refusal(m);
  EXPECT_NE(why.find("order.onnx: node 'bad' (#0, MatMul, domain ai.onnx, opset 17)"), std::string::npos) << why;
}

/// A float scalar initializer.
void add_scalar(onnx::GraphProto* g, const std::string& name, float v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  t->add_float_data(v);
}

// An If whose condition is known at run time only (a graph input), each
// branch's nodes reversed, and the branches reading a value of the
// enclosing graph that a node listed after the If computes.
TEST(OnnxNodeOrder, SubgraphsAreSortedAndMayReadLaterNodes) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {4});
  add_input(g, "c", {}, TensorProto::BOOL);
  // then: (h + 1) * 2 ; else: (h - 1) * 3, nodes listed last first.
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_scalar(&then_g, "one", 1.f);
  add_scalar(&then_g, "two", 2.f);
  add_node(&then_g, "t_mul", "Mul", {"t_sum", "two"}, {"t_out"});
  add_node(&then_g, "t_add", "Add", {"h", "one"}, {"t_sum"});
  then_g.add_output()->set_name("t_out");
  else_g.set_name("else");
  add_scalar(&else_g, "e_one", 1.f);
  add_scalar(&else_g, "three", 3.f);
  add_node(&else_g, "e_mul", "Mul", {"e_diff", "three"}, {"e_out"});
  add_node(&else_g, "e_sub", "Sub", {"h", "e_one"}, {"e_diff"});
  else_g.add_output()->set_name("e_out");
  auto* node = add_node(g, "if0", "If", {"c"}, {"y"});
  set_graph_attr(node, "then_branch", then_g);
  set_graph_attr(node, "else_branch", else_g);
  add_node(g, "h", "Abs", {"x"}, {"h"});  // after the If that reads it
  g->add_output()->set_name("y");
  // |x| = {1, 2, 3, 0.5}
  const auto bool_of = [](bool v) { return make_data(DType::Bool, {}, {v ? 1.0 : 0.0}); };
  EXPECT_EQ(run(m, {{"c", bool_of(true)}}), (std::vector<std::vector<double>>{{4, 6, 8, 3}}));
  EXPECT_EQ(run(m, {{"c", bool_of(false)}}), (std::vector<std::vector<double>>{{0, 3, 6, -1.5}}));
}

// A Loop of a known trip count (unrolled) whose body lists its nodes last
// first: v <- (v + x) * 2, three times from v = x: 22 x.
TEST(OnnxNodeOrder, LoopBodyInAnyOrder) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {4});
  auto* trips = g->add_initializer();
  trips->set_name("trips");
  trips->set_data_type(TensorProto::INT64);
  trips->add_int64_data(3);
  auto* go = g->add_initializer();
  go->set_name("go");
  go->set_data_type(TensorProto::BOOL);
  go->add_int32_data(1);
  onnx::GraphProto body;
  body.set_name("body");
  add_input(&body, "i", {}, TensorProto::INT64);
  add_input(&body, "c", {}, TensorProto::BOOL);
  add_input(&body, "v", {4});
  add_scalar(&body, "two", 2.f);
  add_node(&body, "keep", "Identity", {"c"}, {"c_out"});
  add_node(&body, "double", "Mul", {"s", "two"}, {"v_out"});
  add_node(&body, "plus_x", "Add", {"v", "x"}, {"s"});
  body.add_output()->set_name("c_out");
  body.add_output()->set_name("v_out");
  set_graph_attr(add_node(g, "loop0", "Loop", {"trips", "go", "x"}, {"y"}), "body", body);
  g->add_output()->set_name("y");
  EXPECT_EQ(run(m), (std::vector<std::vector<double>>{{22, -44, 66, 11}}));
}

// ---- cycles ------------------------------------------------------------------------

// A cycle after a node that is fine, and a node downstream of it: the
// cycle is named from its first node in the file, in the direction values
// flow, with the file's indices.
TEST(OnnxNodeOrder, ACycleIsRefusedNamingItsNodes) {
  const auto m = onnx_graph({4},
                            {{"ok", "Relu", {"x"}, {"p"}},
                             {"after", "Neg", {"d"}, {"e"}},
                             {"C", "Add", {"p", "d"}, {"c"}},
                             {"D", "Neg", {"c"}, {"d"}}},
                            {"e"});
  const std::string why = refusal(m);
  EXPECT_NE(why.find("order.onnx: node 'C' (#2, Add, domain ai.onnx, opset 17): input 1 'B' (value 'd') is produced "
                     "by node 'D' (#3), which reads this node's outputs; the graph has a cycle: node 'C' (#2) -> 'c' "
                     "-> node 'D' (#3) -> 'd' -> node 'C' (#2)"),
            std::string::npos)
      << why;
}

// A cycle through a subgraph: the If's branch reads what a node reading
// the If's output computes.
TEST(OnnxNodeOrder, ACycleThroughASubgraphIsRefused) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {4});
  add_input(g, "c", {}, TensorProto::BOOL);
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_node(&then_g, "t", "Neg", {"b"}, {"t_out"});
  then_g.add_output()->set_name("t_out");
  else_g.set_name("else");
  add_node(&else_g, "e", "Relu", {"x"}, {"e_out"});
  else_g.add_output()->set_name("e_out");
  auto* node = add_node(g, "A", "If", {"c"}, {"a"});
  set_graph_attr(node, "then_branch", then_g);
  set_graph_attr(node, "else_branch", else_g);
  add_node(g, "B", "Abs", {"a"}, {"b"});
  g->add_output()->set_name("b");
  const std::string why = refusal(m);
  EXPECT_NE(why.find("order.onnx: node 'A' (#0, If, domain ai.onnx, opset 17): a subgraph of the node reads 'b', "
                     "which is produced by node 'B' (#1), which reads this node's outputs; the graph has a cycle: "
                     "node 'A' (#0) -> 'a' -> node 'B' (#1) -> 'b' -> node 'A' (#0)"),
            std::string::npos)
      << why;
}

// A cycle inside a branch: named with the branch and the enclosing node.
TEST(OnnxNodeOrder, ACycleInsideASubgraphNamesTheBranch) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {4});
  add_input(g, "c", {}, TensorProto::BOOL);
  onnx::GraphProto then_g, else_g;
  then_g.set_name("then");
  add_node(&then_g, "p", "Add", {"x", "q_out"}, {"p_out"});
  add_node(&then_g, "q", "Neg", {"p_out"}, {"q_out"});
  then_g.add_output()->set_name("q_out");
  else_g.set_name("else");
  add_node(&else_g, "e", "Relu", {"x"}, {"e_out"});
  else_g.add_output()->set_name("e_out");
  auto* node = add_node(g, "if0", "If", {"c"}, {"y"});
  set_graph_attr(node, "then_branch", then_g);
  set_graph_attr(node, "else_branch", else_g);
  g->add_output()->set_name("y");
  const std::string why = refusal(m);
  EXPECT_NE(why.find("order.onnx: node 'if0' (#0, If, domain ai.onnx, opset 17): then_branch: node 'p' (#0, Add, "
                     "domain ai.onnx, opset 17): input 1 'B' (value 'q_out') is produced by node 'q' (#1), which "
                     "reads this node's outputs; the graph has a cycle: node 'p' (#0) -> 'p_out' -> node 'q' (#1) -> "
                     "'q_out' -> node 'p' (#0)"),
            std::string::npos)
      << why;
}

}  // namespace
}  // namespace edgec
