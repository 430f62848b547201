// The importer's working state, shared by the operator handlers (one file
// per family: ops_elementwise.cpp, ops_shape.cpp, ops_nn.cpp, ops_index.cpp).
//
// Every ONNX tensor name maps to an Entry: its type and, when known, its IR
// value, its data (constants, and results computed only from constants) and
// its elements as SymInts (shape values). IR values are made lazily: a
// Constant that only feeds a Reshape's shape never becomes a placeholder,
// and a Shape -> Gather -> Concat chain becomes attributes, not calls.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <functional>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/refusal.h"
#include "frontends/onnx/sym_int.h"
#include "frontends/onnx/tensor_data.h"
#include "kernels/registry.h"

namespace onnx {
class OpSchema;
}

namespace edgec {
struct OpInfo;
}

namespace edgec::onnx_import {

/// An ONNX sequence (SequenceConstruct, SplitToSequence, ...). edgec's IR
/// has no sequence type: a sequence exists only while importing, as a list
/// of ordinary tensor values whose number the graph's structure fixes
/// (ops_sequence.cpp).
struct Sequence {
  DType dtype = DType::Float32;  ///< The elements' type (also of an empty sequence).
  int64_t count = 0;             ///< How many elements.
  std::vector<Value*> elements;  ///< `count` values, or none when `unavailable` says why.
  /// The elements stacked on a new dim 0 ([count, ...]), when the
  /// sequence was made from such a tensor; null otherwise.
  Value* stacked = nullptr;
  std::string unavailable;  ///< Non-empty: the elements cannot be read (the count can).
  /// Elements of different shapes placed at run-time positions are tracked
  /// by identity (ops_sequence.cpp): element i is pool[ids[i]], ids an i64
  /// [count] computed at run time, and `elements` are the `pick`s of it.
  /// Null and empty when the elements' order is known at import time.
  Value* ids = nullptr;
  std::vector<Value*> pool;
};

struct Entry {
  TensorType type;
  Value* value = nullptr;                  ///< Null until materialized.
  std::optional<TensorData> data;          ///< Values known at import time.
  std::optional<std::vector<SymInt>> sym;  ///< Elements of an int tensor of rank <= 1.
  std::string unavailable;                 ///< Non-empty: reading it is an error saying why.
  /// The entry this one passes through unchanged (Identity): materializing
  /// it materializes that one, so a constant gets one placeholder and one
  /// target however many names the exporter gives it.
  std::string alias;
  /// Non-null: the value is a sequence (type holds its elements' dtype,
  /// rank 0), and there is no IR value of it.
  std::shared_ptr<const Sequence> seq;
  /// How many regions deep it was defined (0: the program's graph): it is
  /// materialized there, and read inside deeper regions through captures.
  size_t depth = 0;
};

/// Regions being imported together (a cond's two branches, or a loop's
/// body): values of enclosing graphs their nodes read become captures, one
/// placeholder in each region, in the order first read.
struct RegionScope {
  std::vector<Graph*> graphs;
  size_t active = 0;               ///< The region being imported now.
  std::vector<Value*> captured;    ///< Values of the enclosing graph, in capture order.
  std::unordered_map<const Value*, std::vector<Value*>> placeholders;  ///< Per captured value, per region.
};

class Importer {
 public:
  Importer(Program& program, std::string what, const OnnxImportOptions& options)
      : program_(program), what_(std::move(what)), options_(options) {}

  Program& program() { return program_; }
  const std::string& what() const { return what_; }
  const OnnxImportOptions& options() const { return options_; }

  // ---- entries ----
  bool has_entry(const std::string& name) const { return entries_.count(name) != 0; }
  Entry& entry(const std::string& name) { return entries_.at(name); }
  void define(const std::string& name, Entry e) {
    e.depth = std::min(e.depth, depth());
    if (!e.value) e.depth = depth();
    entries_[name] = std::move(e);
  }
  /// The IR value of an entry, creating a placeholder or calls if needed.
  Value* materialize(const std::string& name);

  // ---- emitting calls ----
  /// Emits aten.<op> with result types from the operator table; evaluates
  /// the call when all inputs are known (data recorded, see known()).
  std::vector<Value*> emit_n(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs,
                             const std::string& hint, std::vector<OperandGroup> groups = {});
  Value* emit(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs = {},
              const std::string& hint = "");
  /// The data of an emitted value computed from constants only, or null.
  const TensorData* known(const Value* v) const;
  /// The results of operator `op` (table row) on constant inputs, computed
  /// now as constant_prop would later (not random or allocation operators,
  /// results up to kMaxEvaluatedElements), or nullopt when it does not fold.
  std::optional<std::vector<TensorData>> fold_data(const OpInfo& row, std::span<const TensorData* const> inputs,
                                                   std::span<const OperandGroup> groups, const Attrs& attrs,
                                                   const std::string& hint);
  /// An entry for an emitted value (type, value, known data).
  Entry entry_of(Value* v) const;

  // ---- where values come from (for messages) ----
  /// The graph being imported and, for each value name, the index of the
  /// node that outputs it.
  void set_graph(const onnx::GraphProto* graph, const std::unordered_map<std::string, int>* producers) {
    graph_ = graph;
    producers_ = producers;
  }
  /// Imports `graph`, a subgraph of the node being imported (the taken
  /// branch of an If), into this program: its initializers become
  /// constants and its nodes calls, reading the enclosing graphs' values by
  /// name; afterwards its outputs are entries. `scope` names it in
  /// messages ("then_branch"). The model importer provides this.
  using SubgraphImporter = std::function<void(const onnx::GraphProto& graph, const std::string& scope)>;
  void set_subgraph_importer(SubgraphImporter f) { subgraph_importer_ = std::move(f); }
  void import_subgraph(const onnx::GraphProto& graph, const std::string& scope) {
    if (!subgraph_importer_) internal_error("no subgraph importer for " + scope);
    subgraph_importer_(graph, scope);
  }
  /// Maps a dim's symbol in the IR to the model's dim_param it came from.
  void add_dim_param(const std::string& symbol, const std::string& dim_param) { dim_params_[symbol] = dim_param; }
  /// Marks a dim's symbol as that of an unnamed dim of graph input `input`
  /// (the flag that sizes it is then --shape INPUT=...).
  void add_unnamed_dim(const std::string& symbol, const std::string& input) { unnamed_dims_[symbol] = input; }
  /// Where a value that is not known at import time comes from, and the
  /// flags that would make it known, to follow "computed at run time ":
  /// "from graph input 'shape'; fix that input at compile time (edgec
  /// compile --fix-inputs ...)" (or the symbolic dims it reads: --dim).
  std::string run_time_sources(const std::string& name) const;
  /// "; fix it at compile time (edgec compile --dim batch=SIZE)" for
  /// symbolic dims that are graph inputs' dim_params, or else a hint to fix
  /// the input dims they are computed from.
  std::string dim_fix(const Dims& dims) const;
  std::string dim_fix(const Dim& dim) const { return dim_fix(Dims{dim}); }
  /// "--shape input=SIZEx512": the flag that sizes every dim of graph
  /// input `input` (its fixed sizes given, SIZE for the others).
  std::string shape_flag(const std::string& input) const;
  /// For a message that names dims with neither a size nor a name in the
  /// model ("f32[input_dim0, 128]"): "; input_dim0 is dim 0 of graph input
  /// 'input', which the model neither sizes nor names (edgec compile
  /// --shape input=SIZEx128 sizes it)", or "" (also where the message
  /// already gives that flag).
  std::string unnamed_dims_note(const std::string& message) const;

  // ---- regions (control flow that runs at run time) ----
  /// The graph calls are emitted into: the program's, or the region being
  /// imported.
  Graph& graph() { return graph_at(level_); }
  size_t depth() const { return level_; }
  /// Imports into `scope`'s regions (its `active` one) while it lives.
  class InRegion {
   public:
    InRegion(Importer& im, RegionScope& scope) : im_(im) { im.push_region(scope); }
    ~InRegion() { im_.pop_region(); }
    InRegion(const InRegion&) = delete;
    InRegion& operator=(const InRegion&) = delete;

   private:
    Importer& im_;
  };
  /// `v` as the current graph reads it: itself, or the placeholder that
  /// captures it (through every region between).
  Value* capture(Value* v);

  // ---- helpers for handlers ----
  /// A scalar (rank 0) or filled tensor of static shape.
  Value* full(const std::vector<int64_t>& shape, double value, DType dtype, const std::string& hint);
  /// A bool tensor of shape [n] where n is the part's dim (built from its
  /// source value): broadcasting with it gives a tensor that size.
  Value* dim_carrier(const SymPart& part, const std::string& hint);
  /// A tensor of `dims` (SymInts, each static or one dim), filled with
  /// `value`: statics via full, symbolic dims by broadcasting carriers.
  Value* filled(const std::vector<SymInt>& dims, double value, DType dtype, const std::string& hint);
  /// The run-time i64 scalar equal to `s`.
  Value* sym_scalar(const SymInt& s, const std::string& hint);
  /// Broadcasts `x` (right-aligned) to dims that are static or single dims.
  Value* broadcast_to(Value* x, const std::vector<SymInt>& dims, const std::string& hint);
  /// permute(x, perm), composed with a permute that produced `x` (NonZero's
  /// [n, rank] -> [rank, n] followed by the exporter's Transpose cancels).
  Value* permute(Value* x, std::vector<int64_t> perm, const std::string& hint);

 private:
  Value* add_constant_placeholder(const std::string& target, const TensorData& data);
  Value* materialize_here(const std::string& name);
  std::optional<std::vector<Value*>> fold(const OpInfo& row, const std::vector<Value*>& inputs,
                                          const std::vector<OperandGroup>& groups, const Attrs& attrs,
                                          const std::string& hint);
  std::string next_folded_target();
  /// "input_dim0, input_dim1": the unnamed dims of `inputs`.
  std::string unnamed_dims_in(const std::set<std::string>& inputs) const;

  void push_region(RegionScope& scope);
  void pop_region();
  Graph& graph_at(size_t level) { return level == 0 ? program_.graph : *scopes_[level - 1]->graphs[scopes_[level - 1]->active]; }
  Value* capture_at(size_t level, Value* v);

  Program& program_;
  std::vector<RegionScope*> scopes_;  ///< Innermost last.
  size_t level_ = 0;                  ///< The graph calls go to (scopes_.size() but while materializing outer entries).
  std::string what_;
  const OnnxImportOptions& options_;
  const onnx::GraphProto* graph_ = nullptr;
  const std::unordered_map<std::string, int>* producers_ = nullptr;
  SubgraphImporter subgraph_importer_;
  std::map<std::string, std::string> dim_params_;
  std::map<std::string, std::string> unnamed_dims_;  // symbol -> graph input
  std::unordered_map<std::string, Entry> entries_;  // references stay valid as it grows
  std::unordered_map<const Value*, TensorData> known_;
  KernelContext kernel_ctx_;
  int64_t next_folded_ = 0;
};

/// One node being imported: its inputs, attributes and outputs.
class NodeContext {
 public:
  /// `schema`: the node's operator in the ONNX schema registry at its
  /// opset (names its inputs and outputs in messages).
  NodeContext(Importer& im, const onnx::NodeProto& node, int opset, const onnx::OpSchema* schema = nullptr)
      : im_(im), node_(node), opset_(opset), schema_(schema) {}

  Importer& im() { return im_; }
  const onnx::NodeProto& proto() const { return node_; }
  int opset() const { return opset_; }

  // ---- names for messages ----
  /// "input 1 'shape'", or "input 1 'shape' (value '/Concat_output_0')"
  /// when the value's name differs from the operator's name for the input.
  std::string operand(size_t i) const;
  /// operand() with the input's type: "input 0 'X' (f32[1, 3, 8, 8])".
  std::string typed_operand(size_t i);
  /// The same for output i.
  std::string result(size_t i) const;

  // ---- inputs ----
  size_t num_inputs() const { return static_cast<size_t>(node_.input_size()); }
  /// Input i, or null when absent (past the end or named "").
  Entry* input(size_t i);
  Entry& required(size_t i);
  const TensorType& type(size_t i) { return required(i).type; }
  Value* value(size_t i);
  /// An input that must be known at import time, as int64s; `what` says
  /// what it is ("the target shape").
  std::vector<int64_t> ints(size_t i, const std::string& what);
  /// ints() of an input that holds one value (a scalar or a 1-element list).
  int64_t int_scalar(size_t i, const std::string& what);
  /// Refuses input i, which must be known at import time and is not:
  /// "WHAT (input I 'NAME') must be known at import time, but ...", naming
  /// the graph inputs and dims it comes from and the flags that fix them.
  /// `why` (" (...)") follows "must be known at import time".
  [[noreturn]] void fail_not_known(size_t i, const std::string& what, const std::string& why = "",
                                   std::source_location site = std::source_location::current()) const;
  /// An input whose elements are known, possibly symbolically.
  std::optional<std::vector<SymInt>> sym(size_t i);
  /// The input's data, or null.
  const TensorData* data(size_t i);

  // ---- attributes ----
  const onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t dflt) const;
  double attr_float(const std::string& name, double dflt) const;
  std::string attr_string(const std::string& name, const std::string& dflt) const;
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name) const;

  // ---- outputs ----
  size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
  bool has_output(size_t i) const { return i < num_outputs() && !node_.output(static_cast<int>(i)).empty(); }
  /// A value-name hint for output i.
  std::string hint(size_t i = 0) const;
  void set_output(size_t i, Value* v);
  void set_output(size_t i, Entry e);
  /// Output `out` is input `in`, unchanged.
  void forward(size_t out, size_t in);
  /// Defines a shape value: int64 [n] (or rank 0 when `scalar`).
  void set_sym_output(size_t i, std::vector<SymInt> elems, bool scalar, DType dtype = DType::Int64);
  /// Marks optional outputs past `count` as unavailable (erroring if read).
  void outputs_unsupported_from(size_t count, const std::string& why);

  Value* emit(const std::string& op, const std::vector<Value*>& inputs, const Attrs& attrs = {}) {
    return im_.emit(op, inputs, attrs, hint());
  }
  /// When every input is a constant, computes output 0 as `op` (one
  /// operand per input, in order) of them now and defines it as a
  /// constant, made a placeholder only where something reads it; returns
  /// whether it did (else the caller emits the call).
  bool fold_constants(const std::string& op, const Attrs& attrs = {});

  /// Refuses the node; the importer adds the file and node to the message.
  [[noreturn]] void fail(const std::string& message,
                         std::source_location site = std::source_location::current()) const {
    refuse(message, site);
  }

 private:
  Importer& im_;
  const onnx::NodeProto& node_;
  int opset_;
  const onnx::OpSchema* schema_;
};

using Handler = void (*)(NodeContext& n);
/// Handlers by op_type (looked up per node: hashed; listed sorted by the caller).
using HandlerTable = std::unordered_map<std::string, Handler>;

void register_elementwise_handlers(HandlerTable& table);  // ops_elementwise.cpp
void register_shape_handlers(HandlerTable& table);        // ops_shape.cpp
void register_nn_handlers(HandlerTable& table);           // ops_nn.cpp
void register_detection_handlers(HandlerTable& table);    // ops_detection.cpp
void register_index_handlers(HandlerTable& table);        // ops_index.cpp
void register_einsum_handlers(HandlerTable& table);       // ops_einsum.cpp
void register_newer_handlers(HandlerTable& table);        // ops_newer.cpp
void register_loss_handlers(HandlerTable& table);         // ops_loss.cpp
void register_generator_handlers(HandlerTable& table);    // ops_generators.cpp
void register_control_handlers(HandlerTable& table);      // ops_control.cpp
void register_sequence_handlers(HandlerTable& table);     // ops_sequence.cpp
void register_recurrent_handlers(HandlerTable& table);    // ops_recurrent.cpp
void register_quantized_handlers(HandlerTable& table);    // ops_quantized.cpp

/// ONNX Runtime's com.microsoft domain (ops_microsoft.cpp): the operators
/// edgec imports of it (at its version 1), by op_type, and their schemas.
inline constexpr const char* kMicrosoftDomain = "com.microsoft";
const HandlerTable& microsoft_handlers();
const onnx::OpSchema* microsoft_schema(const std::string& op_type);

// Attribute-building shorthands.
Attrs attrs_of(std::initializer_list<std::pair<std::string, AttrValue>> items);

}  // namespace edgec::onnx_import
