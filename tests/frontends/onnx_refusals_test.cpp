// Every refusal of the ONNX importer says where and what: a walk over the
// importer's refusal sites (each line of src/frontends/onnx that calls
// refuse(), NodeContext::fail() or fail_not_known(); refusal.h records the
// line), with one small model per site. Each model must be refused at its
// site (so a case cannot pass by failing somewhere else), and its message
// must name the node, its op_type and opset, and the input, output or
// attribute concerned. A refusal added without a case fails
// EveryRefusalSiteHasACase, naming the line. SHOW_REFUSALS=1 in the
// environment prints every case's message (to read them all at once).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "ir/text.h"
#include "support/onnx_model.h"
#include "support/scoped_memory_limit.h"

namespace edgec {
namespace {

namespace fs = std::filesystem;
using onnx::AttributeProto;
using onnx::TensorProto;

const std::string kSources = EDGEC_SOURCE_DIR "/src/frontends/onnx";
const char* kWhat = "refusals.onnx";

// ---- the importer's sources -------------------------------------------------------

/// The importer's sources the walk covers: tensor_data.* reads tensors for
/// the importer and is walked by its own tests.
std::vector<fs::path> importer_sources() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kSources)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("tensor_data", 0) == 0) continue;
    if (e.path().extension() == ".cpp" || e.path().extension() == ".h") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// `text` with comments blanked and string and character literals emptied
/// (quotes kept, newlines kept), so that code can be matched by position.
std::string code_of(const std::string& text) {
  std::string out = text;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out[i] == '"' || out[i] == '\'') {
      const char quote = out[i++];
      while (i < out.size() && out[i] != quote) {
        if (out[i] == '\\') out[i++] = ' ';
        if (i < out.size() && out[i] != '\n') out[i] = ' ';
        ++i;
      }
    }
  }
  return out;
}

struct Site {
  std::string file;  ///< Base name.
  int line = 0;
  auto operator<=>(const Site&) const = default;
};

std::string str(const Site& s) { return s.file + ":" + std::to_string(s.line); }

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Where `word` stands in `code` as a whole identifier, each with the
/// position just past it and the spaces after it. (No std::regex: GCC 12
/// at -O1, the sanitized build's level, warns of maybe-uninitialized
/// values inside <regex>, and the build treats warnings as errors.)
std::vector<std::pair<size_t, size_t>> word_uses(const std::string& code, const std::string& word) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at > 0 && is_identifier_char(code[at - 1])) || (end < code.size() && is_identifier_char(code[end]))) continue;
    size_t next = end;
    while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
    out.emplace_back(at, next);
  }
  return out;
}

/// Each line that refuses, with its text: a call of refuse, refuse_node,
/// fail or fail_not_known that is not a declaration and does not forward its
/// caller's site (a helper that refuses for its caller passes `site` on).
std::map<Site, std::string> refusal_sites() {
  std::map<Site, std::string> sites;
  for (const fs::path& path : importer_sources()) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const std::string code = code_of(text);
    std::vector<std::pair<size_t, size_t>> calls;  // (name, just past its "(")
    for (const char* name : {"refuse", "refuse_node", "fail", "fail_not_known"})
      for (const auto& [at, next] : word_uses(code, name))
        if (next < code.size() && code[next] == '(') calls.emplace_back(at, next + 1);
    std::sort(calls.begin(), calls.end());
    for (const auto& [at, args_at] : calls) {
      const size_t line_start = code.rfind('\n', at) + 1;
      const std::string before = code.substr(line_start, at - line_start);
      if (before.find("void ") != std::string::npos) continue;  // a declaration or definition
      // The arguments, up to the matching parenthesis.
      size_t i = args_at, depth = 1;
      const size_t args_start = i;
      for (; i < code.size() && depth > 0; ++i) depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
      std::string args = code.substr(args_start, i - 1 - args_start);
      while (!args.empty() && std::isspace(static_cast<unsigned char>(args.back()))) args.pop_back();
      if (args.size() >= 4 && args.compare(args.size() - 4, 4, "site") == 0) continue;  // forwards its caller's
      const int line = static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(at), '\n')) + 1;
      const size_t end = text.find('\n', line_start);
      const Site site{path.filename().string(), line};
      EXPECT_FALSE(sites.count(site)) << str(site) << ": two refusals on one line; give each its own line";
      sites[site] = text.substr(line_start, end - line_start);
    }
  }
  return sites;
}

// ---- building models ----------------------------------------------------------------

/// A model of opset 17 (by default) built node by node. Input dims are
/// strings: "4" a size, "n" a dim_param, "?" neither.
struct Model {
  onnx::ModelProto proto;

  explicit Model(int64_t opset = 17) : proto(empty_onnx_model()) { proto.mutable_opset_import(0)->set_version(opset); }
  onnx::GraphProto* g() { return proto.mutable_graph(); }
  Model& input(const std::string& name, const std::vector<std::string>& dims, int elem = TensorProto::FLOAT) {
    auto* t = g()->add_input();
    t->set_name(name);
    auto* tt = t->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    tt->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = tt->mutable_shape()->add_dim();
      if (d == "?") continue;
      if (std::isdigit(static_cast<unsigned char>(d[0])) || d[0] == '-') {
        dim->set_dim_value(std::stoll(d));
      } else {
        dim->set_dim_param(d);
      }
    }
    return *this;
  }
  /// x: f32[1, 2, 4, 4].
  Model& x() { return input("x", {"1", "2", "4", "4"}); }
  /// An int64 initializer; `dims` {-1}: [values.size()]; {}: a scalar.
  Model& ints(const std::string& name, const std::vector<int64_t>& values, std::vector<int64_t> dims = {-1},
              int elem = TensorProto::INT64) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) {
      if (elem == TensorProto::INT64) {
        t->add_int64_data(v);
      } else {
        t->add_int32_data(static_cast<int32_t>(v));
      }
    }
    return *this;
  }
  Model& floats(const std::string& name, const std::vector<float>& values, std::vector<int64_t> dims = {-1}) {
    auto* t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::FLOAT);
    if (dims == std::vector<int64_t>{-1}) dims = {static_cast<int64_t>(values.size())};
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return *this;
  }
  /// A float initializer of `dims` filled with ones.
  Model& weight(const std::string& name, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return floats(name, std::vector<float>(static_cast<size_t>(n), 1.0f), dims);
  }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& ins,
                        const std::vector<std::string>& outs, const std::string& name = "/t") {
    auto* n = add_node(g(), name, op, ins, outs);
    if (name.empty()) n->set_name(name);  // set, though empty
    return n;
  }
  Model& output(const std::string& name) {
    g()->add_output()->set_name(name);
    return *this;
  }
};

void attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INT);
  a->set_i(v);
}
void attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attr(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::FLOAT);
  a->set_f(v);
}
void attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::STRING);
  a->set_s(v);
}
void attr(onnx::NodeProto* n, const std::string& name, const char* v) { attr(n, name, std::string(v)); }
/// A float tensor attribute of `count` elements.
void attr_tensor(onnx::NodeProto* n, const std::string& name, int count) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::FLOAT);
  a->mutable_t()->add_dims(count);
  for (int i = 0; i < count; ++i) a->mutable_t()->add_float_data(1.0f);
}

// ---- cases -------------------------------------------------------------------------

struct Case {
  std::string label;
  /// Imports (or reads) the model; expected to throw an ImportRefusal.
  std::function<void()> run;
  /// Each must appear in the message.
  std::vector<std::string> expect;
};

void import_bytes(const std::string& bytes, const OnnxImportOptions& options = {}) {
  import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), kWhat, options);
}

/// A model-level refusal: names what it is about (`expect`).
Case graph_case(const std::string& label, const Model& m, std::vector<std::string> expect,
                OnnxImportOptions options = {}) {
  expect.insert(expect.begin(), std::string(kWhat) + ": ");
  const std::string bytes = m.proto.SerializeAsString();
  return Case{label, [bytes, options] { import_bytes(bytes, options); }, std::move(expect)};
}

/// A refusal of node '/t' (of type `op`) naming `operand` (an input,
/// output or attribute).
Case node_case(const std::string& label, const Model& m, const std::string& op, const std::string& operand,
               int64_t opset = 17) {
  return graph_case(label, m,
                    {"node '/t' (#", ", " + op + ", domain ai.onnx, opset " + std::to_string(opset) + ")", operand});
}

/// The node of `m` named '/t', to add attributes to.
onnx::NodeProto* t_node(Model& m) {
  for (auto& n : *m.g()->mutable_node())
    if (n.name() == "/t") return &n;
  return nullptr;
}

std::vector<Case> cases() {
  std::vector<Case> c;
  auto add = [&](Case k) { c.push_back(std::move(k)); };

  // ---- the model and its graph inputs (importer.cpp) ----
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    auto* s = m.g()->add_sparse_initializer();
    s->mutable_values()->set_name("s");
    add(graph_case("sparse initializer", m, {"sparse initializer 's'"}));
  }
  {
    Model m;
    m.x().floats("w", {1}).floats("w", {2}).node("Add", {"x", "w"}, {"y"});
    m.output("y");
    add(graph_case("initializer twice", m, {"initializer 'w' appears twice"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"a"});
    m.node("Relu", {"a"}, {"b"});
    m.node("Relu", {"b"}, {"y"});
    m.output("y");
    Case k = graph_case("more nodes than the memory limit holds", m,
                        {"the graph has 3 nodes; compiling it takes at least 3840 bytes (1.25 KiB a node), more "
                         "than the memory limit of 2048 bytes (set EDGEC_MEMORY_LIMIT to change it)"});
    k.run = [run = k.run] {
      const ScopedMemoryLimit limit("2048");
      run();
    };
    add(std::move(k));
  }
  {
    Model m;
    m.proto.clear_ir_version();
    add(graph_case("no ir_version", m, {"no ir_version"}));
  }
  {
    Model m;
    m.proto.set_ir_version(12);
    add(graph_case("ir_version 12", m, {"ONNX IR version 12"}));
  }
  {
    Model m;
    m.proto.clear_graph();
    add(graph_case("no graph", m, {"no graph"}));
  }
  {
    Model m;
    m.g()->add_input()->set_name("x");
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input not a tensor", m, {"graph input 'x' is not a tensor"}));
  }
  {
    Model m;
    m.input("x", {"2"}, TensorProto::BFLOAT16).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of type bfloat16", m, {"graph input 'x' has element type bfloat16"}));
  }
  {
    Model m;
    m.input("x", {"2"});
    m.g()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
    m.node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input without a shape", m, {"graph input 'x' has no shape"}));
  }
  {
    Model m;
    m.input("x", std::vector<std::string>(9, "1")).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of rank 9", m, {"graph input 'x' has rank 9"}));
  }
  {
    Model m;
    m.input("x", {"-3"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input of negative size", m, {"graph input 'x' has a negative size in dim 0"}));
  }
  {
    Model m;
    m.input("x", {"n"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    OnnxImportOptions o;
    o.dim_sizes["n"] = -1;
    add(graph_case("negative --dim", m, {"--dim (dim_sizes) gives 'n' the negative size -1"}, o));
  }
  {
    Model m;
    m.input("x", {"1099511627776", "1099511627776"}).node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input bytes overflow", m, {"graph input 'x' declares", "overflows 64 bits"}));
  }
  {
    Model m;
    m.x().x().node("Relu", {"x"}, {"y"});
    m.output("y");
    add(graph_case("input listed twice", m, {"graph input 'x' is listed twice"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    OnnxImportOptions o;
    o.input_values["x"] =
        TensorData{TensorType::of(DType::Float32, {3}), std::make_shared<std::vector<std::byte>>(12, std::byte{0})};
    add(graph_case("fixed value of another type", m, {"graph input 'x' (--fix-inputs) is f32[3]"}, o));
    OnnxImportOptions typo;
    typo.input_values["y"] = o.input_values["x"];
    add(graph_case("fixed value for no input", m, {"--fix-inputs gives a value for 'y'"}, typo));
    OnnxImportOptions dim;
    dim.dim_sizes["batch"] = 2;
    add(graph_case("--dim for no dim", m, {"--dim (dim_sizes) names 'batch'"}, dim));
  }

  // ---- the schema and SSA checks (importer.cpp) ----
  {
    Model m;
    m.x().node("Relu", {"x"}, {"x"});
    m.output("x");
    add(node_case("output named as a graph input", m, "Relu", "output 0 'Y' (value 'x')"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"}, "/first");
    m.node("Neg", {"x"}, {"y"});
    m.output("y");
    add(node_case("output of two nodes", m, "Neg", "output 0 'Y' (value 'y')"));
  }
  {
    Model m;
    m.x().node("Split", {"x"}, {"y", "y"});
    m.output("y");
    add(node_case("output twice in one node", m, "Split", "output 1 'outputs' (value 'y')"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"})->set_domain("com.example");
    m.output("y");
    auto* o = m.proto.add_opset_import();
    o->set_domain("com.example");
    o->set_version(1);
    c.push_back(graph_case("custom domain", m, {"node '/t' (#0, Relu, domain com.example, opset 1)", "domain"}));
  }
  {
    Model m(0);
    m.x().node("Relu", {"x"}, {"y"});
    m.output("y");
    add(node_case("opset 0", m, "Relu", "opset 0 of the default domain", 0));
  }
  {
    // ONNX's converter cannot bring an opset-6 Gemm whose C does not
    // broadcast to the product to opset 7, where Gemm's meaning changed.
    Model m(6);
    m.input("x", {"2", "3"}).weight("b", {3, 4}).weight("c", {5});
    attr(m.node("Gemm", {"x", "b", "c"}, {"y"}), "broadcast", int64_t{1});
    m.output("y");
    add(node_case("old opset the converter cannot convert", m, "Gemm", "could not bring the model from opset 6 to 13 (",
                  6));
  }
  {
    Model m(11);
    m.x().node("NoSuchOperator", {"x"}, {"y"});
    m.output("y");
    add(node_case("old opset, no such operator", m, "NoSuchOperator", "is not an ONNX operator of opset 11", 11));
  }
  {
    Model m;
    m.x().node("StringNormalizer", {"x"}, {"y"});
    m.output("y");
    add(node_case("unsupported operator", m, "StringNormalizer", "operator StringNormalizer is not supported"));
  }
  {
    Model m;
    m.x().node("Relu", {"x", "x"}, {"y"});
    m.output("y");
    add(node_case("too many inputs", m, "Relu", "its inputs are 'X'"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y", "z"});
    m.output("y");
    add(node_case("too many outputs", m, "Relu", "its outputs are 'Y'"));
  }
  {
    Model m;
    m.x().node("Add", {"x", ""}, {"y"});
    m.output("y");
    add(node_case("required input empty", m, "Add", "input 1 'B' is required"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {""});
    m.output("x");
    add(node_case("required output empty", m, "Relu", "output 0 'Y' is required"));
  }
  {
    Model m;
    m.x();
    auto* n = m.node("Softmax", {"x"}, {"y"});
    attr(n, "axis", int64_t{1});
    attr(n, "axis", int64_t{2});
    m.output("y");
    add(node_case("attribute twice", m, "Softmax", "attribute 'axis' is given twice"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Relu", {"x"}, {"y"}), "alpha", 0.5f);
    m.output("y");
    add(node_case("unknown attribute", m, "Relu", "attribute 'alpha' is not an attribute of Relu"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Softmax", {"x"}, {"y"}), "axis", 1.0f);
    m.output("y");
    add(node_case("attribute of another kind", m, "Softmax", "attribute 'axis' is a float; expected an int"));
  }
  {
    Model m;
    m.x().node("MaxPool", {"x"}, {"y"});
    m.output("y");
    add(node_case("required attribute missing", m, "MaxPool", "attribute 'kernel_shape' (a list of ints) is required"));
  }
  {
    Model m;
    m.x().floats("s", {1, 2}).node("Reshape", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("input type not allowed", m, "Reshape",
                  "input 1 'shape' (value 's', f32[2]) has element type float"));
  }
  {
    Model m;
    m.x().ints("b", {1}).node("Add", {"x", "b"}, {"y"});
    m.output("y");
    add(node_case("type variable of two types", m, "Add", "input 1 'B' (value 'b', i64[1]) has element type int64"));
  }
  {
    Model m;
    m.x().node("Add", {"x", "b"}, {"a"});
    m.node("Relu", {"a"}, {"b"}, "/later");
    m.output("b");
    add(node_case("input produced later", m, "Add", "input 1 'B' (value 'b') is produced by node '/later'"));
  }
  {
    Model m;
    m.x().node("Add", {"x", "nowhere"}, {"y"});
    m.output("y");
    add(node_case("input not defined", m, "Add", "input 1 'B' (value 'nowhere') is not defined"));
  }
  {
    Model m;
    m.input("a", {"2", "3"}).input("b", {"4", "5"}).node("MatMul", {"a", "b"}, {"y"});
    m.output("y");
    add(node_case("refused by the operator table", m, "MatMul", "[matmul]"));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    m.output("z");
    add(graph_case("graph output not produced", m, {"graph output 'z' is not produced"}));
  }
  {
    Model m;
    m.x().node("Relu", {"x"}, {"y"});
    add(graph_case("no graph outputs", m, {"the graph has no outputs"}));
  }
  add(Case{"file over 2 GiB",
           [] {
             std::string path = ::testing::TempDir() + "/edgec_refusal_XXXXXX.onnx";
             const int fd = mkstemps(path.data(), 5);
             ASSERT_GE(fd, 0);
             ASSERT_EQ(ftruncate(fd, (off_t{1} << 31) + 1), 0);
             close(fd);
             struct Remove {
               std::string p;
               ~Remove() { fs::remove(p); }
             } remove{path};
             import_onnx(path);
           },
           {"the file has 2147483649 bytes"}});
  add(Case{
      "bytes that do not parse", [] { import_bytes("\xff\xff\xff\xff not a model"); }, {"not a valid ONNX model"}});
  add(Case{"file that does not parse",
           [] {
             const std::string path = ::testing::TempDir() + "/edgec_refusal_junk.onnx";
             std::ofstream(path, std::ios::binary) << "\xff\xff\xff\xff not a model";
             struct Remove {
               std::string p;
               ~Remove() { fs::remove(p); }
             } remove{path};
             import_onnx(path);
           },
           {"edgec_refusal_junk.onnx: not a valid ONNX model"}});

  // ---- values the importer does not compute (context.cpp, node_context.cpp) ----
  {
    Model m;
    m.x();
    attr(m.node("MaxPool", {"x"}, {"y", "i"}), "kernel_shape", std::vector<int64_t>{2, 2});
    m.output("i");
    add(graph_case("uncomputed output as graph output", m,
                   {"graph output 'i'", "'i' (output 1 of MaxPool node '/t') is not computed"}));
  }
  {
    Model m;
    m.x();
    attr(m.node("MaxPool", {"x"}, {"y", "i"}, "/pool"), "kernel_shape", std::vector<int64_t>{2, 2});
    m.node("Neg", {"i"}, {"z"});
    m.output("z");
    add(node_case("uncomputed output read", m, "Neg", "'i' (output 1 of MaxPool node '/pool')"));
  }
  {
    Model m;
    m.input("x", {"n", "2"}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Tile", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("symbolic repeats", m, "Tile", "the repeats, input 1 'repeats' (value 's'),"));
  }
  {
    Model m;
    m.x().input("r", {"4"}, TensorProto::INT64).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("repeats from a graph input", m, "Tile", "input 1 'repeats' (value 'r')"));
  }
  {
    Model m;
    m.x().ints("k", {1, 2}).node("TopK", {"x", "k"}, {"v", "i"});
    m.output("v");
    add(node_case("K of two values", m, "TopK", "K, input 1 'K' (value 'k'), must hold one value"));
  }

  // ---- ops_elementwise.cpp ----
  {
    Model m;
    m.x();
    attr(m.node("Mod", {"x", "x"}, {"y"}), "fmod", int64_t{0});
    m.output("y");
    add(node_case("fmod 0 on floats", m, "Mod", "attribute 'fmod'"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{TensorProto::BFLOAT16});
    m.output("y");
    add(node_case("cast to bfloat16", m, "Cast", "attribute 'to' is bfloat16"));
  }
  {
    Model m;
    m.x().input("mode", {}, TensorProto::BOOL).node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout mode at run time", m, "Dropout", "input 2 'training_mode' (value 'mode')"));
  }
  {
    Model m;
    m.x().ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout in training", m, "Dropout", "input 2 'training_mode' (value 'mode') is true"));
  }
  {
    Model m;
    m.x().ints("mode", {1, 0}, {2}, TensorProto::BOOL);
    m.node("Dropout", {"x", "", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout mode of two values", m, "Dropout", "input 2 'training_mode' (value 'mode') is bool[2]"));
  }
  {
    Model m;
    m.x().input("r", {}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout ratio at run time", m, "Dropout", "input 1 'ratio' (value 'r')"));
  }
  {
    Model m;
    m.x().floats("r", {0.f, 0.f}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout ratio of two values", m, "Dropout", "input 1 'ratio' (value 'r') is f32[2]"));
  }
  {
    Model m;
    m.x().floats("r", {0.25f}, {}).ints("mode", {1}, {}, TensorProto::BOOL);
    m.node("Dropout", {"x", "r", "mode"}, {"y"});
    m.output("y");
    add(node_case("dropout in training with a ratio", m, "Dropout", "is true with a ratio of 0.25"));
  }
  {
    Model m;
    m.node("Constant", {}, {"y"});
    m.output("y");
    add(node_case("constant without a value", m, "Constant", "attribute holding the value"));
  }
  {
    Model m;
    auto* a = m.node("Constant", {}, {"y"})->add_attribute();
    a->set_name("sparse_value");
    a->set_type(AttributeProto::SPARSE_TENSOR);
    m.output("y");
    add(node_case("sparse constant", m, "Constant", "attribute 'sparse_value'"));
  }

  // ---- ops_index.cpp ----
  {
    Model m;
    m.x().ints("i", {0}, {1, 1, 1, 1});
    attr(m.node("GatherElements", {"x", "i"}, {"y"}), "axis", int64_t{5});
    m.output("y");
    add(node_case("gather_elements axis", m, "GatherElements", "attribute 'axis' is 5"));
  }
  {
    Model m;
    m.x();
    attr(m.node("ReduceMean", {"x"}, {"y"}), "axes", std::vector<int64_t>{1, -3});
    m.output("y");
    add(node_case("reduce axes twice", m, "ReduceMean", "attribute 'axes' is [1, -3]; expected distinct axes"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1});
    m.node("GatherElements", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_elements rank", m, "GatherElements", "input 1 'indices' (value 'i', i64[1]) has rank 1"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1, 1});
    attr(m.node("GatherND", {"x", "i"}, {"y"}), "batch_dims", int64_t{2});
    m.output("y");
    add(node_case("gather_nd batch_dims", m, "GatherND", "attribute 'batch_dims' is 2; expected 0 to 1"));
  }
  {
    Model m;
    m.x().ints("i", {0, 0}, {2, 1});
    attr(m.node("GatherND", {"x", "i"}, {"y"}), "batch_dims", int64_t{1});
    m.output("y");
    add(node_case("gather_nd batch sizes", m, "GatherND",
                  "batch dim 0 is 1 in input 0 'data' (value 'x', f32[1, 2, 4, 4]) and 2 in input 1 'indices'"));
  }
  {
    Model m;
    m.x().input("i", {"k"}, TensorProto::INT64).node("GatherND", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_nd symbolic coordinates", m, "GatherND", "input 1 'indices' (value 'i', i64[k])"));
  }
  {
    Model m;
    m.x().ints("i", {0, 0, 0, 0, 0}, {1, 5}).node("GatherND", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather_nd too many coordinates", m, "GatherND", "input 1 'indices' (value 'i', i64[1, 5]) has 5"));
  }
  {
    Model m;
    m.x().ints("k", {10}).node("TopK", {"x", "k"}, {"v", "i"});
    m.output("v");
    add(node_case("topk K past the dim", m, "TopK", "K, input 1 'K' (value 'k'), is 10"));
  }
  {
    Model m;
    m.input("x", {}).node("ArgMax", {"x"}, {"y"});
    m.output("y");
    add(node_case("argmax of a scalar", m, "ArgMax", "input 0 'data' (value 'x', f32[]) is a scalar"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1, 1}).floats("u", std::vector<float>(32, 0), {2, 4, 4});
    attr(m.node("ScatterND", {"x", "i", "u"}, {"y"}), "reduction", "add");
    m.output("y");
    add(node_case("scatter_nd reduction", m, "ScatterND", "attribute 'reduction' is 'add'"));
  }
  {
    Model m;
    m.x().ints("i", {0}, {1, 1}).floats("u", std::vector<float>(32, 0), {1, 2, 4, 4});
    m.node("ScatterND", {"x", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd on run-time data", m, "ScatterND", "the data, input 0 'data' (value 'x'),"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0}, {}).floats("u", {0, 0}, {2});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd scalar indices", m, "ScatterND", "input 1 'indices' (value 'i', i64[]) is a scalar"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0, 0, 0}, {1, 3}).floats("u", {0}, {1});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd too many coordinates", m, "ScatterND", "input 1 'indices' (value 'i', i64[1, 3]) has 3"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {0}, {1, 1}).floats("u", {0, 0, 0}, {1, 3});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd updates of another shape", m, "ScatterND", "input 2 'updates' (value 'u', f32[1, 3])"));
  }
  {
    Model m;
    m.weight("d", {2, 2}).ints("i", {5}, {1, 1}).floats("u", {0, 0}, {1, 2});
    m.node("ScatterND", {"d", "i", "u"}, {"y"});
    m.output("y");
    add(node_case("scatter_nd index out of range", m, "ScatterND", "input 1 'indices' (value 'i', i64[1, 1]) holds"));
  }

  // ---- ops_nn.cpp ----
  auto conv = [](const std::vector<int64_t>& w = {2, 2, 1, 1}) {
    Model m;
    m.x().weight("w", w);
    m.node("Conv", {"x", "w"}, {"y"});
    m.output("y");
    return m;
  };
  auto pool = [](const std::string& op, const std::vector<int64_t>& kernel = {2, 2}) {
    Model m;
    m.x();
    attr(m.node(op, {"x"}, {"y"}), "kernel_shape", kernel);
    m.output("y");
    return m;
  };
  {
    Model m = conv();
    attr(t_node(m), "strides", std::vector<int64_t>{0, 0});
    add(node_case("conv strides 0", m, "Conv", "attribute 'strides' is [0, 0]"));
  }
  {
    Model m;
    m.input("a", {"1", "2", "3", "4"}).weight("b", {4, 4}).node("Gemm", {"a", "b"}, {"y"});
    m.output("y");
    add(node_case("gemm of rank 4", m, "Gemm", "input 0 'A' (value 'a', f32[1, 2, 3, 4]) has rank 4"));
  }
  {
    Model m = conv();
    attr(t_node(m), "auto_pad", "SAME");
    add(node_case("auto_pad SAME", m, "Conv", "attribute 'auto_pad' is 'SAME'"));
  }
  {
    Model m = conv();
    attr(t_node(m), "strides", std::vector<int64_t>{1});
    add(node_case("strides for one dim", m, "Conv", "attribute 'strides' is [1]; expected 2 entries"));
  }
  {
    Model m = conv();
    attr(t_node(m), "auto_pad", "VALID");
    attr(t_node(m), "pads", std::vector<int64_t>{0, 0, 0, 0});
    add(node_case("pads with auto_pad", m, "Conv", "attribute 'pads' is given with attribute 'auto_pad'"));
  }
  {
    // SAME: outputs 4 * 4; stride 4 and a 1x1 kernel give 13 unpadded,
    // which would need a begin pad of -2.
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "auto_pad", "SAME_UPPER");
    attr(n, "strides", std::vector<int64_t>{4, 4});
    m.output("y");
    add(node_case("conv_transpose SAME", m, "ConvTranspose",
                  "attribute 'auto_pad' SAME_UPPER needs pads -2 and -1 in spatial dim 0"));
  }
  {
    Model m;
    m.x().input("w", {"2", "2", "k", "1"});
    attr(m.node("Conv", {"x", "w"}, {"y"}), "auto_pad", "SAME_UPPER");
    m.output("y");
    add(node_case("SAME with a symbolic kernel", m, "Conv",
                  "attribute 'auto_pad' SAME_UPPER is not supported without static kernel sizes"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "h", "4"}).weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "auto_pad", "SAME_LOWER");
    m.output("y");
    add(node_case("conv_transpose SAME of a symbolic size", m, "ConvTranspose",
                  "attribute 'auto_pad' SAME_LOWER needs static spatial sizes, got input 0 'X' (value 'x', "
                  "f32[1, 2, h, 4])"));
  }
  {
    Model m;
    m.x().input("w", {"2", "2", "k", "1"});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{4, 4});
    m.output("y");
    add(node_case("conv_transpose output_shape of a symbolic kernel", m, "ConvTranspose",
                  "attribute 'output_shape' [4, 4] needs static kernel sizes, got input 1 'W' (value 'w', "
                  "f32[2, 2, k, 1])"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{4});
    m.output("y");
    add(node_case("conv_transpose output_shape for one dim", m, "ConvTranspose",
                  "attribute 'output_shape' [4] has 1 entries; expected 2"));
  }
  {
    // 5 rows from 4 with stride 1: an output padding of 1, not below the stride.
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{5, 4});
    m.output("y");
    add(node_case("conv_transpose output_shape too large", m, "ConvTranspose",
                  "attribute 'output_shape' [5, 4] is 1 larger than the output in spatial dim 0"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "h", "4"});
    auto* n = m.node("MaxPool", {"x"}, {"y"});
    attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(n, "auto_pad", "SAME_UPPER");
    m.output("y");
    add(node_case("SAME on a symbolic size", m, "MaxPool", "attribute 'auto_pad' SAME_UPPER needs static"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "3", "3", "3", "3"}).weight("w", {2, 2, 1, 1, 1, 1}).node("Conv", {"x", "w"}, {"y"});
    m.output("y");
    add(node_case("conv 4-d", m, "Conv", "input 0 'X' (value 'x', f32[1, 2, 3, 3, 3, 3]) has rank 6"));
  }
  add(node_case("conv weight rank", conv({2, 2, 1}), "Conv", "input 1 'W' (value 'w', f32[2, 2, 1]) has rank 3"));
  {
    Model m = conv();
    attr(t_node(m), "kernel_shape", std::vector<int64_t>{1});
    add(node_case("kernel_shape for one dim", m, "Conv", "attribute 'kernel_shape' is [1]; expected 2 entries"));
  }
  {
    Model m = conv();
    attr(t_node(m), "kernel_shape", std::vector<int64_t>{3, 3});
    add(node_case("kernel_shape not the weight's", m, "Conv", "attribute 'kernel_shape' is [3, 3]"));
  }
  {
    Model m = conv();
    attr(t_node(m), "group", int64_t{0});
    add(node_case("group 0", m, "Conv", "attribute 'group' is 0"));
  }
  {
    Model m = conv({3, 1, 1, 1});
    attr(t_node(m), "group", int64_t{3});
    add(node_case("group not dividing the channels", m, "Conv", "attribute 'group' is 3, which does not divide the 2"));
  }
  {
    Model m = conv({2, 2, 1, 1});
    attr(t_node(m), "group", int64_t{2});
    add(node_case("weight channels per group", m, "Conv", "input 1 'W' (value 'w', f32[2, 2, 1, 1]) has 2 input"));
  }
  {
    Model m = conv({3, 1, 1, 1});
    attr(t_node(m), "group", int64_t{2});
    add(node_case("group not dividing the outputs", m, "Conv", "the 3 output channels of input 1 'W'"));
  }
  {
    Model m = pool("MaxPool", {2147483648, 2});
    attr(t_node(m), "auto_pad", "SAME_UPPER");
    attr(t_node(m), "dilations", std::vector<int64_t>{2, 1});
    add(node_case("SAME padding past the limit", m, "MaxPool",
                  "attribute 'auto_pad' SAME_UPPER needs 4294967294 pads"));
  }
  add(node_case("pool kernel for one dim", pool("MaxPool", {2}), "MaxPool", "attribute 'kernel_shape' is [2]"));
  {
    Model m = pool("AveragePool");
    attr(t_node(m), "pads", std::vector<int64_t>{2, 0, 0, 0});
    add(node_case("pool pads of the kernel", m, "AveragePool", "attribute 'pads' is [2, 0, 0, 0]"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{8, 8});
    m.output("y");
    add(node_case("conv_transpose output_shape", m, "ConvTranspose", "attribute 'output_shape'"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_padding", std::vector<int64_t>{1});
    m.output("y");
    add(node_case("output_padding for one dim", m, "ConvTranspose", "attribute 'output_padding' is [1]"));
  }
  {
    Model m;
    m.input("x", {"2", "3"}).node("GlobalAveragePool", {"x"}, {"y"});
    m.output("y");
    add(node_case("global pool of rank 2", m, "GlobalAveragePool", "input 0 'X' (value 'x', f32[2, 3]) has rank 2"));
  }
  {
    Model m;
    m.x().floats("s", {1, 1}).floats("b", {0, 0});
    attr(m.node("BatchNormalization", {"x", "s", "b", "s", "s"}, {"y"}), "training_mode", int64_t{1});
    m.output("y");
    add(node_case("batch norm training", m, "BatchNormalization", "attribute 'training_mode' is 1"));
  }
  {
    Model m;
    m.x().floats("s", {1, 1, 1, 1});
    attr(m.node("LayerNormalization", {"x", "s"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("layer norm axis", m, "LayerNormalization", "attribute 'axis' is 4"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Softmax", {"x"}, {"y"}), "axis", int64_t{-5});
    m.output("y");
    add(node_case("softmax axis", m, "Softmax", "attribute 'axis' is -5"));
  }
  auto resize = [](const std::vector<std::string>& ins) {
    Model m;
    m.x().node("Resize", ins, {"y"});
    m.output("y");
    return m;
  };
  auto resize_attr = [&](const std::string& label, const char* name, const char* value, const char* expect) {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 2, 2});
    if (std::string(name) != "mode") attr(t_node(m), "mode", "linear");
    attr(t_node(m), name, value);
    add(node_case(label, m, "Resize", expect));
  };
  resize_attr("resize mode", "mode", "bicubic", "attribute 'mode' is 'bicubic'; expected nearest, linear or cubic");
  resize_attr("resize coordinate mode", "coordinate_transformation_mode", "center",
              "attribute 'coordinate_transformation_mode' is 'center'; expected half_pixel");
  resize_attr("resize nearest mode", "nearest_mode", "round", "attribute 'nearest_mode' is 'round'; expected");
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 2, 2});
    attr(t_node(m), "mode", "cubic");
    attr(t_node(m), "exclude_outside", int64_t{2});
    add(node_case("resize exclude_outside", m, "Resize", "attribute 'exclude_outside' is 2; expected 0 or 1"));
  }
  // Opset 18's attributes.
  auto resize18 = [](const std::vector<std::string>& ins) {
    Model m(18);
    m.x().node("Resize", ins, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {2});
    attr(t_node(m), "axes", std::vector<int64_t>{4});
    add(node_case("resize axes out of range", m, "Resize", "attribute 'axes' is [4]; expected axes in [-4, 3]", 18));
  }
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {2, 2});
    attr(t_node(m), "axes", std::vector<int64_t>{2, -2});
    add(node_case("resize an axis twice", m, "Resize", "attribute 'axes' is [2, -2]; expected each axis once", 18));
  }
  {
    Model m = resize18({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, 8, 8});
    attr(t_node(m), "keep_aspect_ratio_policy", "fit");
    add(node_case("resize aspect policy", m, "Resize", "attribute 'keep_aspect_ratio_policy' is 'fit'", 18));
  }
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {1, 1, 0.5f, 0.5f});
    attr(t_node(m), "mode", "linear");
    attr(t_node(m), "antialias", int64_t{3});
    add(node_case("resize antialias", m, "Resize", "attribute 'antialias' is 3; expected 0 or 1", 18));
  }
  {
    Model m = resize({"x", "", "scales", "sizes"});
    m.floats("scales", {1, 1, 2, 2}).ints("sizes", {1, 2, 8, 8});
    add(node_case("resize scales and sizes", m, "Resize", "both the scales, input 2 'scales', and the sizes"));
  }
  add(node_case("resize without scales or sizes", resize({"x"}), "Resize",
                "neither the scales, input 2 'scales', nor the sizes, input 3 'sizes', are given"));
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {8, 8});
    add(node_case("resize sizes count", m, "Resize", "the sizes, input 3 'sizes', are [8, 8]; expected 4 sizes"));
  }
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, -8, 8});
    add(node_case("resize negative size", m, "Resize",
                  "the sizes, input 3 'sizes', are [1, 2, -8, 8]; expected sizes in"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.input("scales", {"4"});
    add(node_case("resize scales at run time", m, "Resize", "the scales, input 2 'scales',"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {2, 2});
    add(node_case("resize scales count", m, "Resize", "the scales, input 2 'scales', are [2, 2]; expected 4 scales"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 0, 2});
    add(node_case("resize scale of 0", m, "Resize", "the scales, input 2 'scales', are [1, 1, 0, 2]; expected finite"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 1e9f, 1});
    add(node_case("resize to a huge size", m, "Resize", "the scales, input 2 'scales', give axis 2 of"));
  }
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize tf_crop_and_resize without roi", m, "Resize",
                  "attribute 'coordinate_transformation_mode' is tf_crop_and_resize, but the roi, input 1 'roi'"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.input("roi", {"8"}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi at run time", m, "Resize", "the roi, input 1 'roi',"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.floats("roi", {0, 1}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi count", m, "Resize", "the roi, input 1 'roi', is [0, 1]; expected 8 values"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.floats("roi", {0, 0, 0, 0, 1, 1, 1, std::numeric_limits<float>::infinity()}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi not finite", m, "Resize", "the roi, input 1 'roi', is [0, 0, 0, 0, 1, 1, 1, inf]"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "4", "4"}, TensorProto::DOUBLE).floats("scales", {1, 1, 2, 2});
    m.node("Resize", {"x", "", "scales"}, {"y"});
    m.output("y");
    add(node_case("resize of doubles", m, "Resize",
                  "(value 'x', f64[1, 2, 4, 4]) is of type f64; expected f32 or f16 (the types the resize kernels"));
  }

  // ---- graph input dims from the options (input_dims.cpp) ----
  {
    auto relu = [](const std::vector<std::string>& dims) {
      Model m;
      m.input("x", dims).node("Relu", {"x"}, {"y"});
      m.output("y");
      return m;
    };
    auto shapes = [](std::vector<int64_t> dims, bool max = false, const std::string& input = "x") {
      OnnxImportOptions o;
      (max ? o.input_max_shapes : o.input_shapes)[input] = std::move(dims);
      return o;
    };
    add(graph_case("--shape of no input", relu({"1", "2"}), {"--shape nope=1 (input_shapes) names 'nope'", "'x'"},
                   shapes({1}, false, "nope")));
    add(graph_case("--shape rank", relu({"1", "2"}), {"--shape x=1 gives 1 dims; graph input 'x' has rank 2"},
                   shapes({1})));
    add(graph_case("--shape negative", relu({"1", "?"}), {"dim 1 of graph input 'x' the negative size -3"},
                   shapes({1, -3})));
    add(graph_case("--shape against the model", relu({"1", "2"}),
                   {"--shape x=1x5 gives dim 1 of graph input 'x' the size 5, but the model fixes it to 2"},
                   shapes({1, 5})));
    add(graph_case("--max-shape below the model", relu({"1", "2"}),
                   {"--max-shape x=1x1 gives dim 1 of graph input 'x' the bound 1, but the model fixes it to 2"},
                   shapes({1, 1}, true)));
    add(graph_case("--shape of a named dim twice", relu({"n", "n"}),
                   {"dim 1 of graph input 'x' ('n') the size 2, but --shape x=1x2 gives it 1"}, shapes({1, 2})));
  }

  // ---- operators of opsets past 17 (ops_newer.cpp, ops_shape.cpp) ----
  {
    Model m(20);
    attr(m.x().node("Gelu", {"x"}, {"y"}), "approximate", "erf");
    m.output("y");
    add(node_case("gelu approximate", m, "Gelu", "attribute 'approximate' is 'erf'; expected none or tanh", 20));
  }
  auto group_norm = [](const std::vector<std::string>& x_dims, int64_t groups, int64_t params) {
    Model m(18);
    m.input("x", x_dims).weight("s", {params}).weight("b", {params});
    attr(m.node("GroupNormalization", {"x", "s", "b"}, {"y"}), "num_groups", groups);
    m.output("y");
    return m;
  };
  add(node_case("group norm rank", group_norm({"1", "2"}, 1, 1), "GroupNormalization",
                "input 0 'X' (value 'x', f32[1, 2]) has rank 2; expected (N, C, ...)", 18));
  add(node_case("group norm symbolic channels", group_norm({"1", "c", "4"}, 1, 1), "GroupNormalization",
                "the channel dim c of input 0 'X'", 18));
  add(node_case("group norm groups", group_norm({"1", "6", "4"}, 4, 4), "GroupNormalization",
                "attribute 'num_groups' is 4; expected a divisor of the 6 channels", 18));
  add(node_case("group norm scale per group", group_norm({"1", "6", "4"}, 3, 6), "GroupNormalization",
                "input 1 'scale' (value 's', f32[6]) has shape f32[6]; expected [3] (one per group at opset 18)", 18));
  {
    Model m(23);
    m.x().weight("s", {4});
    attr(m.node("RMSNormalization", {"x", "s"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("rms norm axis", m, "RMSNormalization", "attribute 'axis' is 4; expected an axis in [-4, 3]", 23));
  }
  {
    Model m(23);
    m.x().input("s", {"4"}, TensorProto::FLOAT16).node("RMSNormalization", {"x", "s"}, {"y"});
    m.output("y");
    add(node_case("rms norm scale type", m, "RMSNormalization",
                  "input 1 'scale' (value 's', f16[4]) has another element type than input 0 'X'", 23));
  }
  {
    Model m(18);
    m.x().ints("pads", {1, 1, 1}).ints("axes", {1, 2}).node("Pad", {"x", "pads", "", "axes"}, {"y"});
    m.output("y");
    add(node_case("pad pads for the axes", m, "Pad",
                  "the pads, input 1 'pads', are [1, 1, 1]; expected 4 (begins, then ends, for each of the axes [1, "
                  "2])",
                  18));
  }
  auto split18 = [](const std::vector<std::string>& x_dims, int64_t num, int outputs) {
    Model m(18);
    std::vector<std::string> outs;
    for (int i = 0; i < outputs; ++i) outs.push_back("o" + std::to_string(i));
    m.input("x", x_dims);
    auto* n = m.node("Split", {"x"}, outs);
    attr(n, "num_outputs", num);
    attr(n, "axis", int64_t{1});
    m.output("o0");
    return m;
  };
  add(node_case("split num_outputs count", split18({"1", "6"}, 3, 2), "Split",
                "attribute 'num_outputs' is 3; expected 2, the number of outputs", 18));
  add(node_case("split num_outputs symbolic", split18({"1", "n"}, 2, 2), "Split",
                "cannot split the symbolic dim n of input 0 'input'", 18));
  add(node_case("split num_outputs too small", split18({"1", "4"}, 3, 3), "Split",
                "has size 4, too small for 3 parts of 2 (num_outputs)", 18));
  {
    Model m(11);
    attr(m.x().node("Softmax", {"x"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("old softmax axis", m, "Softmax", "attribute 'axis' is 4; expected an axis in [-4, 3]", 11));
  }

  // ---- ops_shape.cpp ----
  {
    Model m;
    m.x();
    attr(m.node("Split", {"x"}, {"a", "b"}), "axis", int64_t{7});
    m.output("a");
    add(node_case("split axis", m, "Split", "attribute 'axis' is 7"));
  }
  {
    Model m;
    m.x().ints("axes", {0, -4}).node("Squeeze", {"x", "axes"}, {"y"});
    m.output("y");
    add(node_case("squeeze axes twice", m, "Squeeze", "the axes, input 1 'axes', is [0, -4]; expected distinct"));
  }
  {
    Model m;
    m.x().ints("shape", std::vector<int64_t>(9, 1)).node("Expand", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("expand to rank 9", m, "Expand", "the target shape, input 1 'shape', has 9 sizes"));
  }
  {
    Model m;
    m.ints("shape", {-2}).node("ConstantOfShape", {"shape"}, {"y"});
    m.output("y");
    add(node_case("constant of a negative shape", m, "ConstantOfShape", "the shape, input 0 'input' (value 'shape'),"));
  }
  {
    Model m;
    m.input("x", {"n"}).ints("two", {2}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Mul", {"s", "two"}, {"s2"}, "/mul");
    m.node("Expand", {"x", "s2"}, {"y"});
    m.output("y");
    add(node_case("expand to a computed size", m, "Expand", "the target shape, input 1 'shape' (value 's2'),"));
  }
  {
    Model m;
    m.x().ints("i", {5}, {}).node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Gather", {"s", "i"}, {"y"});
    m.output("y");
    add(node_case("gather past a shape", m, "Gather", "input 1 'indices' (value 'i') holds the index 5"));
  }
  {
    Model m;
    m.x().input("shape", {"2"}, TensorProto::INT64).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape to a run-time shape", m, "Reshape", "the target shape, input 1 'shape',"));
  }
  {
    Model m;
    m.x().ints("shape", {-1, -1}).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape with two -1", m, "Reshape", "the target shape, input 1 'shape', is [-1, -1]"));
  }
  {
    Model m;
    m.x().ints("shape", {1, 2, 4, 4, 0}).node("Reshape", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("reshape copying a dim past the rank", m, "Reshape", "whose 0 at index 4"));
  }
  {
    Model m;
    m.input("x", {"n", "m"}).ints("flat", {-1}).node("Reshape", {"x", "flat"}, {"f"}, "/flat");
    m.node("Shape", {"x"}, {"s"}, "/shape");
    m.node("Reshape", {"f", "s"}, {"y"});
    m.output("y");
    add(node_case("reshape with two symbolic sizes", m, "Reshape", "the target shape, input 1 'shape' (value 's'):"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Flatten", {"x"}, {"y"}), "axis", int64_t{5});
    m.output("y");
    add(node_case("flatten axis", m, "Flatten", "attribute 'axis' is 5"));
  }
  {
    Model m;
    m.x().ints("axes", {0, 1, 2, 3, 4}).node("Unsqueeze", {"x", "axes"}, {"y"});
    m.output("y");
    add(node_case("unsqueeze to rank 9", m, "Unsqueeze", "the axes, input 1 'axes', add 5 dims"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{-1, 0, 1, 2});
    m.output("y");
    add(node_case("transpose perm", m, "Transpose", "attribute 'perm' is [-1, 0, 1, 2]"));
  }
  {
    Model m;
    m.x().input("shape", {"4"}, TensorProto::INT64).node("Expand", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("expand to a run-time shape", m, "Expand", "the target shape, input 1 'shape',"));
  }
  {
    Model m;
    m.x().ints("r", {1, 2}).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("tile repeats count", m, "Tile", "the repeats, input 1 'repeats' (value 'r'), are [1, 2]"));
  }
  {
    Model m;
    m.x().ints("r", {1, -1, 1, 1}).node("Tile", {"x", "r"}, {"y"});
    m.output("y");
    add(node_case("tile negative repeats", m, "Tile", "the repeats, input 1 'repeats' (value 'r'), are [1, -1"));
  }
  auto pad = [](const std::vector<int64_t>& pads, const std::vector<std::string>& extra = {}) {
    Model m;
    std::vector<std::string> ins = {"x", "p"};
    ins.insert(ins.end(), extra.begin(), extra.end());
    m.x().ints("p", pads).node("Pad", ins, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = pad(std::vector<int64_t>(8, 0));
    attr(t_node(m), "mode", "wrap");
    add(node_case("pad mode", m, "Pad", "attribute 'mode' is 'wrap'"));
  }
  add(node_case("pad count", pad({1, 1}), "Pad", "the pads, input 1 'pads' (value 'p'), are [1, 1]"));
  {
    Model m = pad(std::vector<int64_t>(8, 0), {"v"});
    m.input("v", {});
    add(node_case("pad value at run time", m, "Pad", "the pad value, input 2 'constant_value' (value 'v'),"));
  }
  {
    Model m = pad(std::vector<int64_t>(8, 0), {"v"});
    m.floats("v", {1, 2});
    add(node_case("pad value of two", m, "Pad", "the pad value, input 2 'constant_value' (value 'v'), is f32[2]"));
  }
  {
    Model m;
    m.input("a", {}).input("b", {}).node("Concat", {"a", "b"}, {"y"});
    attr(t_node(m), "axis", int64_t{0});
    m.output("y");
    add(node_case("concat of scalars", m, "Concat", "input 0 'inputs' (value 'a', f32[]) is a scalar"));
  }
  auto split = [](const std::vector<std::string>& outs) {
    Model m;
    m.x();
    attr(m.node("Split", {"x", "s"}, outs), "axis", int64_t{1});
    m.output(outs[0]);
    return m;
  };
  {
    Model m = split({"a", "b"});
    m.ints("s", {1, 1, 0});
    add(node_case("split sizes count", m, "Split", "the split sizes, input 1 'split' (value 's'), are [1, 1, 0]"));
  }
  {
    Model m = split({"a", "b"});
    m.ints("s", {3, -1});
    add(node_case("split negative size", m, "Split", "the split sizes, input 1 'split' (value 's'), are [3, -1]"));
  }
  {
    Model m = split({"a", "b"});
    m.ints("s", {1, 2});
    add(node_case("split sizes sum", m, "Split", "are [1, 2], summing to 3"));
  }
  {
    Model m;
    m.input("x", {"n", "2"});
    m.node("Split", {"x"}, {"a", "b"});
    m.output("a");
    add(node_case("split a symbolic dim", m, "Split", "cannot split the symbolic dim n of input 0 'input'"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Split", {"x"}, {"a", "b", "c"}), "axis", int64_t{2});
    m.output("a");
    add(node_case("split into unequal parts", m, "Split", "dim 2 of input 0 'input' (value 'x', f32[1, 2, 4, 4])"));
  }
  auto slice = [](const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
    Model m;
    m.x().ints("starts", {0}).ints("ends", {1}).ints("axes", axes).ints("steps", steps);
    m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("slice axes count", slice({0, 1}, {1}), "Slice",
                "input 3 'axes' is [0, 1]; expected as many entries as input 1 'starts'"));
  add(node_case("slice step 0", slice({0}, {0}), "Slice", "the steps, input 4 'steps', are [0]"));
  {
    Model m;
    m.input("shape", {"2"}, TensorProto::INT64).node("ConstantOfShape", {"shape"}, {"y"});
    m.output("y");
    add(node_case("constant of a run-time shape", m, "ConstantOfShape", "the shape, input 0 'input' (value 'shape'),"));
  }
  {
    Model m;
    m.ints("shape", {2});
    attr_tensor(m.node("ConstantOfShape", {"shape"}, {"y"}), "value", 2);
    m.output("y");
    add(node_case("constant of shape with two values", m, "ConstantOfShape", "attribute 'value' is f32[2]"));
  }
  auto range = [](Model m) {
    m.node("Range", {"start", "limit", "delta"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m;
    m.ints("start", {0, 1}).ints("limit", {5}, {}).ints("delta", {1}, {});
    add(node_case("range start of two", range(m), "Range", "input 0 'start' (i64[2]) is not a scalar"));
  }
  {
    Model m;
    m.ints("start", {0}, {}).ints("limit", {5}, {}).ints("delta", {0}, {});
    add(node_case("range step 0", range(m), "Range", "input 2 'delta' is 0"));
  }
  {
    Model m;
    m.ints("start", {0}, {}).input("limit", {}, TensorProto::INT64).ints("delta", {1}, {});
    add(node_case("range to a run-time limit", range(m), "Range", "input 1 'limit'"));
  }
  {
    Model m;
    // Expand's shape function leaves the size to the verifier (ConstantOfShape's refuses it).
    m.input("x", {"1"}).ints("shape", {int64_t{1} << 32, int64_t{1} << 32});
    m.node("Expand", {"x", "shape"}, {"c"}, "/big");
    m.node("Size", {"c"}, {"y"});
    m.output("y");
    add(node_case("size past int64", m, "Size", "input 0 'data' (value 'c', f32[4294967296, 4294967296]) has more"));
  }
  {
    Model m;
    m.input("x", {}).ints("i", {0}, {}).node("Gather", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather of a scalar", m, "Gather", "input 0 'data' (value 'x', f32[]) is a scalar"));
  }
  {
    Model m;
    m.x().ints("i", {2}, {}).node("Gather", {"x", "i"}, {"y"});
    m.output("y");
    add(node_case("gather index out of range", m, "Gather", "input 1 'indices' (value 'i') holds the index 2"));
  }

  // ---- ops_newer.cpp and ops_transformer.cpp (opsets 18 and 23) ----
  {
    Model m(18);
    m.input("x", {"2", "4", "6"}).ints("shape", {2, 2});
    attr(m.node("CenterCropPad", {"x", "shape"}, {"y"}), "axes", std::vector<int64_t>{1, -2});
    m.output("y");
    add(node_case("centercroppad repeated axis", m, "CenterCropPad", "attribute 'axes' is [1, -2]", 18));
  }
  {
    Model m(18);
    m.input("x", {"2", "4", "6"}).ints("shape", {2, 2});
    m.node("CenterCropPad", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("centercroppad shape count", m, "CenterCropPad", "the shape, input 1 'shape', is [2, 2]; expected 3",
                  18));
  }
  {
    Model m(18);
    m.input("x", {"n", "4"}).ints("shape", {2, 2});
    m.node("CenterCropPad", {"x", "shape"}, {"y"});
    m.output("y");
    add(node_case("centercroppad of a symbolic dim", m, "CenterCropPad", "axis 0 of input 0 'input_data'", 18));
  }
  // RotaryEmbedding of x with cos and sin caches (without position_ids).
  auto rotary = [](const std::vector<std::string>& x, const std::vector<std::string>& cache) {
    Model m(23);
    m.input("x", x).input("c", cache).input("s", cache);
    m.node("RotaryEmbedding", {"x", "c", "s"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("rotary of rank 2", rotary({"2", "8"}, {"2", "4"}), "RotaryEmbedding",
                "input 0 'X' (value 'x', f32[2, 8]) has rank 2", 23));
  add(node_case("rotary head size symbolic", rotary({"1", "2", "5", "d"}, {"1", "5", "4"}), "RotaryEmbedding",
                "the last dim d of input 0 'X'", 23));
  add(node_case("rotary 3-D without num_heads", rotary({"1", "5", "8"}, {"1", "5", "2"}), "RotaryEmbedding",
                "attribute 'num_heads' is absent", 23));
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "num_heads", int64_t{3});
    add(node_case("rotary num_heads of a 4-D input", m, "RotaryEmbedding",
                  "attribute 'num_heads' is 3; expected the heads dim 2", 23));
  }
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "interleaved", int64_t{2});
    add(node_case("rotary interleaved 2", m, "RotaryEmbedding", "attribute 'interleaved' is 2", 23));
  }
  {
    Model m = rotary({"1", "2", "5", "8"}, {"1", "5", "4"});
    attr(t_node(m), "rotary_embedding_dim", int64_t{3});
    add(node_case("rotary odd rotary dim", m, "RotaryEmbedding", "attribute 'rotary_embedding_dim' is 3", 23));
  }
  add(node_case("rotary cache shape", rotary({"1", "2", "5", "8"}, {"1", "5", "3"}), "RotaryEmbedding",
                "input 1 'cos_cache' (value 'c') has shape f32[1, 5, 3]", 23));
  {
    Model m(23);
    m.input("x", {"1", "2", "5", "8"}).input("c", {"9", "4"}).input("s", {"9", "4"});
    m.input("p", {"5"}, TensorProto::INT64).node("RotaryEmbedding", {"x", "c", "s", "p"}, {"y"});
    m.output("y");
    add(node_case("rotary position_ids of rank 1", m, "RotaryEmbedding", "input 3 'position_ids' (value 'p', i64[5])",
                  23));
  }
  {
    Model m = rotary({"b", "s", "8"}, {"b", "s", "2"});
    attr(t_node(m), "num_heads", int64_t{2});
    add(node_case("rotary 3-D of symbolic batch and sequence", m, "RotaryEmbedding",
                  "cannot split input 0 'X' (value 'x', f32[b, s, 8]) into 2 heads", 23));
  }
  // Attention of q, k and v (and optional inputs by name).
  auto attention = [](const std::vector<std::string>& q, const std::vector<std::string>& kv,
                      const std::vector<std::string>& more = {}) {
    Model m(23);
    m.input("q", q).input("k", kv).input("v", kv);
    std::vector<std::string> ins = {"q", "k", "v"};
    ins.insert(ins.end(), more.begin(), more.end());
    m.node("Attention", ins, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("attention of rank 2", attention({"2", "8"}, {"2", "8"}), "Attention",
                "input 0 'Q' (value 'q', f32[2, 8]) has rank 2", 23));
  add(node_case("attention ranks differ", attention({"1", "2", "3", "8"}, {"1", "3", "16"}), "Attention",
                "input 1 'K' (value 'k', f32[1, 3, 16]) is not of the rank", 23));
  add(node_case("attention 3-D without heads", attention({"1", "3", "16"}, {"1", "3", "16"}), "Attention",
                "attribute 'q_num_heads' is absent", 23));
  add(node_case("attention symbolic heads", attention({"1", "h", "3", "8"}, {"1", "h", "3", "8"}), "Attention",
                "the heads dims of input 0 'Q'", 23));
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "q_num_heads", int64_t{5});
    add(node_case("attention q_num_heads of 4-D inputs", m, "Attention", "attribute 'q_num_heads' is 5; expected 2",
                  23));
  }
  add(node_case("attention heads not grouped", attention({"1", "3", "3", "8"}, {"1", "2", "3", "8"}), "Attention",
                "the 3 query heads are not a multiple of the 2 key/value heads", 23));
  {
    Model m = attention({"1", "3", "10"}, {"1", "3", "10"});
    attr(t_node(m), "q_num_heads", int64_t{3});
    attr(t_node(m), "kv_num_heads", int64_t{3});
    add(node_case("attention hidden not a multiple", m, "Attention", "the hidden size 10 of input 0 'Q'", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"", "pk"});
    m.input("pk", {"1", "2", "4", "8"});
    add(node_case("attention past_key alone", m, "Attention", "past_key, input 4 'past_key' (value 'pk'), and", 23));
  }
  add(node_case("attention symbolic head size", attention({"1", "2", "3", "d"}, {"1", "2", "3", "d"}), "Attention",
                "the head size of input 0 'Q' (value 'q', f32[1, 2, 3, d]) is symbolic", 23));
  {
    Model m(23);
    m.input("q", {"1", "2", "3", "8"}).input("k", {"1", "2", "3", "8"}).input("v", {"1", "2", "3", "8"});
    attr(m.node("Attention", {"q", "k", "v"}, {"y", "", "", "qk"}), "qk_matmul_output_mode", int64_t{1});
    m.output("y").output("qk");
    add(node_case("attention qk_matmul_output_mode 1", m, "Attention", "attribute 'qk_matmul_output_mode' is 1", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"mask"});
    m.input("mask", {"3", "3"}, TensorProto::INT32);
    add(node_case("attention integer mask", m, "Attention",
                  "input 3 'attn_mask' (value 'mask', i32[3, 3]) has element type i32; expected bool or f32", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"}, {"mask"});
    m.input("mask", {"3", "3", "3"}, TensorProto::BOOL);
    add(node_case("attention mask of other heads", m, "Attention",
                  "input 3 'attn_mask' (value 'mask', bool[3, 3, 3]) does not broadcast to f32[1, 2, 3, 3]", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "is_causal", int64_t{2});
    add(node_case("attention is_causal 2", m, "Attention", "attribute 'is_causal' is 2", 23));
  }
  {
    Model m(23);
    m.input("q", {"1", "2", "3", "8"}).input("k", {"1", "2", "3", "8"}).input("v", {"1", "2", "3", "8"});
    m.input("pk", {"1", "2", "p", "8"}).input("pv", {"1", "2", "p", "8"});
    attr(m.node("Attention", {"q", "k", "v", "", "pk", "pv"}, {"y", "pko", "pvo"}), "is_causal", int64_t{1});
    m.output("y");
    add(node_case("attention causal of a symbolic past", m, "Attention", "the past sequence dim p of input 4", 23));
  }
  {
    Model m = attention({"1", "2", "3", "8"}, {"1", "2", "3", "8"});
    attr(t_node(m), "softmax_precision", int64_t{11});
    add(node_case("attention softmax in double", m, "Attention", "attribute 'softmax_precision' is 11", 23));
  }

  // ---- ops_loss.cpp, and Hardmax before opset 13 (opsets.cpp) ----
  auto nll = [](const std::string& op, const std::vector<std::string>& x, const std::vector<std::string>& t) {
    Model m;
    m.input("x", x).input("t", t, TensorProto::INT64).node(op, {"x", "t"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = nll("NegativeLogLikelihoodLoss", {"2", "3"}, {"2"});
    attr(t_node(m), "reduction", "max");
    add(node_case("nll reduction", m, "NegativeLogLikelihoodLoss",
                  "attribute 'reduction' is 'max'; expected 'none', 'sum' or 'mean'"));
  }
  add(node_case("nll input rank 1", nll("NegativeLogLikelihoodLoss", {"3"}, {}), "NegativeLogLikelihoodLoss",
                "input 0 'input' (value 'x', f32[3]) has rank 1; expected rank >= 2"));
  add(node_case("nll target rank", nll("NegativeLogLikelihoodLoss", {"2", "3"}, {"2", "1"}),
                "NegativeLogLikelihoodLoss", "input 1 'target' (value 't', i64[2, 1]) has rank 2; expected rank 1"));
  add(node_case("sce scores rank 1", nll("SoftmaxCrossEntropyLoss", {"3"}, {}), "SoftmaxCrossEntropyLoss",
                "input 0 'scores' (value 'x', f32[3]) has rank 1; expected rank >= 2"));
  {
    Model m;
    attr(m.x().node("Hardmax", {"x"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("hardmax axis", m, "Hardmax", "attribute 'axis' is 4; expected an axis in [-4, 3]"));
  }
  {
    Model m(11);
    attr(m.x().node("Hardmax", {"x"}, {"y"}), "axis", int64_t{-5});
    m.output("y");
    add(node_case("old hardmax axis", m, "Hardmax", "attribute 'axis' is -5; expected an axis in [-4, 3]", 11));
  }
  {
    Model m(11);
    m.input("x", {"n", "2", "h", "4"}).node("Hardmax", {"x"}, {"y"});
    m.output("y");
    add(node_case("old hardmax two symbolic dims", m, "Hardmax",
                  "cannot coerce input 0 'input' (value 'x', f32[n, 2, h, 4]) to 2-D at axis 1", 11));
  }
  // ---- ops_generators.cpp ----
  {
    Model m;
    attr(m.input("x", {"2", "3"}).node("EyeLike", {"x"}, {"y"}), "dtype", int64_t{8});
    m.output("y");
    add(node_case("eyelike dtype", m, "EyeLike", "attribute 'dtype' is 8 (string), which edgec does not compute with"));
  }
  {
    Model m;
    m.input("x", {"n", "3"}).node("EyeLike", {"x"}, {"y"});
    m.output("y");
    add(node_case("eyelike symbolic shape", m, "EyeLike", "input 0 'input' (value 'x', f32[n, 3]) is not of a static 2-D"));
  }
  auto one_hot = [](const std::function<void(Model&)>& depth) {
    Model m;
    m.x().floats("v", {0, 1});
    depth(m);
    m.node("OneHot", {"x", "d", "v"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("onehot depth at run time", one_hot([](Model& m) { m.input("d", {}); }), "OneHot",
                "must be known at import time"));
  add(node_case("onehot depth of two values", one_hot([](Model& m) { m.ints("d", {2, 3}); }), "OneHot",
                "holds 2 values; expected one"));
  add(node_case("onehot depth 0", one_hot([](Model& m) { m.ints("d", {0}, {}); }), "OneHot",
                "the depth, input 1 'depth' (value 'd'), is 0; expected >= 1"));
  {
    Model m = one_hot([](Model& m) { m.ints("d", {3}, {}); });
    attr(t_node(m), "axis", int64_t{5});
    add(node_case("onehot axis", m, "OneHot", "attribute 'axis' is 5; expected an axis in [-5, 4]"));
  }
  // ---- LSTM, GRU, RNN (ops_recurrent.cpp) ----
  // X [seq 2, batch 1, input 3], hidden 2.
  auto recurrent = [](const std::string& op, int64_t gates, int64_t opset = 17, int elem = TensorProto::FLOAT) {
    Model m(opset);
    m.input("x", {"2", "1", "3"}, elem);
    if (elem == TensorProto::FLOAT) {
      m.weight("w", {1, 2 * gates, 3}).weight("r", {1, 2 * gates, 2});
    } else {
      m.input("w", {"1", std::to_string(2 * gates), "3"}, elem).input("r", {"1", std::to_string(2 * gates), "2"}, elem);
    }
    m.node(op, {"x", "w", "r"}, {"y"});
    m.output("y");
    return m;
  };
  auto strings = [](onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::STRINGS);
    for (const auto& s : v) a->add_strings(s);
  };
  {
    Model m = recurrent("LSTM", 4);
    attr(t_node(m), "direction", "sideways");
    add(node_case("recurrent direction", m, "LSTM",
                  "attribute 'direction' is 'sideways'; expected 'forward', 'reverse' or 'bidirectional'"));
  }
  {
    Model m = recurrent("GRU", 3);
    attr(t_node(m), "layout", int64_t{2});
    add(node_case("recurrent layout", m, "GRU", "attribute 'layout' is 2; expected 0 or 1"));
  }
  add(node_case("recurrent in double", recurrent("RNN", 1, 17, TensorProto::DOUBLE), "RNN",
                "input 0 'X' (value 'x', f64[2, 1, 3]) is not float; edgec's rnn computes in float only"));
  {
    Model m = recurrent("RNN", 1);
    attr(t_node(m), "hidden_size", int64_t{0});
    add(node_case("recurrent hidden size", m, "RNN", "attribute 'hidden_size' is 0; expected a positive size"));
  }
  {
    Model m = recurrent("GRU", 3);
    strings(t_node(m), "activations", {"Sigmoid", "Tanh", "Tanh"});
    add(node_case("recurrent activation count", m, "GRU",
                  "attribute 'activations' has 3 entries; expected 2 (2 per direction)"));
  }
  {
    Model m = recurrent("RNN", 1);
    strings(t_node(m), "activations", {"Gelu"});
    add(node_case("recurrent unknown activation", m, "RNN", "attribute 'activations' holds 'Gelu'"));
  }
  {
    Model m = recurrent("LSTM", 4);
    attr(t_node(m), "clip", -1.0f);
    add(node_case("recurrent clip", m, "LSTM", "attribute 'clip' is -1.000000; expected a positive threshold"));
  }
  // ---- DepthToSpace, SpaceToDepth (ops_shape.cpp) ----
  auto blocks = [](Model m, const std::string& op, int64_t block) {
    m.node(op, {"x"}, {"y"});
    attr(t_node(m), "blocksize", block);
    m.output("y");
    return m;
  };
  add(node_case("block size 0", blocks(Model().x(), "DepthToSpace", 0), "DepthToSpace",
                "attribute 'blocksize' is 0; expected a block size in [1, 2147483648]"));
  {
    Model m;
    m.input("x", {"2", "8", "4"});
    add(node_case("block move of rank 3", blocks(m, "SpaceToDepth", 2), "SpaceToDepth",
                  "input 0 'input' (value 'x', f32[2, 8, 4]) has rank 3; expected rank 4"));
  }
  {
    Model m;
    m.input("x", {"n", "8", "h", "4"});
    add(node_case("block move of two symbolic sizes", blocks(m, "DepthToSpace", 2), "DepthToSpace",
                  "input 0 'input' (value 'x', f32[n, 8, h, 4]) has 2 sizes that are not static"));
  }
  {
    Model m = blocks(Model().x(), "DepthToSpace", 1);
    attr(t_node(m), "mode", "RCD");
    add(node_case("depth to space mode", m, "DepthToSpace", "attribute 'mode' is 'RCD'; expected DCR or CRD"));
  }
  add(node_case("depth to space channels", blocks(Model().x(), "DepthToSpace", 2), "DepthToSpace",
                "input 0 'input' (value 'x', f32[1, 2, 4, 4]) has 2 channels; expected a multiple of 4"));
  {
    Model m;
    m.input("x", {"1", "2", "4", "5"});
    add(node_case("space to depth spatial size", blocks(m, "SpaceToDepth", 2), "SpaceToDepth",
                  "has the spatial size 5 in dim 3; expected a multiple of attribute 'blocksize', 2"));
  }
  // ---- LpNormalization (ops_index.cpp) ----
  {
    Model m;
    m.x().node("LpNormalization", {"x"}, {"y"});
    attr(t_node(m), "p", int64_t{3});
    m.output("y");
    add(node_case("lp norm p 3", m, "LpNormalization", "attribute 'p' is 3; expected 1 or 2"));
  }
  // ---- Einsum (ops_einsum.cpp) ----
  auto einsum = [](Model m, const std::vector<std::string>& ins, const char* equation) {
    m.node("Einsum", ins, {"y"});
    attr(t_node(m), "equation", equation);
    m.output("y");
    return m;
  };
  {
    Model m;
    m.input("x", {"3"}, TensorProto::UINT8);
    add(node_case("einsum of u8", einsum(m, {"x"}, "i->i"), "Einsum",
                  "input 0 'Inputs' (value 'x', u8[3]) is of type u8; expected f32, f16, f64, i64 or i32"));
  }
  add(node_case("einsum term too short", einsum(Model().x(), {"x"}, "ij->ij"), "Einsum",
                "attribute 'equation' 'ij->ij' gives input 0 of rank 4 the term 'ij' of 2 labels"));
  {
    Model m;
    m.input("a", {"3", "4"}).input("b", {"5", "6"});
    add(node_case("einsum sizes disagree", einsum(m, {"a", "b"}, "ij,jk->ik"), "Einsum",
                  "attribute 'equation' 'ij,jk->ik' gives label 'j' the sizes 4 and 5"));
  }
  {
    Model m;
    m.input("x", {"n", "n"});
    add(node_case("einsum diagonal of a symbolic size", einsum(m, {"x"}, "ii->i"), "Einsum",
                  "attribute 'equation' 'ii->i' takes a diagonal, which needs the size of label 'i', n, to be static"));
  }
  return c;
}

// ---- the walk -----------------------------------------------------------------------

struct Outcome {
  std::optional<Site> site;
  std::string message;
};

Outcome run_case(const Case& k) {
  try {
    k.run();
  } catch (const onnx_import::ImportRefusal& e) {
    return {Site{fs::path(e.site().file_name()).filename().string(), static_cast<int>(e.site().line())}, e.what()};
  } catch (const CompileError& e) {
    return {std::nullopt, std::string("a CompileError that is not a refusal: ") + e.what()};
  }
  return {std::nullopt, "(no error)"};
}

// A training-mode dropout of ratio 0 keeps every element (ONNX): it imports
// as the identity, as torchvision's Swin exports its dropouts.
TEST(OnnxRefusals, TrainingDropoutOfRatioZeroIsTheIdentity) {
  Model m;
  m.x().floats("r", {0.f}, {}).ints("mode", {1}, {}, TensorProto::BOOL);
  m.node("Dropout", {"x", "r", "mode"}, {"y"});
  m.output("y");
  std::string bytes;
  ASSERT_TRUE(m.proto.SerializeToString(&bytes));
  auto program = import_onnx_bytes(std::as_bytes(std::span<const char>(bytes.data(), bytes.size())), "dropout.onnx");
  // The output is the input (copied, as every graph input that is also an
  // output is): one clone of x, nothing random.
  std::vector<const Node*> calls;
  for (const Node* n : program->graph.nodes())
    if (n->is_call()) calls.push_back(n);
  ASSERT_EQ(calls.size(), 1u) << print_program(*program);
  EXPECT_NE(calls[0]->op().find("clone"), std::string::npos) << print_program(*program);
  EXPECT_EQ(calls[0]->input(0)->name(), "x") << print_program(*program);
}

// Each case is refused at a refusal site with a message naming what it
// refuses (for a node: the node, its op_type and opset, and the operand).
TEST(OnnxRefusals, EachNamesWhereAndWhat) {
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.label);
    const Outcome o = run_case(k);
    EXPECT_TRUE(o.site.has_value()) << o.message;
    if (getenv("SHOW_REFUSALS")) std::cout << "[" << k.label << "] " << o.message << "\n";
    for (const std::string& text : k.expect) EXPECT_NE(o.message.find(text), std::string::npos) << o.message;
  }
}

// Every refusal site has a case that reaches it.
TEST(OnnxRefusals, EveryRefusalSiteHasACase) {
  const auto sites = refusal_sites();
  ASSERT_GT(sites.size(), 50u);
  std::map<Site, std::vector<std::string>> reached;
  for (const Case& k : cases()) {
    const Outcome o = run_case(k);
    if (!o.site) continue;  // EachNamesWhereAndWhat reports it
    reached[*o.site].push_back(k.label);
    EXPECT_TRUE(sites.count(*o.site)) << k.label << " reached " << str(*o.site)
                                      << ", which the source scan does not list as a refusal";
  }
  for (const auto& [site, text] : sites)
    EXPECT_TRUE(reached.count(site)) << str(site) << ": no case in onnx_refusals_test.cpp reaches this refusal:\n"
                                     << text;
}

// The importer throws only through refusal.h (refuse, internal_error,
// io_error) and rethrows with `throw;`: a `throw CompileError(...)` would
// bypass the walk.
TEST(OnnxRefusals, ImporterThrowsOnlyThroughRefusal) {
  for (const fs::path& path : importer_sources()) {
    if (path.filename() == "refusal.h") continue;
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string code = code_of(ss.str());
    for (const auto& [at, next] : word_uses(code, "throw")) {
      const int line = static_cast<int>(std::count(code.begin(), code.begin() + static_cast<long>(at), '\n')) + 1;
      EXPECT_TRUE(next < code.size() && code[next] == ';')
          << path.filename().string() << ":" << line
          << ": a throw that is not a rethrow; refuse() (or internal_error()) instead";
    }
  }
}

}  // namespace
}  // namespace edgec
