// The program IR (docs/semantics.md §1): one graph of placeholder / call / output
// nodes, its signature (input and output specs) and its data (state and
// constants stores).
//
// Ownership: a Graph owns its Nodes, a Node owns its result Values. Every
// Value keeps the list of (node, input index) pairs that read it; the editing
// API below is the only way to change inputs, so use lists stay right.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/attrs.h"
#include "base/small_vector.h"
#include "base/target.h"
#include "ops/op_info.h"
#include "base/tensor_type.h"

namespace edgec {

class Graph;
class Node;
struct OpInfo;
struct Program;

/// The operator of a call that runs a delegate program (docs/semantics.md §4.4). It is
/// not in the operator table: its inputs are the delegate program's user
/// inputs and its results the delegate's outputs, in order, and its only
/// attribute `delegate` indexes Program::delegates.
inline constexpr std::string_view kCallDelegateOp = "call_delegate";

/// Control flow (docs/semantics.md §8). Not in the operator table: their
/// result types come from their regions, which are graphs of their own.
///
///   cond(%pred, [captures...])                -> results        regions: then, else
///   loop(%trips, %cond, [carried...], [captures...]) -> carried..., stacked...
///                                                               region: body
///
/// A region is closed: it reads nothing of the enclosing graph but its
/// placeholders, which the call binds to its operands. A `cond` branch's
/// placeholders are the captures; a `loop` body's are the iteration number
/// (i64[]), the condition (bool[]), the carried values and the captures, and
/// its outputs the next condition, the next carried values and one element
/// per stacked result (stacked on a new dim 0, one row per iteration run).
inline constexpr std::string_view kCondOp = "cond";
inline constexpr std::string_view kLoopOp = "loop";

/// One backend's reason for not taking a call (docs/semantics.md §4.1).
struct Refusal {
  std::string backend;
  std::string reason;
  bool operator==(const Refusal& o) const = default;
};

struct Use {
  Node* user = nullptr;
  int input_index = 0;  ///< Index into user->inputs().
  bool operator==(const Use& o) const = default;
};

class Value {
 public:
  const std::string& name() const { return name_; }
  const TensorType& type() const { return type_; }
  void set_type(TensorType type) { type_ = std::move(type); }
  Node* producer() const { return producer_; }
  int result_index() const { return result_index_; }
  /// Every (node, input index) that reads this value, in no particular order.
  std::span<const Use> uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }

  /// Makes every reader of this value read `other` instead.
  void replace_all_uses_with(Value* other);

 private:
  friend class Node;
  friend class Graph;
  Value(Node* producer, int index, std::string name, TensorType type)
      : producer_(producer), result_index_(index), name_(std::move(name)), type_(std::move(type)) {}
  // Uses are unordered: a use leaves by swapping with the last one, its
  // place known from the user (Node::use_slots_), so that rewiring or
  // erasing the readers of a value read 10^5 times is linear, not quadratic.
  void add_use(Use u);
  void remove_use(Use u);

  Node* producer_;
  int result_index_;
  std::string name_;
  TensorType type_;
  SmallVector<Use, 2> uses_;
};

enum class NodeKind : uint8_t { Placeholder, Call, Output };

class Node {
 public:
  NodeKind kind() const { return kind_; }
  bool is_call() const { return kind_ == NodeKind::Call; }
  bool is_placeholder() const { return kind_ == NodeKind::Placeholder; }
  bool is_output() const { return kind_ == NodeKind::Output; }
  Graph* graph() const { return graph_; }

  /// Full operator name of a call, with dialect: "aten.add.Tensor".
  const std::string& op() const { return op_.str(); }
  void set_op(std::string_view op) {
    op_ = Symbol(op);
    op_info_ = nullptr;
  }
  /// The operator table's row for op(), once looked up (op_of in
  /// ir/operator.h); null until then.
  const OpInfo* cached_op_info() const { return op_info_; }
  void cache_op_info(const OpInfo* info) const { op_info_ = info; }

  std::span<Value* const> inputs() const { return inputs_; }
  Value* input(size_t i) const {
    if (i >= inputs_.size()) throw std::out_of_range("Node::input: no input " + std::to_string(i));
    return inputs_[i];
  }
  void set_input(size_t i, Value* v);
  /// Appends `v` to the last operand group, which must be a list (a
  /// control-flow call's captures).
  void append_to_last_list(Value* v);
  /// Removes input `i`, which must be in the last operand group, a list.
  void erase_from_last_list(size_t i);
  std::span<const OperandGroup> operand_groups() const;

  const Attrs& attrs() const { return attrs_; }
  Attrs& attrs() { return attrs_; }

  size_t num_results() const { return results_.size(); }
  Value* result(size_t i = 0) const { return results_.at(i).get(); }
  /// The name diagnostics use for the node: its first result, or "output".
  std::string label() const;

  /// Delegation tag set by a partitioner (empty: untagged). docs/semantics.md §4.
  const std::string& tag() const { return tag_.str(); }
  void set_tag(std::string_view tag) { tag_ = Symbol(tag); }

  /// Why each backend that saw this call did not take it, in priority order.
  const std::vector<Refusal>& refusals() const { return refusals_; }
  void add_refusal(Refusal r) { refusals_.push_back(std::move(r)); }
  void set_refusals(std::vector<Refusal> r) { refusals_ = std::move(r); }

  bool is_delegate_call() const { return kind_ == NodeKind::Call && op_.str() == kCallDelegateOp; }
  bool is_cond() const { return kind_ == NodeKind::Call && op_.str() == kCondOp; }
  bool is_loop() const { return kind_ == NodeKind::Call && op_.str() == kLoopOp; }
  bool is_control_flow() const { return is_cond() || is_loop(); }

  /// The graphs this call owns (a control-flow call's branches or body).
  size_t num_regions() const { return regions_.size(); }
  Graph& region(size_t i) const { return *regions_.at(i); }
  /// Adds an empty region (a graph whose names are unique program-wide
  /// with its root's) and returns it.
  Graph& add_region();
  /// Takes a region built apart (Graph::Graph(Graph&) with this node's
  /// graph's root); throws CompileError for a graph of another root.
  Graph& adopt_region(std::unique_ptr<Graph> region);

  /// Only a Graph makes nodes (it holds them in its list, in place).
  class Key {
    friend class Graph;
    Key() = default;
  };
  Node(Key, Graph* g, NodeKind kind) : graph_(g), kind_(kind) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

 private:
  friend class Graph;
  friend class Value;

  /// Plain operand groups of nodes with up to this many inputs are implied.
  static constexpr size_t kImpliedPlainGroups = 64;
  void store_groups(std::span<const OperandGroup> groups);

  // A node of a large graph is one block, small enough for the
  // allocator's 256-byte size class: names are interned, the usual few
  // inputs inline, and plain operand groups implied.
  Graph* graph_;
  Symbol op_;                          ///< Interned: a few hundred distinct names.
  Symbol tag_;                         ///< Interned: one per partition.
  mutable uint32_t position_ = 0;      ///< Valid while the graph's positions are (Graph::position).
  NodeKind kind_;
  SmallVector<Value*, 3> inputs_;
  SmallVector<uint32_t, 3> use_slots_;  ///< Per input: where its use sits in the input's uses().
  std::vector<OperandGroup> groups_;    ///< Empty: one plain operand per input (operand_groups()).
  Attrs attrs_;
  std::vector<std::unique_ptr<Value>> results_;
  std::vector<Refusal> refusals_;
  std::vector<std::unique_ptr<Graph>> regions_;
  std::list<Node>::iterator self_;
  mutable const OpInfo* op_info_ = nullptr;
};

/// The description of a call to create (see Graph::create_call).
struct CallSpec {
  std::string op;
  std::vector<Value*> inputs;
  std::vector<OperandGroup> groups;  ///< Empty: one plain operand per input.
  Attrs attrs;
  std::vector<TensorType> result_types;
  std::vector<std::string> result_names;  ///< Optional name hints.
};

class Graph {
 public:
  Graph() = default;
  /// A region of a graph under `root` (not yet owned by a call: see
  /// Node::adopt_region). Its value names are unique among every graph
  /// under the root, so a value's name names it program-wide (the memory
  /// plan and the file key values by name).
  explicit Graph(Graph& root) : root_(&root.root()) {}
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Nodes in order. The output node, when present, is last.
  std::vector<Node*> nodes() const;
  std::vector<Node*> placeholders() const;
  std::vector<Node*> calls() const;
  Node* output_node() const;
  size_t size() const { return nodes_.size(); }
  /// The top graph of the program this graph is part of (itself for it).
  Graph& root() const { return *root_; }
  bool is_region() const { return root_ != this; }
  /// The call owning this region (nullptr for the top graph or a region
  /// not yet adopted).
  Node* owner() const { return owner_; }

  /// Appends a placeholder after the leading run of placeholders (where the
  /// verifier wants every placeholder), or before `before` if given. O(1)
  /// amortized: folding that adds K constants to a graph of N nodes costs
  /// O(K), not O(K * N).
  Node* add_placeholder(const std::string& name_hint, TensorType type, Node* before = nullptr);
  /// Creates a call node before `before` (nullptr: before the output node, or
  /// at the end when there is none).
  Node* create_call(CallSpec spec, Node* before = nullptr);
  Node* create_call_after(CallSpec spec, Node* after);
  /// Creates or replaces the output node, reading `values`.
  Node* set_outputs(const std::vector<Value*>& values);

  /// Removes a node whose results have no users. Throws CompileError otherwise.
  void erase(Node* node);
  /// Moves `node` to just before `before`.
  void move_before(Node* node, Node* before);
  /// Moves `node` to the end of the graph.
  void move_to_end(Node* node);
  /// The node after `node`, or nullptr when it is the last.
  Node* next_node(const Node* node) const;

  /// A value name not yet used in this graph or any other under its root,
  /// based on `hint`.
  std::string unique_name(const std::string& hint);
  Value* find_value(const std::string& name) const;
  void rename(Value* v, const std::string& new_name);

  /// Where `node` stands in this graph's order (0 for the first node), or
  /// SIZE_MAX when it is not one of this graph's nodes. Positions are
  /// numbered in one walk when first asked for after an edit, so checking
  /// the order of every use of a graph is linear (as LLVM orders the
  /// instructions of a block).
  size_t position(const Node* node) const;

 private:
  friend class Node;
  // Nodes live in the list itself: walking the graph touches one object
  // per node, not a list cell and then the node.
  using NodeList = std::list<Node>;
  Node* insert_node(NodeKind kind, NodeList::iterator pos);
  Value* add_result(Node* node, const std::string& hint, TensorType type);
  /// Keeps placeholders_end_ right when `node` leaves its place (erase,
  /// move) and after it arrives at `pos` (insert, move).
  void leaving(const Node* node);
  void arrived(const Node* node, NodeList::iterator pos);
  /// The first node after the leading run of placeholders.
  NodeList::iterator placeholder_run_end() const;

  /// Names of values of every graph under this root (regions'); the root
  /// keeps the set, regions register theirs in it.
  bool name_taken(const std::string& name) const;
  void claim_name(const std::string& name);
  void release_name(const std::string& name);
  /// Releases the names of every value in this graph and its regions (its
  /// owner is being erased).
  void release_all_names();

  Graph* root_ = this;
  Node* owner_ = nullptr;
  std::unordered_map<std::string, int> region_names_;  ///< Root only: name -> 1.
  NodeList nodes_;
  /// Every node before it is a placeholder; it may lag behind the end of
  /// the leading run (placeholder_run_end() advances it), never pass it.
  mutable NodeList::iterator placeholders_end_ = nodes_.end();
  std::unordered_map<std::string, Value*> values_by_name_;
  std::unordered_map<std::string, int> name_counters_;
  size_t num_placeholders_ = 0;
  mutable bool positions_valid_ = false;
};

enum class InputKind : uint8_t { UserInput, Parameter, Buffer, Constant };
enum class OutputKind : uint8_t { UserOutput, BufferMutation };

const char* input_kind_name(InputKind kind);
const char* output_kind_name(OutputKind kind);

/// One graph input, in placeholder order. `arg` names the placeholder's value.
struct InputSpec {
  InputKind kind = InputKind::UserInput;
  std::string arg;
  std::string target;       ///< Store key (empty for user inputs).
  bool persistent = false;  ///< Buffers only.
  bool operator==(const InputSpec& o) const = default;
};

/// One graph output, in output order. `arg` names the returned value; target
/// is the output's user-facing name (user_output) or the buffer it writes.
struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  std::string arg;
  std::string target;
  bool operator==(const OutputSpec& o) const = default;
};

/// Bytes of a stored tensor. Shared so that programs cut from one another
/// (delegates) and folded copies reference one buffer, not copies of it.
struct TensorData {
  TensorType type;  ///< Always static.
  std::shared_ptr<const std::vector<std::byte>> bytes;  ///< Null when elided in text.
  /// `bytes` hold one element that every element of `type` repeats: the
  /// textual IR's dense<v>, kept so by parse_program only when asked
  /// (ParseOptions::keep_splats, for `edgec opt`), and expanded by
  /// expand_splats (ir/text.h) before anything reads the elements.
  bool splat = false;
};

/// Stored tensors by target. A hash map: every pass and the verifier look
/// targets up, and code that needs an order (the printer) sorts.
using Store = std::unordered_map<std::string, TensorData>;

/// Where memory_plan placed one activation: [offset, offset + size) of the
/// arena. Values with overlapping lifetimes never overlap in the arena.
struct PlannedValue {
  uint64_t offset = 0;
  uint64_t size = 0;  ///< Bytes reserved: the type's (upper-bound) size, aligned.
  bool operator==(const PlannedValue& o) const = default;
};

struct MemoryPlan {
  uint64_t arena_size = 0;
  std::unordered_map<std::string, PlannedValue> values;  ///< By value name.
  bool empty() const { return values.empty() && arena_size == 0; }
};

/// A delegate program (docs/semantics.md §4.4): the partition a backend took, as a
/// program of its own, called by a `call_delegate` node of the owning program.
struct Delegate {
  std::string backend;  ///< Backend id: "reference", "onednn".
  std::unique_ptr<Program> program;
};

struct Program {
  std::string dialect = "aten";
  Graph graph;
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
  Store state;      ///< Parameters and persistent buffers.
  Store constants;  ///< Constants and non-persistent buffers.
  MemoryPlan memory_plan;  ///< Set by the memory_plan pass; empty before.
  /// Set by to_backend; indexed by the `delegate` attribute of call_delegate.
  std::vector<Delegate> delegates;
  /// The machine it is compiled for: it chose the delegates and the layouts
  /// of their stored weights (base/target.h). Written into the file.
  Target target = kHostTarget;

  /// The spec of the placeholder `v`, or nullptr.
  const InputSpec* input_spec_of(const Value* v) const;
  /// The store an input kind requires (docs/semantics.md §1).
  Store& store_for(const InputSpec& spec) { return requires_state(spec) ? state : constants; }
  const Store& store_for(const InputSpec& spec) const {
    return requires_state(spec) ? state : constants;
  }
  static bool requires_state(const InputSpec& spec) {
    return spec.kind == InputKind::Parameter || (spec.kind == InputKind::Buffer && spec.persistent);
  }
};

}  // namespace edgec
