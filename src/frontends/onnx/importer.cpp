// import_onnx: parses the ModelProto, checks versions, builds the signature
// (user inputs, parameters, lazily made constants), hands each node to the
// handler of its op_type, then returns the graph outputs and verifies.
//
// Node errors are prefixed with "FILE: node 'NAME' (#INDEX, OP_TYPE, domain
// D, opset N): " so that a user can find the node in Netron.
//
// A model file is untrusted input: sizes (the file's, a declared shape's
// bytes) are checked before anything is allocated or parsed, external data
// stays inside the model's folder (tensor_data.cpp), and a graph whose
// nodes read their own outputs (a cycle) is refused, naming the cycle.
//
// Nodes are imported in topological order, which ONNX requires of a file
// but ONNX Runtime does not: an unsorted graph is sorted (import_order),
// keeping the file's order where it can, and its nodes keep their file
// index in messages.
//
// Before any node is imported, every node is checked against the ONNX
// schema of its operator at its opset (libonnx's registry, as ONNX
// Runtime does): the number of inputs and outputs, the required ones
// present, the attributes declared and of their kinds; and every value
// name has one definition (a graph input, an initializer or one output of
// one node). As each node is imported, its inputs' element types are
// checked against the schema's type constraints. The handlers can then
// rely on the node's structure and types, and check the values they read.
#include "frontends/onnx/importer.h"

#include <onnx/defs/data_type_utils.h>
#include <google/protobuf/arena.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <unordered_set>

#include "base/memory_limit.h"
#include "frontends/onnx/context.h"
#include "frontends/onnx/input_dims.h"
#include "frontends/onnx/node_order.h"
#include "frontends/onnx/opsets.h"
#include "frontends/onnx/refusal.h"
#include "ir/control_flow.h"
#include "ir/verifier.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

using onnx_import::Entry;
using onnx_import::HandlerTable;
using onnx_import::Importer;
using onnx_import::ImportRefusal;
using onnx_import::internal_error;
using onnx_import::io_error;
using onnx_import::NodeContext;

// Models below opset 13 are converted to it first (opsets.h).
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 23;

/// ONNX's DataType ("tensor(float)") for a tensor of element type `elem`,
/// as schemas list them. Made once per type: onnx's ToType parses the
/// string under a lock, and every input of every node asks.
onnx::DataType tensor_data_type(int32_t elem) {
  constexpr int32_t kTypes = 64;
  static const std::vector<onnx::DataType> table = [] {
    std::vector<onnx::DataType> t(kTypes, nullptr);
    for (int32_t e = 1; e < kTypes; ++e) {
      if (!onnx::TensorProto_DataType_IsValid(e)) continue;
      try {
        t[static_cast<size_t>(e)] =
            onnx::Utils::DataTypeUtils::ToType("tensor(" + onnx::Utils::DataTypeUtils::ToDataTypeString(e) + ")");
      } catch (const std::exception&) {
        // a type this libonnx cannot name: asked for directly below
      }
    }
    return t;
  }();
  if (elem > 0 && elem < kTypes && table[static_cast<size_t>(elem)]) return table[static_cast<size_t>(elem)];
  return onnx::Utils::DataTypeUtils::ToType("tensor(" + onnx::Utils::DataTypeUtils::ToDataTypeString(elem) + ")");
}

/// The same for a sequence of such tensors ("seq(tensor(float))").
onnx::DataType seq_data_type(int32_t elem) {
  return onnx::Utils::DataTypeUtils::ToType("seq(" + *tensor_data_type(elem) + ")");
}
constexpr int64_t kMaxIrVersion = 11;

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    onnx_import::register_elementwise_handlers(t);
    onnx_import::register_shape_handlers(t);
    onnx_import::register_nn_handlers(t);
    onnx_import::register_detection_handlers(t);
    onnx_import::register_index_handlers(t);
    onnx_import::register_einsum_handlers(t);
    onnx_import::register_newer_handlers(t);
    onnx_import::register_loss_handlers(t);
    onnx_import::register_generator_handlers(t);
    onnx_import::register_sequence_handlers(t);
    onnx_import::register_control_handlers(t);
    onnx_import::register_recurrent_handlers(t);
    onnx_import::register_quantized_handlers(t);
    return t;
  }();
  return table;
}

}  // namespace

std::vector<std::string> onnx_supported_operators() {
  std::vector<std::string> out;
  for (const auto& [op, handler] : handlers()) out.push_back(op);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> onnx_microsoft_operators() {
  std::vector<std::string> out;
  for (const auto& [op, handler] : onnx_import::microsoft_handlers()) out.push_back(op);
  std::sort(out.begin(), out.end());
  return out;
}

std::pair<int64_t, int64_t> onnx_supported_opsets() { return {kMinOpset, kMaxOpset}; }

namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }
bool is_microsoft_domain(const std::string& domain) { return domain == onnx_import::kMicrosoftDomain; }

const char* attribute_kind_name(onnx::AttributeProto::AttributeType t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT: return "a float";
    case onnx::AttributeProto::INT: return "an int";
    case onnx::AttributeProto::STRING: return "a string";
    case onnx::AttributeProto::TENSOR: return "a tensor";
    case onnx::AttributeProto::GRAPH: return "a graph";
    case onnx::AttributeProto::SPARSE_TENSOR: return "a sparse tensor";
    case onnx::AttributeProto::TYPE_PROTO: return "a type";
    case onnx::AttributeProto::FLOATS: return "a list of floats";
    case onnx::AttributeProto::INTS: return "a list of ints";
    case onnx::AttributeProto::STRINGS: return "a list of strings";
    case onnx::AttributeProto::TENSORS: return "a list of tensors";
    case onnx::AttributeProto::GRAPHS: return "a list of graphs";
    case onnx::AttributeProto::SPARSE_TENSORS: return "a list of sparse tensors";
    case onnx::AttributeProto::TYPE_PROTOS: return "a list of types";
    default: return "of no kind (type UNDEFINED)";
  }
}

/// "X, W, optional B" / "inputs..." for a schema's formal parameters.
std::string formal_list(const std::vector<onnx::OpSchema::FormalParameter>& params) {
  std::string s;
  for (const auto& p : params) {
    if (!s.empty()) s += ", ";
    if (p.GetOption() == onnx::OpSchema::Optional) s += "optional ";
    s += "'" + p.GetName() + "'";
    if (p.GetOption() == onnx::OpSchema::Variadic) s += "...";
  }
  return s.empty() ? "none" : s;
}

/// "1 input", "2 to 3 inputs", "at least 1 output".
std::string count_range(int lo, int hi, const std::string& noun) {
  auto plural = [&](int n) { return noun + (n == 1 ? "" : "s"); };
  if (lo == hi) return std::to_string(lo) + " " + plural(lo);
  if (hi == std::numeric_limits<int>::max()) return "at least " + std::to_string(lo) + " " + plural(lo);
  return std::to_string(lo) + " to " + std::to_string(hi) + " " + plural(hi);
}

/// Appends the names `g` (and the graphs inside it) read without defining
/// them: values of the enclosing graphs, which ONNX's scoping lets a
/// subgraph read by name.
void outer_names(const onnx::GraphProto& g, std::vector<std::string_view>& out) {
  std::unordered_set<std::string_view> defined;
  for (const auto& vi : g.input()) defined.insert(vi.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  std::vector<std::string_view> inner;
  for (const auto& n : g.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in)) out.push_back(in);
    for (const auto& a : n.attribute()) {
      inner.clear();
      if (a.has_g()) outer_names(a.g(), inner);
      for (const auto& sub : a.graphs()) outer_names(sub, inner);
      for (std::string_view name : inner)
        if (!defined.count(name)) out.push_back(name);
    }
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name())) out.push_back(o.name());
}

class ModelImporter {
 public:
  /// `external`: where tensors stored outside the model are read from (no
  /// folder for a model imported from bytes).
  ModelImporter(const std::string& what, const OnnxImportOptions& options,
                onnx_import::ExternalDataSource external = {})
      : program_(std::make_unique<Program>()),
        im_(*program_, what, options),
        what_(what),
        external_(std::move(external)) {}

  /// Imports `model`, releasing each initializer's bytes once copied (the
  /// weights of a large model are held once, not twice).
  std::unique_ptr<Program> run(onnx::ModelProto& model) {
    check_versions(model);
    onnx::GraphProto& g = *model.mutable_graph();
    if (g.sparse_initializer_size() > 0)
      refuse("sparse initializer '" + g.sparse_initializer(0).values().name() +
             "' is not supported (edgec reads dense initializers; save the model with dense ones)");
    check_node_count(g);
    // Views of the proto's names (it outlives the import).
    std::unordered_set<std::string_view> initializer_names;
    const auto read_initializer_names = [&] {
      initializer_names.clear();
      initializer_names.reserve(static_cast<size_t>(g.initializer_size()));
      for (const auto& t : g.initializer())
        if (!initializer_names.insert(t.name()).second) refuse("initializer '" + t.name() + "' appears twice");
    };
    read_initializer_names();
    if (default_opset_ >= kMinOpset && default_opset_ < onnx_import::kHandlersOpset) {
      // ONNX's converter trusts its input: the old graph is checked against
      // the schemas of its own opset first (operators the converter
      // replaces, such as Upsample, need no handler).
      check_nodes(g, initializer_names, /*before_conversion=*/true);
      producers_.clear();
      convert_old_opset(model);
      read_initializer_names();
    }
    check_nodes(g, initializer_names);
    inline_external_attributes(g);
    input_dims_ = onnx_import::resolve_input_dims(
        g, std::set<std::string>(initializer_names.begin(), initializer_names.end()), im_.options(), what_);
    add_graph_inputs(g);
    check_fixed_inputs();
    add_constant_initializers(g);
    im_.set_graph(&g, &producers_);
    graph_ = &g;
    im_.set_subgraph_importer(
        [this](const onnx::GraphProto& sub, const std::string& scope) { import_subgraph(sub, scope); });
    for (int i : import_order(g)) import_node(g, i);
    check_dim_options();  // after the nodes: a Loop's rows are a dim too
    set_outputs(g);
    finish();
    return std::move(program_);
  }

 private:
  /// Refuses the model: "FILE: MESSAGE".
  [[noreturn]] void refuse(const std::string& message,
                           std::source_location site = std::source_location::current()) const {
    onnx_import::refuse(what_ + ": " + message, site);
  }

  /// The compiler holds every node several times over (the program and
  /// its values, use lists and names, the importer's entries, the file
  /// being built): a chain of 10^6 Relu peaks at 1.54 GB, about 1.5 KiB a
  /// node, the least of any model measured. A graph that needs more than
  /// the memory limit at 1.25 KiB a node is refused before any of it is
  /// built.
  void check_node_count(const onnx::GraphProto& g) const {
    constexpr uint64_t kLeastBytesPerNode = 1280;
    const uint64_t nodes = static_cast<uint64_t>(g.node_size());
    if (const uint64_t limit = memory_limit(); nodes > limit / kLeastBytesPerNode)
      refuse("the graph has " + std::to_string(nodes) + " nodes; compiling it takes at least " +
             std::to_string(nodes * kLeastBytesPerNode) + " bytes (1.25 KiB a node), more than the memory limit of " +
             std::to_string(limit) + " bytes (set EDGEC_MEMORY_LIMIT to change it)");
  }

  void check_versions(const onnx::ModelProto& model) {
    if (!model.has_ir_version() || model.ir_version() <= 0)
      refuse("not an ONNX model (no ir_version; is the file truncated or of another format?)");
    if (model.ir_version() > kMaxIrVersion)
      refuse("ONNX IR version " + std::to_string(model.ir_version()) +
             " is not supported (edgec reads IR versions up to " + std::to_string(kMaxIrVersion) +
             ", as ONNX 1.18 writes them)");
    if (!model.has_graph()) refuse("not an ONNX model (no graph; is the file truncated?)");
    for (const auto& o : model.opset_import()) {
      if (is_default_domain(o.domain())) {
        default_opset_ = o.version();
      } else {
        opsets_[o.domain()] = o.version();
      }
    }
  }

  /// Brings a model below opset 13 to 13 (opsets.h); when ONNX's converter
  /// cannot, the nodes keep their opset and check_operator decides.
  void convert_old_opset(onnx::ModelProto& model) {
    auto conversion = onnx_import::convert_to_handlers_opset(model);
    conversion_failure_ = std::move(conversion.failure);
    kept_at_old_opset_ = std::move(conversion.kept);
    if (!conversion_failure_.empty()) return;
    for (const auto& o : model.opset_import())
      if (is_default_domain(o.domain())) default_opset_ = o.version();
  }

  TensorType input_type(const onnx::ValueInfoProto& vi) {
    const std::string where = "graph input '" + vi.name() + "'";
    if (vi.has_type() && vi.type().has_sequence_type())
      refuse(where + " is a sequence; edgec's programs take tensors only (sequences exist only inside the graph, "
                     "between the sequence operators)");
    if (!vi.has_type() || !vi.type().has_tensor_type()) refuse(where + " is not a tensor");
    const auto& tt = vi.type().tensor_type();
    const auto dtype = onnx_import::dtype_from_onnx(tt.elem_type());
    if (!dtype)
      refuse(where + " has element type " + onnx_import::onnx_type_name(tt.elem_type()) +
             ", which edgec does not support (float, float16, double, int64, int32, int16, int8, uint64, "
             "uint32, uint16, uint8, bool, and bfloat16 for Cast)");
    if (!tt.has_shape()) refuse(where + " has no shape; re-export the model with a fixed rank");
    if (tt.shape().dim_size() > kMaxRank)
      refuse(where + " has rank " + std::to_string(tt.shape().dim_size()) + "; edgec supports ranks up to " +
             std::to_string(kMaxRank));
    Dims dims;
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) refuse(where + " has a negative size in dim " + std::to_string(i));
        dims.push_back(Dim::fixed(d.dim_value()));
        continue;
      }
      // A dim without a name is named for --dim and messages (input_dims.h).
      const bool named = d.has_dim_param() && !d.dim_param().empty();
      const std::string p = named ? d.dim_param() : onnx_import::unnamed_dim_name(vi.name(), i);
      dim_params_.insert(p);
      if (auto it = input_dims_.sizes.find(p); it != input_dims_.sizes.end()) {
        if (it->second < 0)
          refuse("--dim (dim_sizes) gives '" + p + "' the negative size " + std::to_string(it->second) +
                 "; expected a size >= 0");
        dims.push_back(Dim::fixed(it->second));
        continue;
      }
      auto b = input_dims_.bounds.find(p);
      std::string symbol = onnx_import::sanitize_name(p);
      for (char& c : symbol)
        if (c == '.') c = '_';
      if (std::isdigit(static_cast<unsigned char>(symbol[0]))) symbol = "d" + symbol;
      im_.add_dim_param(symbol, p);
      if (!named) im_.add_unnamed_dim(symbol, vi.name());
      dims.push_back(Dim::symbolic(symbol, b == input_dims_.bounds.end() ? -1 : b->second));
    }
    // Memory is planned for the largest size; a declared shape whose bytes
    // do not fit in 64 bits cannot be planned (nor be a real input).
    int64_t bytes = static_cast<int64_t>(dtype_size(*dtype));
    for (const Dim& d : dims) {
      const auto bound = d.upper_bound();
      if (bound && __builtin_mul_overflow(bytes, *bound, &bytes))
        refuse(where + " declares " + TensorType(*dtype, dims).str() + ", whose size in bytes overflows 64 bits");
    }
    return TensorType(*dtype, std::move(dims));
  }

  static void release_data(onnx::TensorProto& t) { std::string().swap(*t.mutable_raw_data()); }

  void add_graph_inputs(onnx::GraphProto& g) {
    std::map<std::string, onnx::TensorProto*> inits;
    for (auto& t : *g.mutable_initializer()) inits[t.name()] = &t;
    std::set<std::string> seen;
    for (const auto& vi : g.input()) {
      if (!seen.insert(vi.name()).second) refuse("graph input '" + vi.name() + "' is listed twice");
      auto it = inits.find(vi.name());
      Program& p = im_.program();
      auto bound = im_.options().input_values.find(vi.name());
      if (it != inits.end() && bound != im_.options().input_values.end()) {
        // The value given replaces the default and is folded as a constant.
        const TensorData init = onnx_import::tensor_from_proto(*it->second, what_ + ": initializer '" + vi.name() + "'", external_);
        release_data(*it->second);
        check_bound_value(vi.name(), init.type, bound->second.type);
        Entry e;
        e.data = bound->second;
        e.type = bound->second.type;
        im_.define(vi.name(), std::move(e));
        continue;
      }
      if (it != inits.end()) {
        // An overridable default: a parameter, never folded (docs/semantics.md §1).
        TensorData data = onnx_import::tensor_from_proto(*it->second, what_ + ": initializer '" + vi.name() + "'", external_);
        release_data(*it->second);
        Node* ph = p.graph.add_placeholder(onnx_import::sanitize_name(vi.name()), data.type);
        p.inputs.push_back(InputSpec{InputKind::Parameter, ph->result()->name(), vi.name(), false});
        p.state[vi.name()] = data;
        Entry e;
        e.type = data.type;
        e.value = ph->result();
        im_.define(vi.name(), std::move(e));
        continue;
      }
      TensorType type = input_type(vi);
      if (bound != im_.options().input_values.end()) {
        check_bound_value(vi.name(), type, bound->second.type);
        Entry e;
        e.data = bound->second;
        e.type = bound->second.type;
        im_.define(vi.name(), std::move(e));
        continue;
      }
      Node* ph = p.graph.add_placeholder(onnx_import::sanitize_name(vi.name()), type);
      p.inputs.push_back(InputSpec{InputKind::UserInput, ph->result()->name(), vi.name(), false});
      Entry e;
      e.type = type;
      e.value = ph->result();
      im_.define(vi.name(), std::move(e));
    }
  }

  /// A value fixed for a graph input must have its dtype, rank and sizes
  /// (any size for a symbolic dim).
  void check_bound_value(const std::string& name, const TensorType& declared, const TensorType& given) const {
    bool fits = declared.dtype == given.dtype && declared.dims.size() == given.dims.size();
    for (size_t i = 0; fits && i < declared.dims.size(); ++i)
      fits = !declared.dims[i].is_static() || declared.dims[i] == given.dims[i];
    if (!fits)
      refuse("the value given for graph input '" + name + "' (--fix-inputs) is " + given.str() + ", but the input is " +
             declared.str());
  }

  /// A value fixed for a name that is no graph input is most likely a typo.
  void check_fixed_inputs() const {
    for (const auto& [name, value] : im_.options().input_values) {
      if (im_.has_entry(name)) continue;
      refuse("--fix-inputs gives a value for '" + name + "', which is not a graph input of the model");
    }
  }

  /// A dim named in the options that no input (nor a Loop's stacked rows,
  /// ops_control.cpp) has is most likely a typo.
  void check_dim_options() {
    // The rows' symbol takes its size (as a bound) or bound here, as input
    // dims do when they are read.
    if (bound_loop_rows(program_->graph, im_.options().dim_sizes, im_.options().dim_bounds, dim_params_))
      refresh_result_types(*program_);
    for (const auto* option : {&im_.options().dim_sizes, &im_.options().dim_bounds}) {
      for (const auto& [name, size] : *option) {
        if (dim_params_.count(name)) continue;
        std::string known;
        for (const auto& p : dim_params_) known += (known.empty() ? "" : ", ") + p;
        refuse((option == &im_.options().dim_sizes ? "--dim (dim_sizes)" : "--max-dim (dim_bounds)") +
               std::string(" names '") + name +
               "', but no graph input has a dim of that name (the model's: " + (known.empty() ? "none" : known) + ")");
      }
    }
  }

  void add_constant_initializers(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) {
      if (im_.has_entry(t.name())) continue;  // also a graph input
      Entry e;
      e.data = onnx_import::tensor_from_proto(t, (scope_.empty() ? what_ : scope_) + ": initializer '" + t.name() + "'", external_);
      release_data(t);
      e.type = e.data->type;
      im_.define(t.name(), std::move(e));
    }
  }

  /// The opset imported for the node's domain, or -1.
  int64_t node_opset(const onnx::NodeProto& n) const {
    if (!kept_at_old_opset_.empty() && n.output_size() > 0)
      if (auto it = kept_at_old_opset_.find(n.output(0)); it != kept_at_old_opset_.end()) return it->second;
    if (is_default_domain(n.domain())) return default_opset_;
    auto it = opsets_.find(n.domain());
    return it == opsets_.end() ? -1 : it->second;
  }

  /// "FILE: node 'NAME' (#I, OP, domain D, opset N)"; in a subgraph
  /// "SCOPE: node ...", which the enclosing node's refusal then follows
  /// its own place with ("FILE: node 'if0' (...): then_branch: node ...").
  std::string node_where(const onnx::NodeProto& n, int index) const {
    const int64_t opset = node_opset(n);
    const std::string domain = is_default_domain(n.domain()) ? "ai.onnx" : n.domain();
    return (scope_.empty() ? what_ : scope_) + ": node '" + n.name() + "' (#" + std::to_string(index) + ", " + n.op_type() + ", domain " + domain +
           ", opset " + (opset < 0 ? std::string("none") : std::to_string(opset)) + ")";
  }

  /// Constant-like nodes hold tensors in attributes; the handlers read them
  /// without the model's folder, so external ones are read in here.
  void inline_external_attributes(onnx::GraphProto& g) {
    for (int i = 0; i < g.node_size(); ++i) {
      onnx::NodeProto& n = *g.mutable_node(i);
      for (auto& a : *n.mutable_attribute()) {
        auto inline_tensor = [&](onnx::TensorProto& t) {
          if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
          onnx_import::inline_external_data(t, node_where(n, i) + ": attribute '" + a.name() + "'", external_);
        };
        if (a.has_t()) inline_tensor(*a.mutable_t());
        for (auto& t : *a.mutable_tensors()) inline_tensor(t);
      }
    }
  }

  /// The order in which `g`'s nodes are imported: topological (each node
  /// after the nodes of `g` whose outputs it reads, directly or through
  /// its subgraphs), and among the nodes ready at a time, the file's
  /// order: a sorted graph imports in its own order. ONNX requires sorted
  /// nodes, but ONNX Runtime sorts them, and converters (onnxconverter_common's
  /// float16 conversion) append nodes that earlier ones read. A cycle is
  /// refused, spelled out node by node. Nodes keep their file index in
  /// messages ("#643"). Needs producers_ (check_nodes).
  std::vector<int> import_order(const onnx::GraphProto& g) {
    const int count = g.node_size();
    // The nodes each node reads from, as edges {producer, value name},
    // node by node (node i's are edges[first[i], first[i + 1])).
    std::vector<onnx_import::NodeEdge> edges;
    std::vector<size_t> first(static_cast<size_t>(count) + 1, 0);
    bool sorted = true;
    std::vector<std::string_view> outer;
    for (int i = 0; i < count; ++i) {
      const onnx::NodeProto& n = g.node(i);
      first[static_cast<size_t>(i)] = edges.size();
      const auto read = [&](const std::string& name) {
        if (name.empty()) return;
        auto it = producers_.find(name);
        if (it == producers_.end()) return;  // an input, initializer or enclosing value (or undefined)
        edges.push_back({it->second, it->first});
        sorted &= it->second < i;
      };
      for (const auto& in : n.input()) read(in);
      for (const auto& a : n.attribute()) {
        if (!a.has_g() && a.graphs_size() == 0) continue;
        outer.clear();
        if (a.has_g()) outer_names(a.g(), outer);
        for (const auto& sub : a.graphs()) outer_names(sub, outer);
        for (std::string_view name : outer) read(std::string(name));
      }
    }
    first[static_cast<size_t>(count)] = edges.size();
    std::vector<int> order(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) order[static_cast<size_t>(i)] = i;
    if (sorted) return order;

    onnx_import::NodeCycle found;
    if (onnx_import::topological_order(count, edges, first, order, found)) return order;

    // The cycle, spelled from its first node in the file, in the direction
    // values flow (against the reads).
    const size_t len = found.nodes.size();
    const auto label = [&](int i) { return "node '" + g.node(i).name() + "' (#" + std::to_string(i) + ")"; };
    const int node = found.nodes[0];
    const std::string value(found.values[0]);
    const int producer = found.nodes[1 % len];
    std::string cycle = label(node);
    constexpr size_t kSpelled = 20;  // steps spelled out of a long cycle, before its last
    for (size_t k = 1; k <= len; ++k) {
      if (k > kSpelled && k < len) {
        cycle += " -> ... (" + std::to_string(len) + " nodes in all)";
        k = len;
      }
      const size_t reader = (len - k) % len;  // reads what the one before gives
      cycle += " -> '" + std::string(found.values[reader]) + "' -> " + label(found.nodes[reader]);
    }
    const onnx::NodeProto& n = g.node(node);
    NodeContext ctx(im_, n, static_cast<int>(node_opset(n)), schema_of(n));
    std::string reads;
    for (int i = 0; i < n.input_size() && reads.empty(); ++i)
      if (n.input(i) == value) reads = ctx.operand(static_cast<size_t>(i));
    if (reads.empty()) reads = "a subgraph of the node reads '" + value + "', which";
    refuse_node(n, node,
                reads + (producer == node ? " is this node's own output"
                                          : " is produced by " + label(producer) + ", which reads this node's outputs" +
                                                (len > 2 ? " through other nodes" : "")) +
                    "; the graph has a cycle: " + cycle);
  }

  /// The schema of `n`'s operator at its opset, or null when the operator
  /// is not one of ONNX's.
  // Looked up once per operator and opset (the registry's lookup is two
  // string-keyed maps; every node asked twice).
  const onnx::OpSchema* schema_of(const onnx::NodeProto& n) const {
    if (is_microsoft_domain(n.domain())) return onnx_import::microsoft_schema(n.op_type());
    const int opset = static_cast<int>(node_opset(n));
    auto found = schemas_.find(n.op_type());
    if (found == schemas_.end()) found = schemas_.emplace(n.op_type(), SchemasByOpset{}).first;
    for (const SchemaAt& s : found->second)
      if (s.opset == opset) return s.schema;
    const onnx::OpSchema* schema = opset > onnx_import::kLibonnxOpset ? onnx_import::newer_schema(n.op_type(), opset)
                                                                        : nullptr;
    if (!schema) schema = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, "");
    found->second.push_back({opset, schema});
    return schema;
  }

  /// Refuses node #index: "FILE: node '...' (...): MESSAGE".
  [[noreturn]] void refuse_node(const onnx::NodeProto& n, int index, const std::string& message,
                                std::source_location site = std::source_location::current()) const {
    onnx_import::refuse(node_where(n, index) + ": " + message, site);
  }

  /// Before importing: every node is of a supported operator at a
  /// supported opset, matches the operator's schema, and defines only
  /// names nothing else defines (SSA). Records each value's producer.
  void check_nodes(const onnx::GraphProto& g, const std::unordered_set<std::string_view>& initializers,
                   bool before_conversion = false) {
    std::unordered_set<std::string_view> graph_inputs;
    graph_inputs.reserve(static_cast<size_t>(g.input_size()));
    for (const auto& vi : g.input()) graph_inputs.insert(vi.name());
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      check_operator(n, i, before_conversion);
      const onnx::OpSchema* schema = schema_of(n);
      if (!schema && before_conversion)
        refuse_node(n, i, "operator " + n.op_type() + " is not an ONNX operator of opset " +
                              std::to_string(node_opset(n)));
      if (!schema) internal_error("no ONNX schema for the supported operator " + n.op_type());
      check_schema(n, i, *schema);
      for (int k = 0; k < n.output_size(); ++k) {
        const std::string& out = n.output(k);
        if (out.empty()) continue;
        NodeContext ctx(im_, n, static_cast<int>(node_opset(n)), schema);
        const char* kind = graph_inputs.count(out) ? "graph input" : initializers.count(out) ? "initializer" : nullptr;
        if (kind)
          refuse_node(n, i,
                      ctx.result(k) + " has the name of " + (kind[0] == 'g' ? "a " : "an ") + kind + " ('" + out +
                          "'); expected a name nothing else defines (each value has one definition)");
        auto [it, fresh] = producers_.emplace(out, i);
        if (fresh) continue;
        if (it->second != i)
          refuse_node(n, i,
                      ctx.result(k) + " is already an output of node '" + g.node(it->second).name() + "' (#" +
                          std::to_string(it->second) +
                          "); expected a name nothing else defines (each value has one definition)");
        int first = 0;
        while (n.output(first) != out) ++first;
        refuse_node(n, i,
                    ctx.result(k) + " is also output " + std::to_string(first) +
                        " of this node; expected a name nothing else defines (each value has one definition)");
      }
    }
  }

  /// Imports a subgraph (Importer::import_subgraph) as the graph is: its
  /// nodes checked (supported operators, schemas, one definition per name,
  /// and no name of an enclosing graph's value redefined, as ONNX's scoping
  /// requires), its initializers made constants, its nodes imported in
  /// order. Refusals inside it name `scope` and the node.
  void import_subgraph(const onnx::GraphProto& sub, const std::string& scope) {
    // The model is this importer's own, mutable (run() holds it): a
    // subgraph's initializers are released once copied, as the graph's are.
    auto& g = const_cast<onnx::GraphProto&>(sub);
    if (g.sparse_initializer_size() > 0)
      onnx_import::refuse(scope + ": sparse initializer '" + g.sparse_initializer(0).values().name() +
                          "' is not supported (edgec reads dense initializers)");
    std::unordered_set<std::string_view> initializers;
    for (const auto& t : g.initializer()) {
      if (!initializers.insert(t.name()).second)
        onnx_import::refuse(scope + ": initializer '" + t.name() + "' appears twice");
      if (im_.has_entry(t.name()))
        onnx_import::refuse(scope + ": initializer '" + t.name() +
                            "' has the name of a value of the enclosing graph; expected a name of its own (ONNX's "
                            "scoping: a subgraph reads the enclosing names, never redefines them)");
    }
    // Restored however the import ends: the enclosing node's refusal reads
    // the enclosing scope.
    struct Restore {
      ModelImporter& m;
      std::unordered_map<std::string, int> producers;
      std::string scope;
      const onnx::GraphProto* graph;
      ~Restore() {
        m.producers_ = std::move(producers);
        m.scope_ = std::move(scope);
        m.graph_ = graph;
        m.im_.set_graph(graph, &m.producers_);
      }
    } restore{*this, std::move(producers_), scope_, graph_};
    producers_.clear();
    scope_ = scope;
    graph_ = &g;
    check_nodes(g, initializers);
    for (int i = 0; i < g.node_size(); ++i)
      for (const auto& out : g.node(i).output())
        if (!out.empty() && im_.has_entry(out))
          refuse_node(g.node(i), i,
                      "output '" + out +
                          "' has the name of a value of the enclosing graph; expected a name of its own (ONNX's "
                          "scoping: a subgraph reads the enclosing names, never redefines them)");
    inline_external_attributes(g);
    add_constant_initializers(g);
    im_.set_graph(&g, &producers_);
    for (int i : import_order(g)) import_node(g, i);
  }

  /// `before_conversion`: of an old model, checked before ONNX's version
  /// converter replaces operators edgec has no handler for.
  void check_operator(const onnx::NodeProto& n, int index, bool before_conversion = false) const {
    const int64_t opset = node_opset(n);
    if (is_microsoft_domain(n.domain())) {
      check_microsoft_operator(n, index);
      return;
    }
    if (!is_default_domain(n.domain()))
      refuse_node(n, index,
                  "operators of domain '" + n.domain() + "' are not supported (edgec imports the default ONNX domain)");
    if (opset < kMinOpset || opset > kMaxOpset)
      refuse_node(n, index,
                  "opset " + (opset < 0 ? std::string("(none imported)") : std::to_string(opset)) +
                      " of the default domain is not supported (edgec imports opsets " + std::to_string(kMinOpset) +
                      "-" + std::to_string(kMaxOpset) + ")");
    if (before_conversion) return;
    if (!handlers().count(n.op_type()))
      refuse_node(n, index, "operator " + n.op_type() + " is not supported by the edgec ONNX importer");
    if (opset < onnx_import::kHandlersOpset && !onnx_import::legacy_handler(n.op_type(), opset))
      if (const char* changed = onnx_import::meaning_changed_since(n.op_type(), opset))
        refuse_node(n, index,
                    "ONNX's version converter could not bring the model from opset " + std::to_string(opset) +
                        " to " + std::to_string(onnx_import::kHandlersOpset) + " (" + conversion_failure_ +
                        "), and edgec reads this " + n.op_type() + " only through it: " + changed +
                        " (edgec already retried after ONNX's shape inference); re-export the model at opset 13 or "
                        "later, or convert it with onnx.version_converter.convert_version(model, 13) and fix "
                        "what that reports");
  }

  /// A com.microsoft node: of version 1 (ONNX Runtime's only one) and of
  /// an operator edgec imports (ops_microsoft.cpp).
  void check_microsoft_operator(const onnx::NodeProto& n, int index) const {
    const int64_t version = node_opset(n);
    if (version != 1)
      refuse_node(n, index,
                  "domain com.microsoft is imported at version " +
                      (version < 0 ? std::string("(none; the model has no opset_import for it)")
                                   : std::to_string(version)) +
                      "; expected version 1, the one ONNX Runtime defines");
    if (!onnx_import::microsoft_handlers().count(n.op_type())) {
      std::string known;
      for (const std::string& op : onnx_microsoft_operators()) known += (known.empty() ? "" : ", ") + op;
      refuse_node(n, index,
                  "operator " + n.op_type() + " of domain com.microsoft is not supported by the edgec ONNX importer "
                  "(of com.microsoft it imports " + known + ")");
    }
  }

  /// What ONNX's checker (and so ONNX Runtime) requires of a node, in
  /// messages naming the inputs, outputs and attributes by the schema's
  /// names: as many inputs and outputs as the schema allows, each
  /// non-optional one named, attributes declared, of their kind, and the
  /// required ones present.
  void check_schema(const onnx::NodeProto& n, int index, const onnx::OpSchema& schema) {
    // Built only for a refusal: this runs for every node.
    const auto version = [&] {
      return " (" + n.op_type() + " of opset " + std::to_string(node_opset(n)) + ", since opset " +
             std::to_string(schema.since_version()) + ")";
    };
    NodeContext ctx(im_, n, static_cast<int>(node_opset(n)), &schema);
    if (n.input_size() < schema.min_input() || n.input_size() > schema.max_input())
      refuse_node(n, index,
                  "expected " + count_range(schema.min_input(), schema.max_input(), "input") + ", got " +
                      std::to_string(n.input_size()) + version() + "; its inputs are " + formal_list(schema.inputs()));
    if (n.output_size() < schema.min_output() || n.output_size() > schema.max_output())
      refuse_node(n, index,
                  "expected " + count_range(schema.min_output(), schema.max_output(), "output") + ", got " +
                      std::to_string(n.output_size()) + version() + "; its outputs are " + formal_list(schema.outputs()));
    auto required = [](const std::vector<onnx::OpSchema::FormalParameter>& params, int i) {
      if (params.empty()) return false;
      const size_t at = std::min(static_cast<size_t>(i), params.size() - 1);
      return params[at].GetOption() == onnx::OpSchema::Single ||
             (params[at].GetOption() == onnx::OpSchema::Variadic && i < params[at].GetMinArity());
    };
    for (int i = 0; i < n.input_size(); ++i)
      if (n.input(i).empty() && required(schema.inputs(), i))
        refuse_node(n, index, ctx.operand(i) + " is required" + version() + ", got an empty name");
    for (int i = 0; i < n.output_size(); ++i)
      if (n.output(i).empty() && required(schema.outputs(), i))
        refuse_node(n, index, ctx.result(i) + " is required" + version() + ", got an empty name");
    // The names given, sorted once to find one given twice (no set per node).
    std::vector<std::string_view> seen;
    seen.reserve(static_cast<size_t>(n.attribute_size()));
    for (const auto& a : n.attribute()) seen.push_back(a.name());
    std::sort(seen.begin(), seen.end());
    if (auto twice = std::adjacent_find(seen.begin(), seen.end()); twice != seen.end())
      refuse_node(n, index, "attribute '" + std::string(*twice) + "' is given twice");
    for (const auto& a : n.attribute()) {
      auto it = schema.attributes().find(a.name());
      if (it == schema.attributes().end()) {
        std::string known;
        for (const auto& [name, spec] : schema.attributes()) known += (known.empty() ? "'" : ", '") + name + "'";
        refuse_node(n, index,
                    "attribute '" + a.name() + "' is not an attribute of " + n.op_type() + version() + "; expected " +
                        (known.empty() ? "no attributes" : "one of " + known));
      }
      const auto expected = static_cast<onnx::AttributeProto::AttributeType>(it->second.type);
      if (a.type() != expected)
        refuse_node(n, index,
                    "attribute '" + a.name() + "' is " + attribute_kind_name(a.type()) + "; expected " +
                        attribute_kind_name(expected) + version());
    }
    for (const auto& [name, spec] : schema.attributes())
      if (spec.required && !std::binary_search(seen.begin(), seen.end(), std::string_view(name)))
        refuse_node(n, index,
                    "attribute '" + name + "' (" +
                        attribute_kind_name(static_cast<onnx::AttributeProto::AttributeType>(spec.type)) +
                        ") is required" + version() + ", got none");
  }

  /// The inputs' element types are among those the schema allows, and
  /// inputs of one type variable ("T") have one type, as ONNX's type
  /// inference (and so ONNX Runtime) requires.
  void check_input_types(const onnx::NodeProto& n, const onnx::OpSchema& schema, NodeContext& ctx) {
    const auto& params = schema.inputs();
    // Type variable -> first input of it; a schema has a few variables, so
    // a scan, not a map allocated per node.
    struct FirstOfType {
      const std::string* type_str;
      int input;
    };
    SmallVector<FirstOfType, 4> first_of_type;
    for (int i = 0; i < n.input_size(); ++i) {
      if (n.input(i).empty() || params.empty()) continue;
      const Entry& e = im_.entry(n.input(i));
      if (!e.unavailable.empty()) continue;  // refused where the handler reads it
      const auto& param = params[std::min(static_cast<size_t>(i), params.size() - 1)];
      const int32_t elem = onnx_import::onnx_elem_type(e.type.dtype);
      if (!param.GetTypes().count(e.seq ? seq_data_type(elem) : tensor_data_type(elem))) {
        std::set<std::string> allowed;  // "float" for "tensor(float)"
        for (const auto* t : param.GetTypes()) {
          const bool tensor = t->rfind("tensor(", 0) == 0 && t->back() == ')';
          allowed.insert(tensor ? t->substr(7, t->size() - 8) : *t);
        }
        std::string list;
        for (const auto& t : allowed) list += (list.empty() ? "" : ", ") + t;
        const bool variable = param.GetTypeStr().rfind("tensor(", 0) != 0;
        onnx_import::refuse(
            ctx.typed_operand(static_cast<size_t>(i)) + (e.seq ? " is a sequence of " : " has element type ") +
            onnx_import::onnx_type_name(elem) +
            "; expected " + (allowed.size() == 1 ? list : "one of " + list) + " (" + n.op_type() + " of opset " +
            std::to_string(node_opset(n)) + (variable ? ", type '" + param.GetTypeStr() + "'" : std::string()) + ")");
      }
      if (i >= static_cast<int>(params.size()) && !param.GetIsHomogeneous()) continue;
      auto it = std::find_if(first_of_type.begin(), first_of_type.end(),
                             [&](const FirstOfType& f) { return *f.type_str == param.GetTypeStr(); });
      if (it == first_of_type.end()) {
        first_of_type.push_back({&param.GetTypeStr(), i});
        continue;
      }
      const DType first = im_.entry(n.input(it->input)).type.dtype;
      if (first != e.type.dtype)
        onnx_import::refuse(ctx.typed_operand(static_cast<size_t>(i)) + " has element type " +
                            onnx_import::onnx_type_name(elem) + "; expected " +
                            onnx_import::onnx_type_name(onnx_import::onnx_elem_type(first)) + ", the type of " +
                            ctx.typed_operand(static_cast<size_t>(it->input)) + " (both are of type '" +
                            param.GetTypeStr() + "' of " + n.op_type() + ")");
    }
  }

  void import_node(const onnx::GraphProto& g, int index) {
    const onnx::NodeProto& n = g.node(index);
    const auto where = [&] { return node_where(n, index); };  // for refusals only
    const onnx::OpSchema* schema = schema_of(n);
    try {
      for (int i = 0; i < n.input_size(); ++i) {
        const std::string& name = n.input(i);
        if (name.empty() || im_.has_entry(name)) continue;
        NodeContext ctx(im_, n, static_cast<int>(node_opset(n)), schema);
        if (producers_.count(name))  // import_order puts producers first
          internal_error(where() + ": " + ctx.operand(i) + " is read before the node that produces it is imported");
        onnx_import::refuse(ctx.operand(i) +
                            " is not defined (no graph input, initializer or earlier node produces it)");
      }
      NodeContext ctx(im_, n, static_cast<int>(node_opset(n)), schema);
      check_input_types(n, *schema, ctx);
      const int64_t opset = node_opset(n);
      if (is_microsoft_domain(n.domain())) {
        onnx_import::microsoft_handlers().at(n.op_type())(ctx);
      } else {
        const onnx_import::Handler legacy =
            opset < onnx_import::kHandlersOpset ? onnx_import::legacy_handler(n.op_type(), opset) : nullptr;
        (legacy ? legacy : handlers().at(n.op_type()))(ctx);
      }
    } catch (ImportRefusal& e) {
      e.add_context(where() + ": ");
      // A message naming a dim the model neither sizes nor names
      // ("input_dim0") says which input it is of and how --shape sizes it.
      if (const std::string note = im_.unnamed_dims_note(e.what()); !note.empty()) {
        const std::source_location site = e.site();  // the refusal's own line
        onnx_import::refuse(e.what() + note, site);
      }
      throw;
    } catch (const CompileError& e) {
      // The operator table's shape functions check what the handlers emit.
      onnx_import::refuse(where() + ": " + e.what() + im_.unnamed_dims_note(e.what()));
    } catch (const std::exception& e) {
      internal_error(where() + ": a handler did not check what it read (" + e.what() + ")");
    }
    for (int i = 0; i < n.output_size(); ++i) {
      if (!n.output(i).empty() && !im_.has_entry(n.output(i)))
        internal_error(where() + ": output " + std::to_string(i) + " '" + n.output(i) + "' was not defined");
    }
  }

  void set_outputs(const onnx::GraphProto& g) {
    Program& p = im_.program();
    std::vector<Value*> values;
    for (const auto& o : g.output()) {
      if (!im_.has_entry(o.name()))
        refuse("graph output '" + o.name() + "' is not produced by any node, initializer or input");
      Value* v = nullptr;
      try {
        v = im_.materialize(o.name());
      } catch (ImportRefusal& e) {
        e.add_context(what_ + ": graph output '" + o.name() + "': ");
        throw;
      }
      values.push_back(v);
      p.outputs.push_back(OutputSpec{OutputKind::UserOutput, v->name(), o.name()});
    }
    if (values.empty()) refuse("the graph has no outputs");
    p.graph.set_outputs(values);
  }

  void finish() {
    Program& p = im_.program();
    ensure_outputs_are_calls(p);
    // Calls emitted for shape arithmetic that folded into attributes are
    // unread now; so are constants only they read.
    auto calls = p.graph.calls();
    for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
      bool used = false;
      for (size_t i = 0; i < (*it)->num_results(); ++i) used |= (*it)->result(i)->has_uses();
      if (!used) p.graph.erase(*it);
    }
    remove_unread_constants(p, {});
    const auto problems = verify(p);
    if (!problems.empty()) {
      std::string msg = what_ + ": the imported program does not verify:";
      for (const auto& e : problems) msg += "\n  " + e;
      internal_error(msg);
    }
  }

  std::unique_ptr<Program> program_;
  Importer im_;
  std::string what_;
  onnx_import::ExternalDataSource external_;
  /// Each value name -> the first node that outputs it.
  std::unordered_map<std::string, int> producers_;
  /// The graph being imported (the model's, or a subgraph of it).
  const onnx::GraphProto* graph_ = nullptr;
  /// Empty for the model's graph; the subgraph's name inside one.
  std::string scope_;
  // By op_type, then opset (a model uses one or two opsets): looked up per
  // node without building a key.
  struct SchemaAt {
    int opset;
    const onnx::OpSchema* schema;
  };
  using SchemasByOpset = SmallVector<SchemaAt, 2>;
  mutable std::unordered_map<std::string, SchemasByOpset> schemas_;
  int64_t default_opset_ = -1;
  /// Why ONNX's version converter could not bring an old model to opset 13.
  std::string conversion_failure_;
  /// Nodes of an old model kept at their opset (first output -> opset).
  std::unordered_map<std::string, int64_t> kept_at_old_opset_;
  std::set<std::string> dim_params_;
  /// Graph input dims' sizes and bounds from the options (input_dims.h).
  onnx_import::InputDimSizes input_dims_;
  std::map<std::string, int64_t> opsets_;
};

// Protobuf refuses messages nested deeper than 100 (its default recursion
// limit): a model of deeply nested If/Loop subgraphs fails here, cleanly.
constexpr const char* kParseFailure =
    ": not a valid ONNX model (the protobuf data does not parse; the file may be truncated, not an ONNX file, or "
    "nest messages such as subgraphs deeper than protobuf's limit of 100)";

// Protobuf reads at most INT32_MAX bytes; models past that keep their
// weights in external data files. A model file is held whole while it is
// parsed, so one past the memory limit (`limit`) is refused too.
[[noreturn]] void too_large(const std::string& what, uint64_t size, uint64_t limit = UINT64_MAX) {
  onnx_import::refuse(what + ": the file has " + std::to_string(size) + " bytes, more than " +
                      (size > static_cast<uint64_t>(INT32_MAX)
                           ? std::string("the 2 GiB (2147483647 bytes) protobuf can parse; save the model with its "
                                         "weights as external data")
                           : "the memory limit of " + std::to_string(limit) +
                                 " bytes (set EDGEC_MEMORY_LIMIT to change it)"));
}

// The model's messages live in an arena: a model of 10^5 nodes is millions
// of small messages, whose one-by-one allocation and destruction took
// half of the import.
onnx::ModelProto* new_model(google::protobuf::Arena& arena) {
  return google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
}

}  // namespace

std::unique_ptr<Program> import_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                           const OnnxImportOptions& options) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) too_large(what, bytes.size());
  google::protobuf::Arena arena;
  onnx::ModelProto* model = new_model(arena);
  if (!model->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) onnx_import::refuse(what + kParseFailure);
  // No folder: external data is refused (there is no file it is next to).
  return ModelImporter(what, options).run(*model);
}

std::unique_ptr<Program> import_onnx(const std::string& path, const OnnxImportOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    io_error(path + ": cannot open the file: " + (ec ? ec.message() : std::string("no such file")));
  if (!fs::is_regular_file(status)) io_error(path + ": not a regular file; expected an ONNX model file");
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) io_error(path + ": cannot read the file: " + ec.message());
  if (const uint64_t limit = memory_limit(); size > static_cast<uintmax_t>(INT32_MAX) || size > limit)
    too_large(path, size, limit);
  // External data is named relative to the folder holding the model.
  onnx_import::ExternalDataSource external;
  external.folder = fs::canonical(fs::absolute(fs::path(path)).parent_path(), ec);
  if (ec) io_error(path + ": cannot resolve the folder holding the model: " + ec.message());

  std::ifstream in(path, std::ios::binary);
  if (!in) io_error(path + ": cannot open the file");
  // Parsed from the stream, so that a large model's weights are in memory
  // once (in the model), not also as the file's bytes.
  google::protobuf::Arena arena;
  onnx::ModelProto* model = new_model(arena);
  if (!model->ParseFromIstream(&in)) {
    if (in.bad()) io_error(path + ": cannot read the file");
    onnx_import::refuse(path + kParseFailure);
  }
  return ModelImporter(path, options, std::move(external)).run(*model);
}

}  // namespace edgec
