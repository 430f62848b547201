// ONNX If whose condition is known when compiling (ops_control.cpp): only
// the taken branch is imported, inline, and no `if` is left; and Loop whose
// trip count and condition are known, unrolled (0, 1 and 7 iterations, a
// condition that folds each iteration, the unrolling budget); and Scan of a
// known length, in each direction and along another output axis. Small models
// built here are compiled and run as `edgec compile` and `edgec run` do,
// against values written out by hand: a constant condition, one folded from
// a graph input fixed at compile time (--fix-inputs: a sample rate), a
// nested If, a branch with its own initializer reading the enclosing
// graph's values. And what is refused, with the node and branch named.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <functional>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "frontends/onnx/tensor_data.h"
#include "support/onnx_cases.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

using onnx::AttributeProto;
using onnx::TensorProto;
using onnx_import::data_as_doubles;
using onnx_import::make_data;

const char* kWhat = "control.onnx";

/// A scalar initializer of `elem` (float or int64) or bool.
void add_scalar(onnx::GraphProto* g, const std::string& name, double v, int elem) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  if (elem == TensorProto::FLOAT) t->add_float_data(static_cast<float>(v));
  else if (elem == TensorProto::BOOL) t->add_int32_data(v != 0);
  else t->add_int64_data(static_cast<int64_t>(v));
}

/// A branch graph computing out = OP(x, c) with its own initializer c = `c`.
onnx::GraphProto branch(const std::string& name, const std::string& op, double c, const std::string& out) {
  onnx::GraphProto g;
  g.set_name(name);
  add_scalar(&g, name + "_c", c, TensorProto::FLOAT);
  add_node(&g, name + "_node", op, {"x", name + "_c"}, {out});
  g.add_output()->set_name(out);
  return g;
}

onnx::NodeProto* add_if(onnx::GraphProto* g, const std::string& name, const std::string& cond, const std::string& out,
                        const onnx::GraphProto& then_branch, const onnx::GraphProto& else_branch) {
  auto* n = add_node(g, name, "If", {cond}, {out});
  set_graph_attr(n, "then_branch", then_branch);
  set_graph_attr(n, "else_branch", else_branch);
  return n;
}

/// x: f32[3]; y = If(COND) then x + 1 else x * 2, where COND is built by
/// `make_cond` (it adds what it needs and returns the condition's name).
template <typename MakeCond>
onnx::ModelProto if_model(MakeCond make_cond) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  const std::string cond = make_cond(g);
  add_if(g, "if0", cond, "y", branch("then", "Add", 1, "t_out"), branch("else", "Mul", 2, "e_out"));
  g->add_output()->set_name("y");
  return m;
}

std::unique_ptr<Program> import_model(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  const std::string bytes = m.SerializeAsString();
  return import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat, options);
}

/// The imported program's operators, in order.
std::vector<std::string> ops_of(const Program& p) {
  std::vector<std::string> ops;
  for (const Node* n : p.graph.calls()) ops.push_back(n->op());
  return ops;
}

std::vector<double> run(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  auto program = import_model(m, options);
  lower_program(*program);
  const auto file = serialize_program(*program);
  std::map<std::string, TensorData> inputs = {{"x", make_data(DType::Float32, {3}, {1, 2, 3})}};
  const auto outs = onnx_cases::run_file(file, inputs);
  return data_as_doubles(outs.at(0));
}

std::string refusal(const onnx::ModelProto& m, const OnnxImportOptions& options = {}) {
  try {
    import_model(m, options);
  } catch (const onnx_import::ImportRefusal& e) {
    return e.what();
  }
  return "(imported)";
}

TEST(OnnxIf, AConstantConditionImportsOnlyTheTakenBranch) {
  for (const bool c : {true, false}) {
    const auto m = if_model([&](onnx::GraphProto* g) {
      add_scalar(g, "cond", c, TensorProto::BOOL);
      return std::string("cond");
    });
    const auto program = import_model(m);
    EXPECT_EQ(ops_of(*program), std::vector<std::string>{c ? "aten.add.Tensor" : "aten.mul.Tensor"}) << c;
    EXPECT_EQ(run(m), (c ? std::vector<double>{2, 3, 4} : std::vector<double>{2, 4, 6}));
  }
}

// The voice-activity case: If (sr == 16000) on a sample-rate input that
// --fix-inputs fixes; the comparison folds, the branch is chosen.
TEST(OnnxIf, AConditionFromAFixedInputFolds) {
  const auto m = if_model([](onnx::GraphProto* g) {
    add_input(g, "sr", {}, TensorProto::INT64);
    add_scalar(g, "rate16k", 16000, TensorProto::INT64);
    add_node(g, "eq", "Equal", {"sr", "rate16k"}, {"is16k"});
    return std::string("is16k");
  });
  for (const int64_t rate : {16000, 8000}) {
    OnnxImportOptions options;
    options.input_values["sr"] = make_data(DType::Int64, {}, {static_cast<double>(rate)});
    const auto program = import_model(m, options);
    EXPECT_EQ(ops_of(*program), std::vector<std::string>{rate == 16000 ? "aten.add.Tensor" : "aten.mul.Tensor"}) << rate;
    EXPECT_EQ(run(m, options), (rate == 16000 ? std::vector<double>{2, 3, 4} : std::vector<double>{2, 4, 6}));
  }
  // Not fixed: the If runs when the program runs, as a cond with both
  // branches, and each rate takes its branch.
  const auto program = import_model(m);
  EXPECT_EQ(ops_of(*program), (std::vector<std::string>{"aten.eq.Tensor", "cond"}));
  for (const int64_t rate : {16000, 8000}) {
    auto lowered = import_model(m);
    lower_program(*lowered);
    std::map<std::string, TensorData> inputs = {{"x", make_data(DType::Float32, {3}, {1, 2, 3})},
                                                {"sr", make_data(DType::Int64, {}, {static_cast<double>(rate)})}};
    const auto outs = onnx_cases::run_file(serialize_program(*lowered), inputs);
    EXPECT_EQ(data_as_doubles(outs.at(0)), (rate == 16000 ? std::vector<double>{2, 3, 4} : std::vector<double>{2, 4, 6}))
        << rate;
  }
}

// An If in a branch, and a branch reading a value of the enclosing graph
// computed before the If (x2 = x * x).
TEST(OnnxIf, NestedIfsReadTheEnclosingValues) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  add_node(g, "sq", "Mul", {"x", "x"}, {"x2"});
  add_scalar(g, "yes", 1, TensorProto::BOOL);
  add_scalar(g, "no", 0, TensorProto::BOOL);
  onnx::GraphProto inner_else;
  inner_else.set_name("inner_else");
  add_node(&inner_else, "sub", "Sub", {"x2", "x"}, {"ie_out"});
  inner_else.add_output()->set_name("ie_out");
  onnx::GraphProto outer_then;
  outer_then.set_name("outer_then");
  add_if(&outer_then, "if_inner", "no", "inner_out", branch("inner_then", "Add", 100, "it_out"), inner_else);
  outer_then.add_output()->set_name("inner_out");
  add_if(g, "if_outer", "yes", "y", outer_then, branch("outer_else", "Mul", 0, "oe_out"));
  g->add_output()->set_name("y");
  EXPECT_EQ(ops_of(*import_model(m)), (std::vector<std::string>{"aten.mul.Tensor", "aten.sub.Tensor"}));
  EXPECT_EQ(run(m), (std::vector<double>{0, 2, 6}));  // x*x - x
}

TEST(OnnxIf, RefusesBranchesThatDoNotFit) {
  const auto with_cond = [](onnx::GraphProto* g) {
    add_scalar(g, "cond", 1, TensorProto::BOOL);
    return std::string("cond");
  };
  {
    // Two outputs in the branch, one on the node.
    auto m = if_model(with_cond);
    auto* then_g = m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
    then_g->add_output()->set_name("x");
    const std::string why = refusal(m);
    EXPECT_NE(why.find("attribute 'then_branch' (the branch the condition takes) has 2 outputs; expected 1"),
              std::string::npos)
        << why;
  }
  {
    // A branch node redefining a name of the enclosing graph.
    auto m = if_model(with_cond);
    auto* then_g = m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
    then_g->mutable_node(0)->set_output(0, "cond");
    then_g->mutable_output(0)->set_name("cond");
    const std::string why = refusal(m);
    EXPECT_NE(why.find("control.onnx: node 'if0' (#0, If, domain ai.onnx, opset 17): then_branch: node 'then_node' "
                       "(#0, Add, domain ai.onnx, opset 17): output 'cond' has the name of a value of the "
                       "enclosing graph"),
              std::string::npos)
        << why;
  }
  {
    // An operator edgec does not import, inside the branch: named with it.
    auto m = if_model(with_cond);
    m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_node(0)->set_op_type("Foo");
    const std::string why = refusal(m);
    EXPECT_NE(why.find("node 'if0' (#0, If, domain ai.onnx, opset 17): then_branch: node 'then_node' (#0, Foo, "
                       "domain ai.onnx, opset 17): operator Foo is not supported"),
              std::string::npos)
        << why;
  }
  {
    // A branch initializer of an enclosing name.
    auto m = if_model(with_cond);
    auto* then_g = m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g();
    then_g->mutable_initializer(0)->set_name("x");
    const std::string why = refusal(m);
    EXPECT_NE(why.find("then_branch: initializer 'x' has the name of a value of the enclosing graph"),
              std::string::npos)
        << why;
  }
}

// ---- Loop ----------------------------------------------------------------------------

/// x: f32[3]; y, scan = Loop(trips, cond, y0 = x) with body
/// (i, c, v) -> (c_out, v + x * i, v): the carried value gains x times the
/// iteration number, the scan output stacks the value each iteration saw.
/// `trips` < 0 leaves the trip count out; `cond_out` names the body's
/// condition output (default: the condition passed through).
onnx::ModelProto loop_model(int64_t trips, bool with_scan = true,
                            const std::function<std::string(onnx::GraphProto*)>& cond_out = {}) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "x", {3});
  if (trips >= 0) add_scalar(g, "trips", static_cast<double>(trips), TensorProto::INT64);
  add_scalar(g, "go", 1, TensorProto::BOOL);
  onnx::GraphProto body;
  body.set_name("body");
  add_input(&body, "i", {}, TensorProto::INT64);
  add_input(&body, "c", {}, TensorProto::BOOL);
  add_input(&body, "v", {3});
  set_int_attr(add_node(&body, "to_float", "Cast", {"i"}, {"i_f"}), "to", TensorProto::FLOAT);
  add_node(&body, "times", "Mul", {"x", "i_f"}, {"xi"});
  add_node(&body, "next", "Add", {"v", "xi"}, {"v_out"});
  add_node(&body, "seen", "Identity", {"v"}, {"v_seen"});
  body.add_output()->set_name(cond_out ? cond_out(&body) : "c");
  body.add_output()->set_name("v_out");
  if (with_scan) body.add_output()->set_name("v_seen");
  std::vector<std::string> outs = {"y"};
  if (with_scan) outs.push_back("scan");
  set_graph_attr(add_node(g, "loop0", "Loop", {trips >= 0 ? "trips" : "", "go", "x"}, outs), "body", body);
  for (const auto& o : outs) g->add_output()->set_name(o);
  return m;
}

std::vector<std::vector<double>> run_all(const onnx::ModelProto& m) {
  auto program = import_model(m);
  lower_program(*program);
  const auto file = serialize_program(*program);
  std::map<std::string, TensorData> inputs = {{"x", make_data(DType::Float32, {3}, {1, 2, 3})}};
  std::vector<std::vector<double>> out;
  for (const auto& t : onnx_cases::run_file(file, inputs)) out.push_back(data_as_doubles(t));
  return out;
}

// v_k = x * (1 + 0 + 1 + ... + (k-1)); the scan holds v_0 .. v_{n-1}.
TEST(OnnxLoop, AKnownTripCountUnrolls) {
  for (const int64_t trips : {1, 7}) {
    const auto out = run_all(loop_model(trips));
    const double total = 1 + static_cast<double>(trips * (trips - 1) / 2);
    EXPECT_EQ(out.at(0), (std::vector<double>{total, 2 * total, 3 * total})) << trips;
    std::vector<double> scan;
    for (int64_t k = 0; k < trips; ++k) {
      const double f = 1 + static_cast<double>(k * (k - 1) / 2);
      scan.insert(scan.end(), {f, 2 * f, 3 * f});
    }
    EXPECT_EQ(out.at(1), scan) << trips;
  }
  // No iteration: the carried value is the initial one.
  EXPECT_EQ(run_all(loop_model(0, false)).at(0), (std::vector<double>{1, 2, 3}));
  // Unrolled: the body's add once per iteration (the casts of the iteration
  // number fold).
  const auto program = import_model(loop_model(3));
  const std::vector<std::string> ops = ops_of(*program);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "aten.add.Tensor"), 3);
}

// No trip count: the body's condition (i + 1 < 3) ends it after 3 iterations.
TEST(OnnxLoop, AConditionThatFoldsEndsIt) {
  const auto m = loop_model(-1, true, [](onnx::GraphProto* b) {
    add_scalar(b, "one", 1, TensorProto::INT64);
    add_scalar(b, "three", 3, TensorProto::INT64);
    add_node(b, "inc", "Add", {"i", "one"}, {"i1"});
    add_node(b, "more", "Less", {"i1", "three"}, {"c_out"});
    return std::string("c_out");
  });
  const auto out = run_all(m);
  EXPECT_EQ(out.at(0), (std::vector<double>{4, 8, 12}));  // 1 + 0 + 1 + 2
  EXPECT_EQ(out.at(1).size(), 9u);
}

// A Loop past the unrolling budget, or whose condition the body computes
// from data, runs when the program runs: one `loop` call, the same results.
TEST(OnnxLoop, WhatItCannotUnrollRunsAtRunTime) {
  // 3000 iterations of a 4-node body: past the 10,000 nodes unrolled.
  const auto long_loop = loop_model(3000);
  EXPECT_EQ(ops_of(*import_model(long_loop)), std::vector<std::string>{"loop"});
  const double total = 1 + 3000.0 * 2999.0 / 2;  // exact in f32: below 2^24 with x <= 3
  const auto out = run_all(long_loop);
  EXPECT_EQ(out.at(0), (std::vector<double>{total, 2 * total, 3 * total}));
  EXPECT_EQ(out.at(1).size(), 3000u * 3u);
  EXPECT_EQ(out.at(1)[3 * 2999], 1 + 2999.0 * 2998.0 / 2);  // row t holds v_t
  // A condition the body computes from data (the sum stays positive): all
  // five iterations run.
  const auto data_cond = loop_model(5, true, [](onnx::GraphProto* b) {
    add_scalar(b, "zero", 0, TensorProto::FLOAT);
    add_node(b, "pick", "ReduceSum", {"v_out"}, {"s"});
    add_node(b, "pos", "Greater", {"s", "zero"}, {"c_out"});
    return std::string("c_out");
  });
  const std::vector<std::string> ops = ops_of(*import_model(data_cond));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "loop"), 1) << ops.size();
  EXPECT_EQ(run_all(data_cond).at(0), (std::vector<double>{11, 22, 33}));
}

// Scan outputs of a trip count given when the program runs: their rows are
// a symbol of their own, NAME_rows, which --max-dim bounds; a loop that
// runs past the bound fails cleanly.
TEST(OnnxLoop, ScanOutputsOfARunTimeTripCountAreBoundedByTheirRowsSymbol) {
  onnx::ModelProto m = loop_model(4);
  auto* inits = m.mutable_graph()->mutable_initializer();
  for (int i = 0; i < inits->size(); ++i)
    if (inits->Get(i).name() == "trips") inits->DeleteSubrange(i, 1);
  add_input(m.mutable_graph(), "trips", {}, TensorProto::INT64);
  // Unbounded: refused at import, where the scan output is read (a graph
  // output here), naming the symbol and the flag.
  try {
    import_model(m);
    ADD_FAILURE() << "imported unbounded rows";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("is computed at run time from graph input 'trips'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-dim loop0_rows=MAX"), std::string::npos) << e.what();
  }
  OnnxImportOptions options;
  options.dim_bounds["loop0_rows"] = 8;
  auto program = import_model(m, options);
  lower_program(*program);
  const auto file = serialize_program(*program);
  for (const int64_t trips : {0, 4, 9}) {
    std::map<std::string, TensorData> inputs = {{"x", make_data(DType::Float32, {3}, {1, 2, 3})},
                                                {"trips", make_data(DType::Int64, {}, {static_cast<double>(trips)})}};
    if (trips > 8) {
      EXPECT_THROW(onnx_cases::run_file(file, inputs), CompileError) << "ran past the bound";
      continue;
    }
    const auto outs = onnx_cases::run_file(file, inputs);
    const double total = 1 + static_cast<double>(trips * (trips - 1) / 2);
    EXPECT_EQ(data_as_doubles(outs.at(0)), (std::vector<double>{total, 2 * total, 3 * total})) << trips;
    EXPECT_EQ(outs.at(1).type.dims[0].value, trips);
  }
}

// ---- Scan ----------------------------------------------------------------------------

/// Scan(init f32[2], xs f32[3, 2]) with body (s, e) -> (s + e, s + e): the
/// running sum of xs' rows and each partial sum, with the given attributes.
std::vector<std::vector<double>> run_scan(const std::vector<int64_t>& in_dirs, const std::vector<int64_t>& out_axes,
                                          const std::vector<int64_t>& out_dirs) {
  onnx::ModelProto m = empty_onnx_model();
  auto* g = m.mutable_graph();
  add_input(g, "init", {2});
  add_input(g, "xs", {3, 2});
  onnx::GraphProto body;
  body.set_name("body");
  add_input(&body, "s", {2});
  add_input(&body, "e", {2});
  add_node(&body, "sum", "Add", {"s", "e"}, {"s_out"});
  add_node(&body, "seen", "Identity", {"s_out"}, {"y_out"});
  body.add_output()->set_name("s_out");
  body.add_output()->set_name("y_out");
  auto* n = add_node(g, "scan0", "Scan", {"init", "xs"}, {"final", "ys"});
  set_graph_attr(n, "body", body);
  set_int_attr(n, "num_scan_inputs", 1);
  set_ints(n, "scan_input_directions", in_dirs);
  set_ints(n, "scan_output_axes", out_axes);
  set_ints(n, "scan_output_directions", out_dirs);
  g->add_output()->set_name("final");
  g->add_output()->set_name("ys");
  auto program = import_model(m);
  lower_program(*program);
  const auto file = serialize_program(*program);
  std::map<std::string, TensorData> inputs = {{"init", make_data(DType::Float32, {2}, {0, 0})},
                                              {"xs", make_data(DType::Float32, {3, 2}, {1, 2, 3, 4, 5, 6})}};
  std::vector<std::vector<double>> out;
  for (const auto& t : onnx_cases::run_file(file, inputs)) out.push_back(data_as_doubles(t));
  return out;
}

TEST(OnnxScan, UnrollsOverAKnownLength) {
  // Forward: partial sums [1, 2], [4, 6], [9, 12], stacked on dim 0.
  auto out = run_scan({0}, {0}, {0});
  EXPECT_EQ(out.at(0), (std::vector<double>{9, 12}));
  EXPECT_EQ(out.at(1), (std::vector<double>{1, 2, 4, 6, 9, 12}));
  // xs read from the end: [5, 6], [8, 10], [9, 12], stacked on dim 1
  // ([2, 3]), and again in reverse order.
  out = run_scan({1}, {1}, {0});
  EXPECT_EQ(out.at(1), (std::vector<double>{5, 8, 9, 6, 10, 12}));
  out = run_scan({1}, {1}, {1});
  EXPECT_EQ(out.at(1), (std::vector<double>{9, 8, 5, 12, 10, 6}));
}

}  // namespace
}  // namespace edgec
