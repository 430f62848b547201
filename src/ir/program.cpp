#include "ir/program.h"

#include <algorithm>

#include "base/diagnostic.h"

namespace edgec {

void Value::add_use(Use u) {
  u.user->use_slots_[static_cast<size_t>(u.input_index)] = static_cast<uint32_t>(uses_.size());
  uses_.push_back(u);
}

void Value::remove_use(Use u) {
  const size_t at = u.user->use_slots_[static_cast<size_t>(u.input_index)];
  if (at >= uses_.size() || !(uses_[at] == u)) throw CompileError("internal error: a use list lost track of a reader");
  const Use last = uses_.back();
  uses_[at] = last;
  last.user->use_slots_[static_cast<size_t>(last.input_index)] = static_cast<uint32_t>(at);
  uses_.pop_back();
}

void Value::replace_all_uses_with(Value* other) {
  if (other == this) return;
  // set_input edits uses_, so walk a copy.
  const std::vector<Use> uses(uses_.begin(), uses_.end());
  for (const Use& u : uses) u.user->set_input(static_cast<size_t>(u.input_index), other);
}

void Node::store_groups(std::span<const OperandGroup> groups) {
  const bool plain = groups.size() <= kImpliedPlainGroups &&
                     std::all_of(groups.begin(), groups.end(), [](const OperandGroup& g) { return g == OperandGroup{}; });
  if (plain) groups_.clear();
  else groups_.assign(groups.begin(), groups.end());
}

void Node::set_input(size_t i, Value* v) {
  if (i >= inputs_.size())
    throw CompileError("internal error: input " + std::to_string(i) + " of a node with " +
                       std::to_string(inputs_.size()) + " inputs");
  Value* old = inputs_[i];
  if (old == v) return;
  const Use use{this, static_cast<int>(i)};
  if (old) old->remove_use(use);
  inputs_[i] = v;
  if (v) v->add_use(use);
}

void Node::append_to_last_list(Value* v) {
  if (groups_.empty() || !groups_.back().is_list)
    throw CompileError("internal error: node " + label() + " has no list operand to append to");
  groups_.back().count += 1;
  inputs_.push_back(nullptr);
  use_slots_.push_back(0);
  set_input(inputs_.size() - 1, v);
}

void Node::erase_from_last_list(size_t i) {
  if (groups_.empty() || !groups_.back().is_list || groups_.back().count == 0 ||
      i < inputs_.size() - static_cast<size_t>(groups_.back().count) || i >= inputs_.size())
    throw CompileError("internal error: input " + std::to_string(i) + " of node " + label() + " is not in its last list");
  // Inputs after i move down one: their uses record their index.
  std::vector<Value*> rest(inputs_.begin() + static_cast<std::ptrdiff_t>(i) + 1, inputs_.end());
  for (size_t k = i; k < inputs_.size(); ++k) set_input(k, nullptr);
  inputs_.resize(i);
  use_slots_.resize(i);
  groups_.back().count -= 1;
  for (Value* v : rest) {
    inputs_.push_back(nullptr);
    use_slots_.push_back(0);
    set_input(inputs_.size() - 1, v);
  }
}

std::span<const OperandGroup> Node::operand_groups() const {
  if (!groups_.empty()) return groups_;
  // Plain operands only: a view of enough plain groups. Nodes with more
  // inputs than this store theirs (see store_groups).
  static const std::vector<OperandGroup> plain(kImpliedPlainGroups, OperandGroup{});
  return {plain.data(), inputs_.size()};
}

Graph& Node::add_region() { return adopt_region(std::make_unique<Graph>(graph_->root())); }

Graph& Node::adopt_region(std::unique_ptr<Graph> region) {
  if (!region || &region->root() != &graph_->root() || region->owner_)
    throw CompileError("internal error: node " + label() + " adopts a region of another program or call");
  region->owner_ = this;
  regions_.push_back(std::move(region));
  return *regions_.back();
}

std::string Node::label() const {
  if (!results_.empty()) return "%" + results_[0]->name();
  return kind_ == NodeKind::Output ? "output" : "<unnamed>";
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const Node& n : nodes_) out.push_back(const_cast<Node*>(&n));
  return out;
}

std::vector<Node*> Graph::placeholders() const {
  // The leading run holds them all unless an edit left one elsewhere (the
  // verifier reports that): walk on only for those.
  std::vector<Node*> out;
  out.reserve(num_placeholders_);
  for (auto it = nodes_.begin(); it != nodes_.end() && out.size() < num_placeholders_; ++it)
    if (it->is_placeholder()) out.push_back(const_cast<Node*>(&*it));
  return out;
}

std::vector<Node*> Graph::calls() const {
  std::vector<Node*> out;
  for (const Node& n : nodes_)
    if (n.is_call()) out.push_back(const_cast<Node*>(&n));
  return out;
}

Node* Graph::output_node() const {
  if (!nodes_.empty() && nodes_.back().is_output()) return const_cast<Node*>(&nodes_.back());
  return nullptr;
}

Graph::~Graph() = default;

bool Graph::name_taken(const std::string& name) const {
  return values_by_name_.count(name) || root_->values_by_name_.count(name) || root_->region_names_.count(name);
}

void Graph::claim_name(const std::string& name) {
  if (is_region()) root_->region_names_[name] = 1;
}

void Graph::release_name(const std::string& name) {
  if (is_region()) root_->region_names_.erase(name);
}

void Graph::release_all_names() {
  for (Node& n : nodes_) {
    for (const auto& r : n.results_) release_name(r->name());
    for (const auto& region : n.regions_) region->release_all_names();
  }
}

std::string Graph::unique_name(const std::string& hint) {
  const std::string base = hint.empty() ? "v" : hint;
  if (!name_taken(base)) return base;
  int& counter = name_counters_[base];
  std::string candidate;
  do {
    candidate = base + "_" + std::to_string(++counter);
  } while (name_taken(candidate));
  return candidate;
}

Value* Graph::find_value(const std::string& name) const {
  auto it = values_by_name_.find(name);
  return it == values_by_name_.end() ? nullptr : it->second;
}

void Graph::rename(Value* v, const std::string& new_name) {
  if (v->name_ == new_name) return;
  if (name_taken(new_name))
    throw CompileError("cannot rename %" + v->name_ + " to %" + new_name + ": name in use");
  values_by_name_.erase(v->name_);
  release_name(v->name_);
  v->name_ = new_name;
  values_by_name_[new_name] = v;
  claim_name(new_name);
}

Value* Graph::add_result(Node* node, const std::string& hint, TensorType type) {
  const std::string name = unique_name(hint);
  auto v = std::unique_ptr<Value>(
      new Value(node, static_cast<int>(node->results_.size()), name, std::move(type)));
  Value* raw = v.get();
  node->results_.push_back(std::move(v));
  values_by_name_[name] = raw;
  claim_name(name);
  return raw;
}

Graph::NodeList::iterator Graph::placeholder_run_end() const {
  while (placeholders_end_ != nodes_.end() && placeholders_end_->is_placeholder()) ++placeholders_end_;
  return placeholders_end_;
}

void Graph::leaving(const Node* node) {
  if (node->self_ == placeholders_end_) placeholders_end_ = std::next(node->self_);
}

void Graph::arrived(const Node* node, NodeList::iterator pos) {
  if (node->is_placeholder()) return;  // a placeholder anywhere keeps "all before it are placeholders"
  if (pos == placeholders_end_) {
    placeholders_end_ = node->self_;
  } else if (pos != nodes_.end() && pos->is_placeholder()) {
    // Inside the leading run or past it: which one is not known in O(1),
    // so start over (graphs are built placeholders first; this is rare).
    placeholders_end_ = nodes_.begin();
  }
}

Node* Graph::insert_node(NodeKind kind, NodeList::iterator pos) {
  const auto it = nodes_.emplace(pos, Node::Key(), this, kind);
  it->self_ = it;
  positions_valid_ = false;
  if (kind == NodeKind::Placeholder) ++num_placeholders_;
  arrived(&*it, pos);
  return &*it;
}

Node* Graph::add_placeholder(const std::string& name_hint, TensorType type, Node* before) {
  const auto pos = before ? before->self_ : placeholder_run_end();
  Node* n = insert_node(NodeKind::Placeholder, pos);
  add_result(n, name_hint, std::move(type));
  return n;
}

namespace {

// The operand groups of `spec`, checked to cover its inputs (before any
// node exists, so a bad spec leaves the graph as it was).
std::vector<OperandGroup> checked_groups(CallSpec& spec) {
  if (spec.groups.empty()) spec.groups.assign(spec.inputs.size(), OperandGroup{});
  size_t total = 0;
  for (const auto& g : spec.groups) total += static_cast<size_t>(g.is_list ? g.count : 1);
  if (total != spec.inputs.size())
    throw CompileError("call to " + spec.op + ": operand groups cover " + std::to_string(total) +
                       " inputs, got " + std::to_string(spec.inputs.size()));
  return std::move(spec.groups);
}

}  // namespace

Node* Graph::create_call(CallSpec spec, Node* before) {
  auto pos = nodes_.end();
  if (before) {
    pos = before->self_;
  } else if (Node* out = output_node()) {
    pos = out->self_;
  }
  std::vector<OperandGroup> groups = checked_groups(spec);
  Node* n = insert_node(NodeKind::Call, pos);
  n->store_groups(groups);
  n->op_ = Symbol(spec.op);
  n->attrs_ = std::move(spec.attrs);
  n->inputs_.assign(spec.inputs.size(), nullptr);
  n->use_slots_.assign(spec.inputs.size(), 0);
  for (size_t i = 0; i < spec.inputs.size(); ++i) n->set_input(i, spec.inputs[i]);
  for (size_t i = 0; i < spec.result_types.size(); ++i) {
    std::string hint = i < spec.result_names.size() ? spec.result_names[i] : std::string();
    if (hint.empty()) hint = std::to_string(values_by_name_.size());
    add_result(n, hint, std::move(spec.result_types[i]));
  }
  return n;
}

Node* Graph::create_call_after(CallSpec spec, Node* after) {
  auto next = std::next(after->self_);
  return create_call(std::move(spec), next == nodes_.end() ? nullptr : &*next);
}

Node* Graph::set_outputs(const std::vector<Value*>& values) {
  Node* out = output_node();
  if (!out) {
    out = insert_node(NodeKind::Output, nodes_.end());
  }
  for (size_t i = 0; i < out->inputs_.size(); ++i) out->set_input(i, nullptr);
  out->inputs_.assign(values.size(), nullptr);
  out->use_slots_.assign(values.size(), 0);
  out->store_groups(std::vector<OperandGroup>(values.size(), OperandGroup{}));
  for (size_t i = 0; i < values.size(); ++i) out->set_input(i, values[i]);
  return out;
}

void Graph::erase(Node* node) {
  for (const auto& r : node->results_) {
    if (r->has_uses())
      throw CompileError("cannot erase node " + node->label() + ": its result %" + r->name() +
                         " still has " + std::to_string(r->uses().size()) + " use(s)");
  }
  for (size_t i = 0; i < node->inputs_.size(); ++i) node->set_input(i, nullptr);
  for (const auto& r : node->results_) {
    values_by_name_.erase(r->name());
    release_name(r->name());
  }
  for (const auto& region : node->regions_) region->release_all_names();
  leaving(node);
  if (node->is_placeholder()) --num_placeholders_;
  positions_valid_ = false;
  nodes_.erase(node->self_);
}

void Graph::move_before(Node* node, Node* before) {
  if (node == before) return;
  leaving(node);
  positions_valid_ = false;
  nodes_.splice(before->self_, nodes_, node->self_);
  arrived(node, before->self_);
}

void Graph::move_to_end(Node* node) {
  leaving(node);
  positions_valid_ = false;
  nodes_.splice(nodes_.end(), nodes_, node->self_);
  arrived(node, nodes_.end());
}

Node* Graph::next_node(const Node* node) const {
  auto it = std::next(node->self_);
  return it == nodes_.end() ? nullptr : const_cast<Node*>(&*it);
}

size_t Graph::position(const Node* node) const {
  if (!node || node->graph_ != this) return SIZE_MAX;
  if (!positions_valid_) {
    size_t i = 0;
    for (const Node& n : nodes_) n.position_ = static_cast<uint32_t>(i++);
    positions_valid_ = true;
  }
  return node->position_;
}

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::UserInput: return "user_input";
    case InputKind::Parameter: return "parameter";
    case InputKind::Buffer: return "buffer";
    case InputKind::Constant: return "constant";
  }
  return "?";
}

const char* output_kind_name(OutputKind kind) {
  switch (kind) {
    case OutputKind::UserOutput: return "user_output";
    case OutputKind::BufferMutation: return "buffer_mutation";
  }
  return "?";
}

const InputSpec* Program::input_spec_of(const Value* v) const {
  for (const auto& spec : inputs)
    if (spec.arg == v->name()) return &spec;
  return nullptr;
}

}  // namespace edgec
