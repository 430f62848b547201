// ONNX Einsum, LpNormalization, LpPool, GlobalLpPool, MeanVarianceNormalization, DepthToSpace
// and SpaceToDepth, which the importer composes of existing operators
// (ops_einsum.cpp, ops_index.cpp, ops_shape.cpp), imported and run in the
// interpreter against references edgec does not compute: ONNX's own node
// test data (Einsum's is in double, read here as float), a brute-force
// einsum over every assignment of the labels, the ONNX definitions'
// formulas evaluated element by element in double. And what each refuses,
// with messages naming the node, the attribute or input, what is expected
// and what was found.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "frontends/onnx/tensor_data.h"
#include "interpreter/interpreter.h"
#include "passes/pipeline.h"
#include "support/compare.h"
#include "support/onnx_model.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;
using onnx::AttributeProto;
using onnx::TensorProto;
using onnx_import::make_data;

const char* kWhat = "new_ops.onnx";

// ---- building and running models -----------------------------------------------------

/// A model of one node '/t' of type `op`: inputs x0, x1, ... (ONNX element
/// type `elem`; a dim "n" is the dim_param n, a number a size), output y.
struct NodeModel {
  onnx::ModelProto proto = empty_onnx_model();
  onnx::NodeProto* node = nullptr;

  NodeModel(const std::string& op, const std::vector<std::vector<std::string>>& inputs,
            int elem = TensorProto::FLOAT) {
    auto* g = proto.mutable_graph();
    std::vector<std::string> names;
    for (size_t i = 0; i < inputs.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      auto* t = g->add_input();
      t->set_name(names.back());
      auto* tt = t->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(elem);
      tt->mutable_shape();
      for (const std::string& d : inputs[i]) {
        auto* dim = tt->mutable_shape()->add_dim();
        if (std::isdigit(static_cast<unsigned char>(d[0]))) {
          dim->set_dim_value(std::stoll(d));
        } else {
          dim->set_dim_param(d);
        }
      }
    }
    node = add_node(g, "/t", op, names, {"y"});
    g->add_output()->set_name("y");
  }
  NodeModel& attr(const std::string& name, const std::string& v) {
    auto* a = node->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::STRING);
    a->set_s(v);
    return *this;
  }
  NodeModel& attr(const std::string& name, int64_t v) {
    set_int_attr(node, name, v);
    return *this;
  }
  NodeModel& attr(const std::string& name, const std::vector<int64_t>& v) {
    set_ints(node, name, v);
    return *this;
  }
  std::string bytes() const { return proto.SerializeAsString(); }
};

std::vector<std::string> dims_of(const std::vector<int64_t>& shape) {
  std::vector<std::string> out;
  for (int64_t d : shape) out.push_back(std::to_string(d));
  return out;
}

/// Imports `bytes`, runs to_edge, constant_prop and dce, and runs the
/// program in the interpreter on x0, x1, ...
std::vector<TensorData> import_and_run(const std::string& bytes, const std::vector<TensorData>& inputs) {
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat);
  optimize_program(*program);
  std::map<std::string, TensorData> named;
  for (size_t i = 0; i < inputs.size(); ++i) named["x" + std::to_string(i)] = inputs[i];
  KernelContext ctx;
  return run_program(*program, named, ctx);
}

/// `count` values in [lo, hi), the same on every run.
std::vector<double> random_values(size_t count, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(count);
  for (double& x : v) x = dist(gen);
  return v;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// `got` has `shape` and the values `want` (floats within `tol`, integers
/// and booleans exactly).
::testing::AssertionResult matches(const TensorData& got, const std::vector<int64_t>& shape,
                                   const std::vector<double>& want, compare::Tolerance tol) {
  const TensorData expected = make_data(got.type.dtype, shape, want);
  auto view = [](const TensorData& d) {
    return compare::ArrayView{d.type.dtype, d.type.static_shape(), d.bytes ? d.bytes->data() : nullptr,
                              d.bytes ? d.bytes->size() : 0};
  };
  return compare::arrays_match("y", view(got), view(expected), tol);
}

const compare::Tolerance kF32 = compare::Tolerance::either(1e-5, 1e-5);
const compare::Tolerance kF16 = compare::Tolerance::either(2e-3, 4e-3);

/// The importer's refusal of `bytes`, or a note that there was none (or
/// that it was no refusal).
std::string refusal_of(const std::string& bytes) {
  try {
    import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat);
  } catch (const onnx_import::ImportRefusal& e) {
    return e.what();
  } catch (const CompileError& e) {
    return std::string("(not a refusal) ") + e.what();
  }
  return "(no error)";
}

/// A refusal of node '/t' of type `op` (opset 17) holding each of `parts`.
void expect_refused(const NodeModel& m, const std::string& op, const std::vector<std::string>& parts) {
  const std::string message = refusal_of(m.bytes());
  EXPECT_NE(message.find(std::string(kWhat) + ": node '/t' (#0, " + op + ", domain ai.onnx, opset 17)"),
            std::string::npos)
      << message;
  for (const std::string& p : parts) EXPECT_NE(message.find(p), std::string::npos) << message;
}

// ---- Einsum ----------------------------------------------------------------------------

/// Small integers, the same on every run.
std::vector<double> random_ints(size_t count, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-9, 9);
  std::vector<double> v(count);
  for (double& x : v) x = dist(gen);
  return v;
}

struct EinsumOperand {
  std::string labels;  ///< One letter per dim (an ellipsis spelled out).
  std::vector<int64_t> shape;
  std::vector<double> values;
};

/// numpy's einsum by brute force, in double: the sum over every assignment
/// of sizes to the labels of the product of the operands' elements. A dim of
/// size 1 broadcasts against its label's size (as an ellipsis' dims do).
std::vector<double> brute_einsum(const std::vector<EinsumOperand>& operands, const std::string& result,
                                 std::vector<int64_t>& out_shape) {
  std::map<char, int64_t> size;
  for (const auto& o : operands)
    for (size_t d = 0; d < o.labels.size(); ++d) size[o.labels[d]] = std::max(size[o.labels[d]], o.shape[d]);
  std::string labels;
  for (const auto& [c, s] : size) labels += c;
  out_shape.clear();
  for (char c : result) out_shape.push_back(size[c]);
  std::vector<double> out(static_cast<size_t>(numel(out_shape)), 0.0);
  std::map<char, int64_t> at;
  for (char c : labels) {
    at[c] = 0;
    if (size[c] == 0) return out;
  }
  auto flat = [&](const std::string& ls, const std::vector<int64_t>& shape) {
    int64_t f = 0;
    for (size_t d = 0; d < ls.size(); ++d) f = f * shape[d] + (shape[d] == 1 ? 0 : at[ls[d]]);
    return f;
  };
  for (;;) {
    double product = 1.0;
    for (const auto& o : operands) product *= o.values[static_cast<size_t>(flat(o.labels, o.shape))];
    out[static_cast<size_t>(flat(result, out_shape))] += product;
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == size[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) return out;
  }
}

struct EinsumCase {
  std::string equation;
  std::vector<std::vector<int64_t>> shapes;
  /// The equation for brute_einsum: one letter per dim, the result explicit.
  std::string spelled_out;
};

/// Imports and runs the model `bytes` on `inputs` and compares its one
/// output with brute_einsum of `operands` into the `result` labels.
void expect_brute_einsum(const std::string& bytes, const std::vector<TensorData>& inputs,
                         const std::vector<EinsumOperand>& operands, const std::string& result,
                         compare::Tolerance tol) {
  std::vector<int64_t> shape;
  const std::vector<double> want = brute_einsum(operands, result, shape);
  std::vector<TensorData> got;
  try {
    got = import_and_run(bytes, inputs);
  } catch (const CompileError& e) {
    FAIL() << e.what();
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(matches(got[0], shape, want, tol));
}

/// Runs `c` on inputs of ONNX type `elem` (values from `make`) and compares
/// with brute_einsum.
void check_einsum(const EinsumCase& c, int elem, DType dtype, compare::Tolerance tol,
                  const std::function<std::vector<double>(size_t, uint32_t)>& make) {
  SCOPED_TRACE(c.equation);
  std::vector<std::vector<std::string>> dims;
  for (const auto& s : c.shapes) dims.push_back(dims_of(s));
  NodeModel m("Einsum", dims, elem);
  m.attr("equation", c.equation);
  const size_t arrow = c.spelled_out.find("->");
  std::vector<EinsumOperand> operands;
  std::vector<TensorData> inputs;
  std::stringstream terms(c.spelled_out.substr(0, arrow));
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    EinsumOperand o;
    std::getline(terms, o.labels, ',');
    o.shape = c.shapes[i];
    o.values = make(static_cast<size_t>(numel(o.shape)), static_cast<uint32_t>(7 + i));
    inputs.push_back(make_data(dtype, o.shape, o.values));
    // The reference reads what the kernels read: the values in `dtype`.
    o.values = onnx_import::data_as_doubles(inputs.back());
    operands.push_back(std::move(o));
  }
  expect_brute_einsum(m.bytes(), inputs, operands, c.spelled_out.substr(arrow + 2), tol);
}

const std::vector<EinsumCase>& exporter_equations() {
  static const std::vector<EinsumCase> cases = {
      {"ij,jk->ik", {{3, 4}, {4, 5}}, "ij,jk->ik"},
      {"ij,jk", {{3, 4}, {4, 5}}, "ij,jk->ik"},
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bij, bjk -> bik", {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bij,jk->bik", {{2, 3, 4}, {4, 5}}, "bij,jk->bik"},
      {"...ij,...jk->...ik", {{2, 3, 4}, {2, 4, 5}}, "Aij,Ajk->Aik"},
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}, "ABij,Bjk->ABik"},
      {"...ij,...jk", {{2, 3, 4}, {2, 4, 5}}, "Aij,Ajk->Aik"},
      {"bhqd,bhkd->bhqk", {{2, 3, 4, 5}, {2, 3, 6, 5}}, "bhqd,bhkd->bhqk"},
      {"bhqk,bhkd->bhqd", {{2, 3, 4, 6}, {2, 3, 6, 5}}, "bhqk,bhkd->bhqd"},
      {"bqhd,bkhd->bhqk", {{2, 4, 3, 5}, {2, 6, 3, 5}}, "bqhd,bkhd->bhqk"},
      {"ij->ji", {{3, 4}}, "ij->ji"},
      {"ij", {{3, 4}}, "ij->ij"},
      {"ji", {{3, 4}}, "ji->ij"},
      {"i,j->ij", {{3}, {4}}, "i,j->ij"},
      {"i,j", {{3}, {4}}, "i,j->ij"},
      {"ii->i", {{4, 4}}, "ii->i"},
      {"ii", {{4, 4}}, "ii->"},
      {"...ii->...i", {{3, 5, 5}}, "Aii->Ai"},
      {"iji->j", {{3, 2, 3}}, "iji->j"},
      {"ij->i", {{3, 4}}, "ij->i"},
      {"ij->", {{3, 4}}, "ij->"},
      {"i,i", {{5}, {5}}, "i,i->"},
      {"ij,ij->ij", {{3, 4}, {3, 4}}, "ij,ij->ij"},
      {"ij,ij->", {{3, 4}, {3, 4}}, "ij,ij->"},
      {"ijk,jkl->il", {{2, 3, 4}, {3, 4, 5}}, "ijk,jkl->il"},
      {"aij,jbc->aibc", {{2, 3, 4}, {4, 2, 3}}, "aij,jbc->aibc"},
      {"xaij,xjbc->xcbia", {{2, 3, 2, 4}, {2, 4, 3, 2}}, "xaij,xjbc->xcbia"},
      {"abj,cj->cab", {{2, 3, 4}, {5, 4}}, "abj,cj->cab"},
      {"j,bcj->cb", {{4}, {2, 3, 4}}, "j,bcj->cb"},
      {"ij,j->i", {{3, 4}, {4}}, "ij,j->i"},
      {"j,jk->k", {{4}, {4, 5}}, "j,jk->k"},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}, "ij,jk,kl->il"},
      {"Ab,bC->CA", {{3, 4}, {4, 5}}, "Ab,bC->CA"},
      {"ii,ij->j", {{3, 3}, {3, 4}}, "ii,ij->j"},
      {"ij,kj->", {{2, 3}, {4, 3}}, "ij,kj->"},
      {",ij->ij", {{}, {2, 3}}, ",ij->ij"},
  };
  return cases;
}

// The equations exporters write (torch.einsum's matmuls, attention,
// transposes, outer products, diagonals, traces, sums, implicit results,
// broadcast ellipses) match a brute-force einsum, in float32 and float16.
TEST(OnnxEinsum, ExporterEquationsMatchABruteForceEinsum) {
  for (const EinsumCase& c : exporter_equations()) {
    check_einsum(c, TensorProto::FLOAT, DType::Float32, kF32,
                 [](size_t n, uint32_t seed) { return random_values(n, -2, 2, seed); });
    check_einsum(c, TensorProto::FLOAT16, DType::Float16, kF16,
                 [](size_t n, uint32_t seed) { return random_values(n, -1, 1, seed); });
  }
}

// Integers, which matmul does not take, go through a broadcast product and a
// sum, exactly.
TEST(OnnxEinsum, IntegersAreExact) {
  const auto ints = [](size_t n, uint32_t seed) { return random_ints(n, seed); };
  for (const EinsumCase& c : exporter_equations()) {
    check_einsum(c, TensorProto::INT64, DType::Int64, compare::Tolerance::exact(), ints);
    check_einsum(c, TensorProto::INT32, DType::Int32, compare::Tolerance::exact(), ints);
  }
}

/// A TensorProto of doubles as float data.
TensorData double_proto_as_float(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  TensorProto t;
  EXPECT_TRUE(t.ParseFromString(ss.str())) << file;
  EXPECT_EQ(t.data_type(), TensorProto::DOUBLE) << file;
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  std::vector<double> values(t.double_data().begin(), t.double_data().end());
  if (values.empty()) {
    values.resize(t.raw_data().size() / sizeof(double));
    std::memcpy(values.data(), t.raw_data().data(), values.size() * sizeof(double));
  }
  return make_data(DType::Float32, shape, values);
}

// ONNX's own Einsum cases (in double, which edgec does not compute with;
// read here as float): the model with its types changed, the data converted.
TEST(OnnxEinsum, MatchesOnnxNodeTestData) {
  const fs::path root = "/usr/share/libonnx-testdata/data/node";
  ASSERT_TRUE(fs::is_directory(root)) << "libonnx-testdata is not installed";
  for (const char* name : {"batch_diagonal", "batch_matmul", "inner_prod", "sum", "transpose"}) {
    SCOPED_TRACE(name);
    const fs::path dir = root / (std::string("test_einsum_") + name);
    std::ifstream in(dir / "model.onnx", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(ss.str()));
    for (auto* vis : {m.mutable_graph()->mutable_input(), m.mutable_graph()->mutable_output()})
      for (auto& vi : *vis) vi.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
    // The inputs, renamed x0, x1, ... as import_and_run binds them.
    std::vector<TensorData> inputs;
    for (int i = 0; i < m.graph().input_size(); ++i) {
      const std::string old = m.graph().input(i).name(), renamed = "x" + std::to_string(i);
      m.mutable_graph()->mutable_input(i)->set_name(renamed);
      for (auto& n : *m.mutable_graph()->mutable_node())
        for (auto& input : *n.mutable_input())
          if (input == old) input = renamed;
      inputs.push_back(double_proto_as_float(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")));
    }
    const TensorData want = double_proto_as_float(dir / "test_data_set_0" / "output_0.pb");
    std::vector<TensorData> got;
    try {
      got = import_and_run(m.SerializeAsString(), inputs);
    } catch (const CompileError& e) {
      FAIL() << e.what();
    }
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(matches(got[0], want.type.static_shape(), onnx_import::data_as_doubles(want), kF32));
  }
}

// A symbolic batch size stays symbolic through the matmul, the permutes
// and the diagonal's slices, and binds at run time.
TEST(OnnxEinsum, SymbolicBatchBindsAtRunTime) {
  struct Symbolic {
    std::string equation;
    std::vector<std::vector<std::string>> dims;
    std::vector<std::vector<int64_t>> shapes;  ///< At run time.
    std::string spelled_out;
  };
  const std::vector<Symbolic> cases = {
      {"bij,bjk->bik", {{"n", "3", "4"}, {"n", "4", "5"}}, {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bij,bjk->bki", {{"n", "3", "4"}, {"n", "4", "5"}}, {{3, 3, 4}, {3, 4, 5}}, "bij,bjk->bki"},
      {"...ii->...i", {{"n", "4", "4"}}, {{2, 4, 4}}, "Aii->Ai"},
      {"bij->b", {{"n", "3", "4"}}, {{2, 3, 4}}, "bij->b"},
      {"bik,bjk->bij", {{"n", "3", "4"}, {"n", "5", "4"}}, {{1, 3, 4}, {1, 5, 4}}, "bik,bjk->bij"},
      {"bij,jk->bik", {{"n", "3", "4"}, {"4", "5"}}, {{2, 3, 4}, {4, 5}}, "bij,jk->bik"},
      {"bsd,hdk->bhsk", {{"n", "s", "4"}, {"2", "4", "3"}}, {{2, 3, 4}, {2, 4, 3}}, "bsd,hdk->bhsk"},
      {"ij,bjk->bki", {{"3", "4"}, {"n", "4", "5"}}, {{3, 4}, {2, 4, 5}}, "ij,bjk->bki"},
      {"...ij,jk->...ik", {{"n", "m", "3", "4"}, {"4", "5"}}, {{2, 3, 3, 4}, {4, 5}}, "ABij,jk->ABik"},
  };
  for (const Symbolic& c : cases) {
    SCOPED_TRACE(c.equation);
    NodeModel m("Einsum", c.dims);
    m.attr("equation", c.equation);
    std::vector<EinsumOperand> operands;
    std::vector<TensorData> inputs;
    std::stringstream terms(c.spelled_out.substr(0, c.spelled_out.find("->")));
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      EinsumOperand o;
      std::getline(terms, o.labels, ',');
      o.shape = c.shapes[i];
      o.values = onnx_import::data_as_doubles(
          make_data(DType::Float32, o.shape, random_values(static_cast<size_t>(numel(o.shape)), -2, 2, 11)));
      inputs.push_back(make_data(DType::Float32, o.shape, o.values));
      operands.push_back(std::move(o));
    }
    expect_brute_einsum(m.bytes(), inputs, operands, c.spelled_out.substr(c.spelled_out.find("->") + 2), kF32);
  }
}

// Each equation the importer cannot lower for its inputs is refused naming
// the equation, what in it is wrong and what was expected.
TEST(OnnxEinsum, RefusesEquationsItCannotMean) {
  struct Refused {
    std::string equation;
    std::vector<std::vector<std::string>> dims;
    std::vector<std::string> parts;
    int elem = TensorProto::FLOAT;
  };
  const std::vector<Refused> cases = {
      {"ij;jk->ik", {{"3", "4"}}, {"attribute 'equation' 'ij;jk->ik' holds ';' in the term of input 0 'ij;jk'"}},
      {"i.j->ij", {{"3", "4"}}, {"holds '.' in the term of input 0 'i.j'; expected letters and at most one '...'"}},
      {"...i...->i", {{"3", "4"}}, {"has two ellipses in the term of input 0 '...i...'; expected at most one"}},
      {"ij->i->j", {{"3", "4"}}, {"holds '-' in the result's term 'i->j'"}},
      {"ij,jk->ik", {{"3", "4"}}, {"'ij,jk->ik' has 2 input terms; expected 1, one per input"}},
      {"ij", {{"3", "4"}, {"4", "5"}}, {"has 1 input terms; expected 2, one per input"}},
      {"ijk->i", {{"3", "4"}}, {"gives input 0 of rank 2 the term 'ijk' of 3 labels; expected one label per dim"}},
      {"i->i", {{"3", "4"}}, {"gives input 0 of rank 2 the term 'i' of 1 labels"}},
      {"...ijk->i", {{"3", "4"}}, {"the term '...ijk' of 3 labels and an ellipsis; expected one label per dim"}},
      {"ij->ik", {{"3", "4"}}, {"has 'k' in the result's term 'ik', which no input term has"}},
      {"ij->ii", {{"3", "4"}}, {"has 'i' twice in the result's term 'ii'; expected it once"}},
      {"...ij->ij", {{"2", "3", "4"}},
       {"drops the 1 dims an ellipsis stands for from the result's term 'ij'; expected '...' in it"}},
      {"ij,jk->ik", {{"3", "4"}, {"5", "6"}},
       {"gives label 'j' the sizes 4 and 5 (dim 0 of input 1 'Inputs' (value 'x1', f32[5, 6])); expected one size"}},
      {"...i,...i->...i", {{"2", "3"}, {"4", "3"}},
       {"gives label ... dim 0 the sizes 2 and 4", "expected one size, or 1 to broadcast"}},
      {"ii->i", {{"n", "n"}}, {"takes a diagonal, which needs the size of label 'i', n, to be static"}},
      {"ijk,jkl->il", {{"2", "m", "4"}, {"m", "4", "5"}},
       {"contracts several labels in one matmul, which needs the size of label 'j', m, to be static"}},
      {"abij,abjk->abik", {{"n", "m", "3", "4"}, {"n", "m", "4", "5"}}, {}},  // imports: no merging needed
      {"i->i", {{"3"}}, {"input 0 'Inputs' (value 'x0', u8[3]) is of type u8; expected f32, f16, f64, i64 or i32"},
       TensorProto::UINT8},
  };
  for (const Refused& c : cases) {
    SCOPED_TRACE(c.equation);
    NodeModel m("Einsum", c.dims, c.elem);
    m.attr("equation", c.equation);
    if (c.parts.empty()) {
      EXPECT_EQ(refusal_of(m.bytes()), "(no error)");
      continue;
    }
    expect_refused(m, "Einsum", c.parts);
  }
}

// ---- LpNormalization, MeanVarianceNormalization ----------------------------------------

/// x / ||x||_p along `axis` of `shape` (zero rows stay zero), in double.
std::vector<double> lp_reference(const std::vector<double>& x, const std::vector<int64_t>& shape, int64_t axis,
                                 int p) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t len = shape[static_cast<size_t>(axis)];
  std::vector<double> y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return static_cast<size_t>((o * len + k) * inner + i); };
      double norm = 0;
      for (int64_t k = 0; k < len; ++k) norm += p == 1 ? std::fabs(x[at(k)]) : x[at(k)] * x[at(k)];
      if (p == 2) norm = std::sqrt(norm);
      for (int64_t k = 0; k < len; ++k) y[at(k)] = norm == 0 ? 0 : x[at(k)] / norm;
    }
  }
  return y;
}

TEST(OnnxLpNormalization, MatchesTheNormAlongTheAxis) {
  struct LpCase {
    std::vector<int64_t> shape;
    int64_t axis;  ///< As given; -100 leaves the attribute out (-1).
    int p;         ///< 0 leaves the attribute out (2).
    int elem;
    double scale;  ///< Of the values.
  };
  const std::vector<LpCase> cases = {
      {{3, 4}, -100, 0, TensorProto::FLOAT, 2},   {{3, 4}, 0, 1, TensorProto::FLOAT, 2},
      {{2, 3, 4}, 1, 2, TensorProto::FLOAT, 2},   {{2, 3, 4}, -3, 1, TensorProto::FLOAT, 2},
      {{2, 5}, -1, 2, TensorProto::FLOAT, 1e20},  // squares overflow float32
      {{2, 5}, -1, 2, TensorProto::FLOAT, 1e-25},  // squares underflow float32
      {{2, 5}, -1, 2, TensorProto::FLOAT16, 1000},  // squares overflow float16
      {{2, 5}, -1, 1, TensorProto::FLOAT16, 20000},  // the sum overflows float16
  };
  for (const LpCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "axis " << c.axis << ", p " << c.p << ", scale " << c.scale);
    NodeModel m("LpNormalization", {dims_of(c.shape)}, c.elem);
    if (c.axis != -100) m.attr("axis", c.axis);
    if (c.p != 0) m.attr("p", int64_t{c.p});
    const DType dt = c.elem == TensorProto::FLOAT ? DType::Float32 : DType::Float16;
    std::vector<double> x = random_values(static_cast<size_t>(numel(c.shape)), -c.scale, c.scale, 3);
    // A row of zeros along the last axis (the first row).
    if (c.axis == -100 || c.axis == -1)
      for (int64_t k = 0; k < c.shape.back(); ++k) x[static_cast<size_t>(k)] = 0;
    const TensorData in = make_data(dt, c.shape, x);
    const int64_t axis = c.axis == -100 ? -1 : c.axis;
    const std::vector<double> want = lp_reference(onnx_import::data_as_doubles(in), c.shape,
                                                  axis < 0 ? axis + static_cast<int64_t>(c.shape.size()) : axis,
                                                  c.p == 0 ? 2 : c.p);
    std::vector<TensorData> got;
    try {
      got = import_and_run(m.bytes(), {in});
    } catch (const CompileError& e) {
      FAIL() << e.what();
    }
    EXPECT_TRUE(matches(got.at(0), c.shape, want, dt == DType::Float32 ? kF32 : kF16));
  }
}

TEST(OnnxLpNormalization, RefusesOtherNormsAndAxes) {
  NodeModel p3("LpNormalization", {{"3", "4"}});
  p3.attr("p", int64_t{3});
  expect_refused(p3, "LpNormalization", {"attribute 'p' is 3; expected 1 or 2"});
  NodeModel axis("LpNormalization", {{"3", "4"}});
  axis.attr("axis", int64_t{2});
  expect_refused(axis, "LpNormalization", {"attribute 'axis' is 2; expected an axis in [-2, 1]"});
}

/// (x - mean) / (std + 1e-9) over `axes` of a 4-d `shape`, in double.
// LpPool: each window's (SUM |x|^p)^(1/p), padding counting as zeros; the
// windows walked here in double, one output element at a time (2-d or 3-d,
// any strides, pads and dilations).
std::vector<double> lp_pool_reference(const std::vector<double>& x, const std::vector<int64_t>& shape, int64_t p,
                                      const std::vector<int64_t>& k, const std::vector<int64_t>& stride,
                                      const std::vector<int64_t>& pads, const std::vector<int64_t>& dil,
                                      std::vector<int64_t>& out_shape) {
  const size_t nd = k.size();
  out_shape = {shape[0], shape[1]};
  for (size_t d = 0; d < nd; ++d)
    out_shape.push_back((shape[2 + d] + pads[d] + pads[nd + d] - dil[d] * (k[d] - 1) - 1) / stride[d] + 1);
  std::vector<double> y;
  std::vector<int64_t> o(nd), w(nd);
  const int64_t planes = shape[0] * shape[1];
  for (int64_t nc = 0; nc < planes; ++nc) {
    int64_t outs = 1;
    for (size_t d = 0; d < nd; ++d) outs *= out_shape[2 + d];
    for (int64_t oi = 0; oi < outs; ++oi) {
      for (size_t d = nd, r = static_cast<size_t>(oi); d-- > 0;) {
        o[d] = static_cast<int64_t>(r) % out_shape[2 + d];
        r /= static_cast<size_t>(out_shape[2 + d]);
      }
      double sum = 0;
      int64_t taps = 1;
      for (int64_t kd : k) taps *= kd;
      for (int64_t ti = 0; ti < taps; ++ti) {
        int64_t flat = nc, inside = 1;
        for (size_t d = nd, r = static_cast<size_t>(ti); d-- > 0;) {
          w[d] = static_cast<int64_t>(r) % k[d];
          r /= static_cast<size_t>(k[d]);
        }
        for (size_t d = 0; d < nd; ++d) {
          const int64_t at = o[d] * stride[d] - pads[d] + w[d] * dil[d];
          inside &= at >= 0 && at < shape[2 + d];
          flat = flat * shape[2 + d] + at;
        }
        if (inside) sum += std::pow(std::abs(x[static_cast<size_t>(flat)]), static_cast<double>(p));
      }
      y.push_back(std::pow(sum, 1.0 / static_cast<double>(p)));
    }
  }
  return y;
}

TEST(OnnxLpPool, MatchesTheNormOfEachWindow) {
  struct Case {
    std::vector<int64_t> shape, k, stride, pads, dil;
    int64_t p;
  };
  const Case cases[] = {
      {{1, 2, 5, 6}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 2},
      {{2, 3, 7, 5}, {3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 1}, 1},
      {{1, 2, 8, 8}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {2, 1}, 3},  // dilations: opset 18
      {{1, 2, 4, 5, 6}, {2, 3, 2}, {1, 2, 2}, {0, 1, 1, 1, 0, 0}, {1, 1, 1}, 2},
  };
  uint32_t seed = 50;
  for (const Case& c : cases) {
    const bool dilated = c.dil != std::vector<int64_t>(c.dil.size(), 1);
    NodeModel m("LpPool", {dims_of(c.shape)});
    m.proto.mutable_opset_import(0)->set_version(dilated ? 18 : 17);
    m.attr("kernel_shape", c.k).attr("strides", c.stride).attr("pads", c.pads).attr("p", c.p);
    if (dilated) m.attr("dilations", c.dil);
    const auto x = random_values(static_cast<size_t>(numel(c.shape)), -2, 2, seed++);
    std::vector<int64_t> out_shape;
    const auto want = lp_pool_reference(x, c.shape, c.p, c.k, c.stride, c.pads, c.dil, out_shape);
    const auto got = import_and_run(m.bytes(), {make_data(DType::Float32, c.shape, x)});
    EXPECT_TRUE(matches(got.at(0), out_shape, want, kF32)) << "p " << c.p << ", rank " << c.shape.size();
  }
}

TEST(OnnxLpPool, GlobalIsTheNormOverTheSpatialDims) {
  for (const int64_t p : {1, 2, 3}) {
    const std::vector<int64_t> shape = {2, 3, 4, 5};
    NodeModel m("GlobalLpPool", {dims_of(shape)});
    m.attr("p", p);
    const auto x = random_values(static_cast<size_t>(numel(shape)), -2, 2, 70 + static_cast<uint32_t>(p));
    std::vector<double> want;
    for (int64_t nc = 0; nc < 6; ++nc) {
      double sum = 0;
      for (int64_t i = 0; i < 20; ++i) sum += std::pow(std::abs(x[static_cast<size_t>(nc * 20 + i)]), p);
      want.push_back(std::pow(sum, 1.0 / static_cast<double>(p)));
    }
    const auto got = import_and_run(m.bytes(), {make_data(DType::Float32, shape, x)});
    EXPECT_TRUE(matches(got.at(0), {2, 3, 1, 1}, want, kF32)) << "p " << p;
  }
}

TEST(OnnxLpPool, RefusesWhatItDoesNotCompute) {
  NodeModel zero("LpPool", {{"1", "2", "4", "4"}});
  zero.attr("kernel_shape", std::vector<int64_t>{2, 2}).attr("p", int64_t{0});
  expect_refused(zero, "LpPool", {"attribute 'p' is 0; expected an order >= 1"});
  NodeModel ceil("LpPool", {{"1", "2", "4", "4"}});
  ceil.proto.mutable_opset_import(0)->set_version(18);
  ceil.attr("kernel_shape", std::vector<int64_t>{2, 2}).attr("ceil_mode", int64_t{1});
  const std::string why = refusal_of(ceil.bytes());
  EXPECT_NE(why.find("node '/t' (#0, LpPool, domain ai.onnx, opset 18): attribute 'ceil_mode' is 1; expected 0"),
            std::string::npos)
      << why;
}

std::vector<double> mvn_reference(const std::vector<double>& x, const std::vector<int64_t>& shape,
                                  const std::vector<int64_t>& axes) {
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(a < 0 ? a + 4 : a)] = true;
  // The group of each element: its index along the dims not reduced.
  std::vector<int64_t> group(x.size());
  std::map<int64_t, std::pair<double, int64_t>> sums;
  for (size_t f = 0; f < x.size(); ++f) {
    int64_t rest = static_cast<int64_t>(f), key = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      const int64_t i = rest % shape[d];
      rest /= shape[d];
      if (!reduced[d]) key = key * 1000 + i;
    }
    group[f] = key;
    sums[key].first += x[f];
    ++sums[key].second;
  }
  std::map<int64_t, double> variance;
  for (size_t f = 0; f < x.size(); ++f) {
    const double mean = sums[group[f]].first / sums[group[f]].second;
    variance[group[f]] += (x[f] - mean) * (x[f] - mean) / sums[group[f]].second;
  }
  std::vector<double> y(x.size());
  for (size_t f = 0; f < x.size(); ++f) {
    const double mean = sums[group[f]].first / sums[group[f]].second;
    y[f] = (x[f] - mean) / (std::sqrt(variance[group[f]]) + 1e-9);
  }
  return y;
}

TEST(OnnxMeanVarianceNormalization, MatchesTheDefinition) {
  const std::vector<int64_t> shape = {2, 3, 4, 5};
  struct MvnCase {
    std::vector<int64_t> axes;  ///< Empty: the attribute left out ([0, 2, 3]).
    int elem;
    double offset;  ///< Added to every value: a mean large against the spread.
  };
  const std::vector<MvnCase> cases = {
      {{}, TensorProto::FLOAT, 0},       {{2, 3}, TensorProto::FLOAT, 0}, {{-1}, TensorProto::FLOAT, 0},
      {{0, 1, 2, 3}, TensorProto::FLOAT, 0}, {{}, TensorProto::FLOAT, 1000}, {{}, TensorProto::FLOAT16, 0},
      {{1}, TensorProto::FLOAT16, 300},
  };
  for (const MvnCase& c : cases) {
    SCOPED_TRACE(testing::Message() << "axes of " << c.axes.size() << ", offset " << c.offset);
    NodeModel m("MeanVarianceNormalization", {dims_of(shape)}, c.elem);
    if (!c.axes.empty()) m.attr("axes", c.axes);
    const DType dt = c.elem == TensorProto::FLOAT ? DType::Float32 : DType::Float16;
    std::vector<double> x = random_values(static_cast<size_t>(numel(shape)), -3, 3, 5);
    for (double& v : x) v += c.offset;
    const TensorData in = make_data(dt, shape, x);
    const std::vector<double> want =
        mvn_reference(onnx_import::data_as_doubles(in), shape, c.axes.empty() ? std::vector<int64_t>{0, 2, 3} : c.axes);
    std::vector<TensorData> got;
    try {
      got = import_and_run(m.bytes(), {in});
    } catch (const CompileError& e) {
      FAIL() << e.what();
    }
    // float32 rounds the mean of values near 1000 to about 1e-4, against a
    // spread near 1.
    const compare::Tolerance tol = dt == DType::Float16 ? kF16 : c.offset != 0 ? compare::Tolerance::either(2e-4, 2e-4) : kF32;
    EXPECT_TRUE(matches(got.at(0), shape, want, tol));
  }
}

// A constant input has no spread: (x - mean) is 0 and so is the result.
TEST(OnnxMeanVarianceNormalization, ConstantInputGivesZeros) {
  NodeModel m("MeanVarianceNormalization", {{"1", "2", "3", "3"}});
  const std::vector<TensorData> got = import_and_run(m.bytes(), {make_data(DType::Float32, {1, 2, 3, 3}, std::vector<double>(18, 4.5))});
  EXPECT_TRUE(matches(got.at(0), {1, 2, 3, 3}, std::vector<double>(18, 0.0), compare::Tolerance::exact()));
}

TEST(OnnxMeanVarianceNormalization, RefusesAxesTheInputLacks) {
  NodeModel defaults("MeanVarianceNormalization", {{"2", "3", "4"}});
  expect_refused(defaults, "MeanVarianceNormalization",
                 {"attribute 'axes' (absent: ONNX's default) [0, 2, 3] holds an entry that is 3; expected an axis in "
                  "[-3, 2] for input 0 'X' (value 'x0', f32[2, 3, 4])"});
  NodeModel twice("MeanVarianceNormalization", {{"2", "3", "4", "5"}});
  twice.attr("axes", std::vector<int64_t>{1, -3});
  expect_refused(twice, "MeanVarianceNormalization", {"attribute 'axes' is [1, -3]; expected distinct axes"});
}

// ---- DepthToSpace, SpaceToDepth ---------------------------------------------------------

/// ONNX's DepthToSpace (mode DCR or CRD) or SpaceToDepth of x [n, c, h, w]
/// with block size b, element by element.
std::vector<double> block_reference(const std::string& op, const std::string& mode, const std::vector<double>& x,
                                    const std::vector<int64_t>& s, int64_t b, std::vector<int64_t>& out_shape) {
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  auto xi = [&](int64_t in, int64_t ic, int64_t ih, int64_t iw) {
    return x[static_cast<size_t>(((in * c + ic) * h + ih) * w + iw)];
  };
  std::vector<double> y;
  if (op == "DepthToSpace") {
    const int64_t oc = c / (b * b);
    out_shape = {n, oc, h * b, w * b};
    for (int64_t in = 0; in < n; ++in)
      for (int64_t k = 0; k < oc; ++k)
        for (int64_t oh = 0; oh < h * b; ++oh)
          for (int64_t ow = 0; ow < w * b; ++ow) {
            const int64_t i = oh % b, j = ow % b;
            const int64_t channel = mode == "CRD" ? k * b * b + i * b + j : (i * b + j) * oc + k;
            y.push_back(xi(in, channel, oh / b, ow / b));
          }
  } else {
    out_shape = {n, c * b * b, h / b, w / b};
    for (int64_t in = 0; in < n; ++in)
      for (int64_t oc = 0; oc < c * b * b; ++oc)
        for (int64_t oh = 0; oh < h / b; ++oh)
          for (int64_t ow = 0; ow < w / b; ++ow) {
            const int64_t k = oc % c, i = oc / c / b, j = oc / c % b;
            y.push_back(xi(in, k, oh * b + i, ow * b + j));
          }
  }
  return y;
}

// One size may be symbolic (whichever it is): it becomes the reshapes' -1.
TEST(OnnxDepthToSpace, OneSymbolicSizeBindsAtRunTime) {
  struct BlockCase {
    std::string op, mode;
    std::vector<std::string> dims;
    std::vector<int64_t> shape;  ///< At run time.
    int64_t block;
  };
  const std::vector<BlockCase> cases = {
      {"DepthToSpace", "DCR", {"n", "8", "2", "3"}, {3, 8, 2, 3}, 2},
      {"DepthToSpace", "CRD", {"2", "c", "2", "3"}, {2, 18, 2, 3}, 3},
      {"DepthToSpace", "DCR", {"2", "8", "h", "3"}, {2, 8, 4, 3}, 2},
      {"DepthToSpace", "CRD", {"1", "12", "2", "w"}, {1, 12, 2, 5}, 2},
      {"DepthToSpace", "CRD", {"1", "4", "2", "3"}, {1, 4, 2, 3}, 1},
      {"SpaceToDepth", "", {"n", "2", "4", "6"}, {3, 2, 4, 6}, 2},
      {"SpaceToDepth", "", {"2", "c", "4", "6"}, {2, 3, 4, 6}, 2},
      {"SpaceToDepth", "", {"1", "2", "h", "6"}, {1, 2, 6, 6}, 3},
      {"SpaceToDepth", "", {"1", "2", "4", "w"}, {1, 2, 4, 8}, 4},
  };
  for (const BlockCase& c : cases) {
    SCOPED_TRACE(testing::Message() << c.op << " " << c.mode << " block " << c.block);
    NodeModel m(c.op, {c.dims});
    m.attr("blocksize", c.block);
    if (!c.mode.empty()) m.attr("mode", c.mode);
    const std::vector<double> x = random_values(static_cast<size_t>(numel(c.shape)), -5, 5, 9);
    std::vector<int64_t> shape;
    const std::vector<double> want = block_reference(c.op, c.mode, x, c.shape, c.block, shape);
    std::vector<TensorData> got;
    try {
      got = import_and_run(m.bytes(), {make_data(DType::Float32, c.shape, x)});
    } catch (const CompileError& e) {
      FAIL() << e.what();
    }
    EXPECT_TRUE(matches(got.at(0), shape, want, compare::Tolerance::exact()));
  }
}

TEST(OnnxDepthToSpace, RefusesWhatCannotBeMoved) {
  NodeModel zero("DepthToSpace", {{"1", "8", "2", "3"}});
  zero.attr("blocksize", int64_t{0});
  expect_refused(zero, "DepthToSpace", {"attribute 'blocksize' is 0; expected a block size in [1, 2147483648]"});
  NodeModel rank3("SpaceToDepth", {{"8", "2", "3"}});
  rank3.attr("blocksize", int64_t{2});
  expect_refused(rank3, "SpaceToDepth",
                 {"input 0 'input' (value 'x0', f32[8, 2, 3]) has rank 3; expected rank 4 (N, C, H, W)"});
  NodeModel two("DepthToSpace", {{"n", "8", "h", "3"}});
  two.attr("blocksize", int64_t{2});
  expect_refused(two, "DepthToSpace", {"(value 'x0', f32[n, 8, h, 3]) has 2 sizes that are not static; expected at "
                                       "most one",
                                       "--dim"});
  NodeModel mode("DepthToSpace", {{"1", "8", "2", "3"}});
  mode.attr("blocksize", int64_t{2}).attr("mode", "RCD");
  expect_refused(mode, "DepthToSpace", {"attribute 'mode' is 'RCD'; expected DCR or CRD"});
  NodeModel channels("DepthToSpace", {{"1", "6", "2", "3"}});
  channels.attr("blocksize", int64_t{2});
  expect_refused(channels, "DepthToSpace",
                 {"(value 'x0', f32[1, 6, 2, 3]) has 6 channels; expected a multiple of 4 (attribute 'blocksize' 2, "
                  "squared)"});
  NodeModel spatial("SpaceToDepth", {{"1", "2", "4", "5"}});
  spatial.attr("blocksize", int64_t{2});
  expect_refused(spatial, "SpaceToDepth",
                 {"has the spatial size 5 in dim 3; expected a multiple of attribute 'blocksize', 2"});
}

}  // namespace
}  // namespace edgec
