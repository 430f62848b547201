// Control flow known when compiling: If whose condition is known, and Loop
// whose trip count and condition are.
//
// A model often branches on a value the deployment fixes: a voice-activity
// model on its sample rate, an exported module on a flag or a shape. When
// the condition is a constant, folds from constants, or comes from a graph
// input fixed with `edgec compile --fix-inputs`, only the taken branch is
// imported, its nodes inline in the enclosing graph (they read its values
// by name, as ONNX's scoping allows), and no `if` is left in the program.
// A condition computed from run-time data is refused, naming the inputs it
// comes from and the flag that fixes them.
//
// A Loop whose trip count and condition are known (constants, or graph
// inputs fixed with --fix-inputs), and whose body computes a condition that
// folds, is unrolled: the body is imported once per iteration, its values
// renamed per iteration (name@loopN), carried values passed on by name, scan
// outputs stacked on a new dim 0. Unrolling copies the body, so it is bounded:
// kMaxUnrolledNodes body nodes in all, beyond which the Loop is refused
// rather than a program of unbounded size built (a Loop that runs at run
// time is issue 17's next step).
#include <unordered_set>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {

void if_node(NodeContext& n) {
  const TensorData* cond = n.data(0);
  if (!cond)
    n.fail_not_known(0, "the condition",
                     " (edgec imports an If whose condition is known when compiling, and then only the branch it "
                     "takes)");
  const std::vector<double> values = data_as_doubles(*cond);
  if (values.size() != 1)
    n.fail("the condition, " + n.typed_operand(0) + ", holds " + std::to_string(values.size()) +
           " values; expected one");
  const std::string branch_name = values[0] != 0 ? "then_branch" : "else_branch";
  const onnx::GraphProto& branch = n.attr(branch_name)->g();
  if (branch.input_size() != 0)
    n.fail("attribute '" + branch_name + "' (the branch the condition takes) has " +
           std::to_string(branch.input_size()) + " inputs; expected none (a branch reads the enclosing graph's values)");
  if (static_cast<size_t>(branch.output_size()) != n.num_outputs())
    n.fail("attribute '" + branch_name + "' (the branch the condition takes) has " +
           std::to_string(branch.output_size()) + " outputs; expected " + std::to_string(n.num_outputs()) +
           ", one per output of the node");
  n.im().import_subgraph(branch, branch_name);
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    const std::string& name = branch.output(static_cast<int>(i)).name();
    if (!n.im().has_entry(name))
      n.fail(branch_name + " output " + std::to_string(i) + " '" + name +
             "' is not produced by any node or initializer of the branch, nor a value of the enclosing graph");
    if (!n.has_output(i)) continue;
    Entry e = n.im().entry(name);
    if (!e.unavailable.empty()) n.fail(branch_name + " output " + std::to_string(i) + " '" + name + "': " + e.unavailable);
    if (e.alias.empty()) e.alias = name;  // one value, however many names
    n.set_output(i, std::move(e));
  }
}

/// Body nodes a Loop may be unrolled to (iterations times the body's nodes):
/// a model's own graph rarely has more, and the program grows with them.
constexpr int64_t kMaxUnrolledNodes = 10000;

/// Every name `g` (and the graphs inside it) defines: inputs,
/// initializers, node outputs.
void collect_defined(const onnx::GraphProto& g, std::unordered_set<std::string>& out) {
  for (const auto& vi : g.input()) out.insert(vi.name());
  for (const auto& t : g.initializer()) out.insert(t.name());
  for (const auto& node : g.node()) {
    for (const auto& o : node.output())
      if (!o.empty()) out.insert(o);
    for (const auto& a : node.attribute())
      if (a.has_g()) collect_defined(a.g(), out);
  }
}

/// Renames in `g` (and the graphs inside it) every name in `names` to
/// name + suffix: definitions and uses alike.
void rename(onnx::GraphProto& g, const std::unordered_set<std::string>& names, const std::string& suffix) {
  const auto fix = [&](std::string* s) {
    if (!s->empty() && names.count(*s)) *s += suffix;
  };
  for (auto& vi : *g.mutable_input()) fix(vi.mutable_name());
  for (auto& vi : *g.mutable_output()) fix(vi.mutable_name());
  for (auto& t : *g.mutable_initializer()) fix(t.mutable_name());
  g.clear_value_info();
  for (auto& node : *g.mutable_node()) {
    for (auto& i : *node.mutable_input()) fix(&i);
    for (auto& o : *node.mutable_output()) fix(&o);
    for (auto& a : *node.mutable_attribute())
      if (a.has_g()) rename(*a.mutable_g(), names, suffix);
  }
}

/// A bool or int scalar known at import time, or nullopt when absent.
std::optional<double> known_scalar(NodeContext& n, size_t i, const std::string& what, const std::string& why) {
  if (!n.input(i)) return std::nullopt;
  const TensorData* d = n.data(i);
  if (!d) n.fail_not_known(i, what, why);
  const std::vector<double> v = data_as_doubles(*d);
  if (v.size() != 1) n.fail(what + ", " + n.typed_operand(i) + ", holds " + std::to_string(v.size()) + " values; expected one");
  return v[0];
}

[[noreturn]] void refuse_unrolling(NodeContext& n, const onnx::GraphProto& body, int64_t max_trips,
                                   std::optional<double> trips) {
  n.fail("unrolling it takes more than " + std::to_string(max_trips) + " iterations of its " +
         std::to_string(body.node_size()) + "-node body, more than the " + std::to_string(kMaxUnrolledNodes) +
         " body nodes edgec unrolls" +
         (trips ? " (trip count " + std::to_string(static_cast<int64_t>(*trips)) + ")"
                : std::string(" (no trip count, and the condition stays true)")));
}

void loop_node(NodeContext& n) {
  const std::string why = " (edgec unrolls a Loop whose trip count and condition are known when compiling)";
  const std::optional<double> trips = known_scalar(n, 0, "the trip count", why);
  bool cond = known_scalar(n, 1, "the condition", why).value_or(1) != 0;
  const onnx::GraphProto& body = n.attr("body")->g();
  const size_t carried = n.num_inputs() - 2;
  if (static_cast<size_t>(body.input_size()) != 2 + carried)
    n.fail("attribute 'body' has " + std::to_string(body.input_size()) + " inputs; expected " +
           std::to_string(2 + carried) + " (the iteration number, the condition and the " + std::to_string(carried) +
           " carried values)");
  if (static_cast<size_t>(body.output_size()) < 1 + carried)
    n.fail("attribute 'body' has " + std::to_string(body.output_size()) + " outputs; expected at least " +
           std::to_string(1 + carried) + " (the condition and the carried values)");
  const size_t scans = static_cast<size_t>(body.output_size()) - 1 - carried;
  if (n.num_outputs() != carried + scans)
    n.fail("the node has " + std::to_string(n.num_outputs()) + " outputs; expected " + std::to_string(carried + scans) +
           " (the carried values and the body's scan outputs)");
  std::unordered_set<std::string> defined;
  collect_defined(body, defined);
  const int64_t max_trips = kMaxUnrolledNodes / std::max(1, body.node_size());

  if (trips && *trips > static_cast<double>(max_trips)) refuse_unrolling(n, body, max_trips, trips);
  Importer& im = n.im();
  std::vector<Entry> values;
  for (size_t k = 0; k < carried; ++k) {
    Entry e = n.required(2 + k);
    if (e.alias.empty()) e.alias = n.proto().input(static_cast<int>(2 + k));
    values.push_back(std::move(e));
  }
  std::vector<std::vector<Value*>> scan_parts(scans);
  int64_t i = 0;
  for (; cond && (!trips || static_cast<double>(i) < *trips); ++i) {
    if (i >= max_trips) refuse_unrolling(n, body, max_trips, trips);
    onnx::GraphProto copy = body;
    const std::string suffix = "@loop" + std::to_string(i);
    rename(copy, defined, suffix);
    Entry iteration;
    iteration.data = make_int_data(DType::Int64, {}, {i});
    iteration.type = iteration.data->type;
    im.define(copy.input(0).name(), iteration);
    Entry condition;
    condition.data = make_int_data(DType::Bool, {}, {1});
    condition.type = condition.data->type;
    im.define(copy.input(1).name(), condition);
    for (size_t k = 0; k < carried; ++k) im.define(copy.input(static_cast<int>(2 + k)).name(), values[k]);
    copy.clear_input();  // defined above, as the enclosing graph's values
    im.import_subgraph(copy, "body (iteration " + std::to_string(i) + ")");
    const auto output = [&](size_t k) -> Entry& {
      const std::string& name = copy.output(static_cast<int>(k)).name();
      if (!im.has_entry(name))
        n.fail("body output " + std::to_string(k) + " '" + name + "' is not produced by any node or initializer of the body, nor a value of the enclosing graph");
      Entry& e = im.entry(name);
      if (!e.unavailable.empty()) n.fail("body output " + std::to_string(k) + " '" + name + "': " + e.unavailable);
      return e;
    };
    const Entry& c = output(0);
    const TensorData* c_data = c.data ? &*c.data : c.value ? im.known(c.value) : nullptr;
    if (!c_data)
      n.fail("the condition the body computes (output 0 '" + copy.output(0).name() + "') is computed at run time; edgec "
             "unrolls a Loop whose condition is known when compiling");
    cond = data_as_doubles(*c_data).at(0) != 0;
    for (size_t k = 0; k < carried; ++k) {
      values[k] = output(1 + k);
      if (values[k].alias.empty()) values[k].alias = copy.output(static_cast<int>(1 + k)).name();
    }
    for (size_t k = 0; k < scans; ++k)
      scan_parts[k].push_back(im.materialize(copy.output(static_cast<int>(1 + carried + k)).name()));
  }
  for (size_t k = 0; k < carried; ++k)
    if (n.has_output(k)) n.set_output(k, values[k]);
  for (size_t k = 0; k < scans; ++k) {
    if (!n.has_output(carried + k)) continue;
    if (scan_parts[k].empty())
      n.fail("scan output " + std::to_string(k) + " of a Loop that runs no iteration has no element to give it a "
             "shape; edgec unrolls Loops that run at least once when they have scan outputs");
    std::vector<Value*> parts;
    for (Value* v : scan_parts[k])
      parts.push_back(im.emit("unsqueeze", {v}, attrs_of({{"dims", std::vector<int64_t>{0}}}), n.hint(carried + k)));
    n.set_output(carried + k, im.emit_n("concat", parts, attrs_of({{"dim", int64_t{0}}}), n.hint(carried + k),
                                        {OperandGroup{true, static_cast<int>(parts.size())}})[0]);
  }
}

}  // namespace

void register_control_handlers(HandlerTable& t) {
  t["If"] = if_node;
  t["Loop"] = loop_node;
}

}  // namespace edgec::onnx_import
