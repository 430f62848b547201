// import_onnx: parses the ModelProto, checks versions, builds the signature
// (user inputs, parameters, lazily made constants), hands each node to the
// handler of its op_type, then returns the graph outputs and verifies.
//
// Node errors are prefixed with "FILE: node 'NAME' (#INDEX, OP_TYPE, domain
// D, opset N): " so that a user can find the node in Netron.
#include "frontends/onnx/importer.h"

#include <cctype>
#include <fstream>
#include <set>

#include "frontends/onnx/context.h"
#include "ir/diagnostic.h"
#include "ir/verifier.h"
#include "passes/program_edits.h"

namespace edgec {
namespace {

using onnx_import::Entry;
using onnx_import::HandlerTable;
using onnx_import::Importer;
using onnx_import::NodeContext;

constexpr int64_t kMinOpset = 13;
constexpr int64_t kMaxOpset = 17;
constexpr int64_t kMaxIrVersion = 8;

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    onnx_import::register_elementwise_handlers(t);
    onnx_import::register_shape_handlers(t);
    onnx_import::register_nn_handlers(t);
    onnx_import::register_index_handlers(t);
    return t;
  }();
  return table;
}

}  // namespace

std::vector<std::string> onnx_supported_operators() {
  std::vector<std::string> out;
  for (const auto& [op, handler] : handlers()) out.push_back(op);
  return out;
}

std::pair<int64_t, int64_t> onnx_supported_opsets() { return {kMinOpset, kMaxOpset}; }

namespace {

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

class ModelImporter {
 public:
  ModelImporter(const std::string& what, const OnnxImportOptions& options)
      : program_(std::make_unique<Program>()), im_(*program_, what, options), what_(what) {}

  /// Imports `model`, releasing each initializer's bytes once copied (the
  /// weights of a large model are held once, not twice).
  std::unique_ptr<Program> run(onnx::ModelProto& model) {
    check_versions(model);
    onnx::GraphProto& g = *model.mutable_graph();
    if (g.sparse_initializer_size() > 0) error("sparse initializers are not supported");
    std::set<std::string> initializer_names;
    for (const auto& t : g.initializer()) {
      if (!initializer_names.insert(t.name()).second) error("initializer '" + t.name() + "' appears twice");
    }
    add_graph_inputs(g);
    check_dim_options();
    add_constant_initializers(g);
    for (int i = 0; i < g.node_size(); ++i) import_node(g.node(i), i);
    set_outputs(g);
    finish();
    return std::move(program_);
  }

 private:
  [[noreturn]] void error(const std::string& message) const { throw CompileError(what_ + ": " + message); }

  void check_versions(const onnx::ModelProto& model) {
    if (!model.has_ir_version() || model.ir_version() <= 0)
      error("not an ONNX model (no ir_version; is the file truncated or of another format?)");
    if (model.ir_version() > kMaxIrVersion)
      error("ONNX IR version " + std::to_string(model.ir_version()) +
            " is not supported (edgec reads IR versions up to " + std::to_string(kMaxIrVersion) +
            ", as written by torch 1.13 at opsets 13-17)");
    if (!model.has_graph()) error("not an ONNX model (no graph; is the file truncated?)");
    for (const auto& o : model.opset_import()) {
      if (is_default_domain(o.domain())) {
        default_opset_ = o.version();
      } else {
        opsets_[o.domain()] = o.version();
      }
    }
  }

  TensorType input_type(const onnx::ValueInfoProto& vi) {
    const std::string where = "graph input '" + vi.name() + "'";
    if (!vi.has_type() || !vi.type().has_tensor_type()) error(where + " is not a tensor");
    const auto& tt = vi.type().tensor_type();
    const auto dtype = onnx_import::dtype_from_onnx(tt.elem_type());
    if (!dtype)
      error(where + " has element type " + onnx_import::onnx_type_name(tt.elem_type()) +
            ", which edgec does not support (float, float16, int64, int32, int8, uint8, bool)");
    if (!tt.has_shape()) error(where + " has no shape; re-export the model with a fixed rank");
    std::vector<Dim> dims;
    const auto& opts = im_.options();
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) error(where + " has a negative size in dim " + std::to_string(i));
        dims.push_back(Dim::fixed(d.dim_value()));
      } else if (d.has_dim_param() && !d.dim_param().empty()) {
        const std::string& p = d.dim_param();
        dim_params_.insert(p);
        if (auto it = opts.dim_sizes.find(p); it != opts.dim_sizes.end()) {
          if (it->second < 0) error("dim_sizes gives '" + p + "' the negative size " + std::to_string(it->second));
          dims.push_back(Dim::fixed(it->second));
        } else {
          auto b = opts.dim_bounds.find(p);
          std::string symbol = onnx_import::sanitize_name(p);
          for (char& c : symbol)
            if (c == '.') c = '_';
          if (std::isdigit(static_cast<unsigned char>(symbol[0]))) symbol = "d" + symbol;
          dims.push_back(Dim::symbolic(symbol, b == opts.dim_bounds.end() ? -1 : b->second));
        }
      } else {
        error(where + " has no size for dim " + std::to_string(i) +
              " (neither a value nor a name); give it a size (dim_sizes)");
      }
    }
    return TensorType(*dtype, std::move(dims));
  }

  static void release_data(onnx::TensorProto& t) { std::string().swap(*t.mutable_raw_data()); }

  void add_graph_inputs(onnx::GraphProto& g) {
    std::map<std::string, onnx::TensorProto*> inits;
    for (auto& t : *g.mutable_initializer()) inits[t.name()] = &t;
    std::set<std::string> seen;
    for (const auto& vi : g.input()) {
      if (!seen.insert(vi.name()).second) error("graph input '" + vi.name() + "' is listed twice");
      auto it = inits.find(vi.name());
      Program& p = im_.program();
      auto bound = im_.options().input_values.find(vi.name());
      if (it != inits.end() && bound != im_.options().input_values.end()) {
        // The value given replaces the default and is folded as a constant.
        const TensorData init = onnx_import::tensor_from_proto(*it->second, what_ + ": initializer '" + vi.name() + "'");
        release_data(*it->second);
        check_bound_value(vi.name(), init.type, bound->second.type);
        Entry e;
        e.data = bound->second;
        e.type = bound->second.type;
        im_.define(vi.name(), std::move(e));
        continue;
      }
      if (it != inits.end()) {
        // An overridable default: a parameter, never folded (SEMANTICS 1).
        TensorData data = onnx_import::tensor_from_proto(*it->second, what_ + ": initializer '" + vi.name() + "'");
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
      error("the value given for graph input '" + name + "' is " + given.str() + ", but the input is " +
            declared.str());
  }

  /// A dim named in the options that no input has is most likely a typo.
  void check_dim_options() const {
    for (const auto& [name, value] : im_.options().input_values) {
      if (im_.has_entry(name)) continue;
      error("a value is given for '" + name + "', which is not a graph input of the model");
    }
    for (const auto* option : {&im_.options().dim_sizes, &im_.options().dim_bounds}) {
      for (const auto& [name, size] : *option) {
        if (dim_params_.count(name)) continue;
        std::string known;
        for (const auto& p : dim_params_) known += (known.empty() ? "" : ", ") + p;
        error((option == &im_.options().dim_sizes ? "dim_sizes" : "dim_bounds") + std::string(" names '") + name +
              "', but no graph input has a dim of that name (the model's: " + (known.empty() ? "none" : known) + ")");
      }
    }
  }

  void add_constant_initializers(onnx::GraphProto& g) {
    for (auto& t : *g.mutable_initializer()) {
      if (im_.has_entry(t.name())) continue;  // also a graph input
      Entry e;
      e.data = onnx_import::tensor_from_proto(t, what_ + ": initializer '" + t.name() + "'");
      release_data(t);
      e.type = e.data->type;
      im_.define(t.name(), std::move(e));
    }
  }

  std::string node_where(const onnx::NodeProto& n, int index, int64_t opset) const {
    const std::string domain = is_default_domain(n.domain()) ? "ai.onnx" : n.domain();
    return what_ + ": node '" + n.name() + "' (#" + std::to_string(index) + ", " + n.op_type() + ", domain " + domain +
           ", opset " + (opset < 0 ? std::string("none") : std::to_string(opset)) + ")";
  }

  void import_node(const onnx::NodeProto& n, int index) {
    const bool default_domain = is_default_domain(n.domain());
    int64_t opset = -1;
    if (default_domain) {
      opset = default_opset_;
    } else if (auto it = opsets_.find(n.domain()); it != opsets_.end()) {
      opset = it->second;
    }
    const std::string where = node_where(n, index, opset);
    if (!default_domain)
      throw CompileError(where + ": operators of domain '" + n.domain() +
                         "' are not supported (edgec imports the default ONNX domain)");
    if (opset < kMinOpset || opset > kMaxOpset)
      throw CompileError(where + ": opset " + (opset < 0 ? std::string("(none imported)") : std::to_string(opset)) +
                         " of the default domain is not supported (edgec imports opsets " + std::to_string(kMinOpset) +
                         "-" + std::to_string(kMaxOpset) + ")");
    const auto& table = handlers();
    auto h = table.find(n.op_type());
    if (h == table.end())
      throw CompileError(where + ": operator " + n.op_type() + " is not supported by the edgec ONNX importer");
    for (int i = 0; i < n.input_size(); ++i) {
      const std::string& name = n.input(i);
      if (!name.empty() && !im_.has_entry(name))
        throw CompileError(where + ": input " + std::to_string(i) + " '" + name +
                           "' is not defined (no graph input, initializer or earlier node produces it)");
    }
    NodeContext ctx(im_, n, static_cast<int>(opset));
    try {
      h->second(ctx);
    } catch (const CompileError& e) {
      throw CompileError(where + ": " + e.what());
    } catch (const std::exception& e) {
      // A malformed node (an empty K, a missing list entry) that a handler
      // did not anticipate still gets a message naming it.
      throw CompileError(where + ": malformed node (" + e.what() + ")");
    }
    for (int i = 0; i < n.output_size(); ++i) {
      if (!n.output(i).empty() && !im_.has_entry(n.output(i)))
        throw CompileError(where + ": internal error: output " + std::to_string(i) + " '" + n.output(i) +
                           "' was not defined by the importer");
    }
  }

  void set_outputs(const onnx::GraphProto& g) {
    Program& p = im_.program();
    std::vector<Value*> values;
    for (const auto& o : g.output()) {
      if (!im_.has_entry(o.name()))
        error("graph output '" + o.name() + "' is not produced by any node, initializer or input");
      Value* v = nullptr;
      try {
        v = im_.materialize(o.name());
      } catch (const CompileError& e) {
        error("graph output '" + o.name() + "': " + e.what());
      }
      values.push_back(v);
      p.outputs.push_back(OutputSpec{OutputKind::UserOutput, v->name(), o.name()});
    }
    if (values.empty()) error("the graph has no outputs");
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
      std::string msg = "the imported program does not verify (an importer bug):";
      for (const auto& e : problems) msg += "\n  " + e;
      error(msg);
    }
  }

  std::unique_ptr<Program> program_;
  Importer im_;
  std::string what_;
  int64_t default_opset_ = -1;
  std::set<std::string> dim_params_;
  std::map<std::string, int64_t> opsets_;
};

onnx::ModelProto parse_model(std::span<const std::byte> bytes, const std::string& what) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(INT32_MAX))
    throw CompileError(what + ": the file is larger than 2 GiB, which protobuf cannot parse");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CompileError(what +
                       ": not a valid ONNX model (the protobuf data does not parse; the file may be "
                       "truncated or not an ONNX file)");
  return model;
}

}  // namespace

std::unique_ptr<Program> import_onnx_bytes(std::span<const std::byte> bytes, const std::string& what,
                                           const OnnxImportOptions& options) {
  onnx::ModelProto model = parse_model(bytes, what);
  return ModelImporter(what, options).run(model);
}

std::unique_ptr<Program> import_onnx(const std::string& path, const OnnxImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(path + ": cannot open the file");
  // Parsed from the stream, so that a large model's weights are in memory
  // once (in the model), not also as the file's bytes.
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in)) {
    if (in.bad()) throw CompileError(path + ": cannot read the file");
    throw CompileError(path +
                       ": not a valid ONNX model (the protobuf data does not parse; the file may be "
                       "truncated or not an ONNX file)");
  }
  return ModelImporter(path, options).run(model);
}

}  // namespace edgec
