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
#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_set>

#include "frontends/onnx/context.h"
#include "ir/control_flow.h"
#include "frontends/onnx/opsets.h"

namespace edgec::onnx_import {
namespace {

// ---- control flow that runs at run time (docs/semantics.md §8) ----

/// `v` as a one-element flag of rank 0 (ONNX allows [1] too).
Value* as_flag(NodeContext& n, Value* v, DType dtype, const std::string& what) {
  Importer& im = n.im();
  auto numel = v->type().max_numel();
  if (!v->type().is_static() || !numel || *numel != 1)
    n.fail(what + " is " + v->type().str() + "; expected one " + std::string(dtype_name(dtype)));
  if (v->type().dtype != dtype) v = im.emit("cast", {v}, attrs_of({{"dtype", dtype}}), n.hint() + "_flag");
  if (v->type().rank() != 0) v = im.emit("reshape", {v}, attrs_of({{"shape", std::vector<int64_t>{}}}), n.hint() + "_flag");
  return v;
}

/// A constant scalar.
Value* constant_scalar(NodeContext& n, DType dtype, int64_t value, const std::string& name) {
  Entry e;
  e.data = make_int_data(dtype, {}, {value});
  e.type = e.data->type;
  n.im().define(name, e);
  return n.im().materialize(name);
}

/// Why an If or a Loop runs at run time (follows "because"): its
/// condition or trip count computed at run time, and where from.
std::string runs_at_run_time_because(NodeContext& n) {
  Importer& im = n.im();
  const bool is_if = n.proto().op_type() == "If";
  for (size_t i = 0; i < (is_if ? 1u : 2u); ++i)
    if (n.input(i) && !n.data(i))
      return std::string(is_if ? "its condition, " : i == 0 ? "its trip count, " : "its condition, ") + n.operand(i) +
             ", is computed at run time " + im.run_time_sources(n.proto().input(static_cast<int>(i)));
  return "its body's condition is computed at run time, or it runs more trips than edgec unrolls";
}

/// Refuses a sequence crossing the edge of a region that runs at run time
/// (a program holds tensors only; a sequence is known element by element
/// when compiling, which an If or Loop that runs at run time cannot keep).
[[noreturn]] void refuse_sequence_in_region(NodeContext& n, const std::string& which, const Entry& e) {
  const bool is_if = n.proto().op_type() == "If";
  n.fail(which + " is a sequence (of " + std::to_string(e.seq->count) + " " + std::string(dtype_name(e.seq->dtype)) +
         " tensors), and the " + n.proto().op_type() + " runs at run time because " + runs_at_run_time_because(n) +
         "; edgec holds a sequence only while it is known when compiling, so " +
         (is_if ? "export the branches returning tensors (e.g. torch.stack of the list, or ConcatFromSequence)"
                : "a Loop cannot carry a sequence whose length depends on run-time data: export it with a fixed "
                  "trip count, or returning a stacked tensor (a scan output) instead of appending to a list"));
}

/// Imports `g` into region `active` of `scope`, its inputs defined as
/// `inputs` (one per graph input, in order); `finish` runs inside the
/// region on its outputs (read through captures where they are enclosing
/// values) and returns what the region returns.
std::vector<Value*> import_region(NodeContext& n, RegionScope& scope, size_t active, const onnx::GraphProto& g,
                                  const std::string& what, const std::vector<Value*>& inputs,
                                  const std::function<std::vector<Value*>(std::vector<Value*>)>& finish) {
  Importer& im = n.im();
  scope.active = active;
  const Importer::InRegion in_region(im, scope);
  onnx::GraphProto copy = g;
  for (size_t k = 0; k < inputs.size(); ++k) im.define(copy.input(static_cast<int>(k)).name(), im.entry_of(inputs[k]));
  copy.clear_input();  // defined above, as the region's placeholders
  im.import_subgraph(copy, what);
  std::vector<Value*> outs;
  for (int k = 0; k < copy.output_size(); ++k) {
    const std::string& name = copy.output(k).name();
    if (!im.has_entry(name))
      n.fail(what + " output " + std::to_string(k) + " '" + name +
             "' is not produced by any node or initializer of it, nor a value of the enclosing graph");
    if (const Entry& e = im.entry(name); e.seq && e.unavailable.empty())
      refuse_sequence_in_region(n, what + " output " + std::to_string(k) + " '" + name + "'", e);
    outs.push_back(im.materialize(name));
  }
  return finish(std::move(outs));
}

/// Outputs of a loop body that are its placeholders, or repeat, cloned:
/// the runtime copies each output out after an iteration (docs/semantics.md §8).
std::vector<Value*> own_outputs(NodeContext& n, const Graph& body, std::vector<Value*> outs) {
  std::vector<Value*> seen;
  for (Value*& v : outs) {
    if (v->producer()->is_placeholder() || v->producer()->graph() != &body ||
        std::find(seen.begin(), seen.end(), v) != seen.end()) {
      // Made directly: emit would fold the clone of a constant back into it.
      CallSpec spec;
      spec.op = "aten.clone.default";
      spec.inputs = {n.im().capture(v)};
      spec.result_types = {v->type()};
      spec.result_names = {v->name() + "_out"};
      v = n.im().graph().create_call(std::move(spec))->result();
    }
    seen.push_back(v);
  }
  return outs;
}

/// If on a condition computed at run time: both branches imported as the
/// regions of a `cond`, reading the enclosing values they use as captures.
void if_at_run_time(NodeContext& n) {
  Importer& im = n.im();
  Value* pred = as_flag(n, n.value(0), DType::Bool, "the condition, " + n.typed_operand(0) + ",");
  RegionScope scope;
  auto then_g = std::make_unique<Graph>(im.program().graph);
  auto else_g = std::make_unique<Graph>(im.program().graph);
  scope.graphs = {then_g.get(), else_g.get()};
  const auto keep = [](std::vector<Value*> outs) { return outs; };
  std::vector<Value*> outs[2];
  for (size_t b = 0; b < 2; ++b) {
    const std::string name = b == 0 ? "then_branch" : "else_branch";
    const onnx::GraphProto& branch = n.attr(name)->g();
    if (branch.input_size() != 0)
      n.fail("attribute '" + name + "' has " + std::to_string(branch.input_size()) +
             " inputs; expected none (a branch reads the enclosing graph's values)");
    if (static_cast<size_t>(branch.output_size()) != n.num_outputs())
      n.fail("attribute '" + name + "' has " + std::to_string(branch.output_size()) + " outputs; expected " +
             std::to_string(n.num_outputs()) + ", one per output of the node");
    outs[b] = import_region(n, scope, b, branch, name, {}, keep);
  }
  then_g->set_outputs(outs[0]);
  else_g->set_outputs(outs[1]);
  std::vector<std::string> names;
  for (size_t i = 0; i < n.num_outputs(); ++i) names.push_back(n.hint(i));
  Node* cond = nullptr;
  try {
    cond = create_cond(im.graph(), pred, scope.captured, std::move(then_g), std::move(else_g), names);
  } catch (const CompileError& e) {
    // Branches that differ are fine where the condition is known when
    // compiling (only the taken branch is imported): say what it comes from.
    n.fail(e.what() + std::string("; edgec imports only the branch taken where the condition, ") + n.operand(0) +
           ", is known at compile time, but it is computed at run time " + n.im().run_time_sources(n.proto().input(0)));
  }
  for (size_t i = 0; i < n.num_outputs(); ++i)
    if (n.has_output(i)) n.set_output(i, cond->result(i));
}

/// Loop with a trip count or condition computed at run time: the body
/// imported once as the region of a `loop`.
void loop_at_run_time(NodeContext& n, const onnx::GraphProto& body, size_t carried, size_t scans) {
  Importer& im = n.im();
  Value* trips = n.input(0) ? as_flag(n, n.value(0), DType::Int64, "the trip count, " + n.typed_operand(0) + ",")
                            : constant_scalar(n, DType::Int64, INT64_MAX, n.hint() + "_no_trip_limit");
  Value* cond = n.input(1) ? as_flag(n, n.value(1), DType::Bool, "the condition, " + n.typed_operand(1) + ",")
                           : constant_scalar(n, DType::Bool, 1, n.hint() + "_always");
  Dim stack_dim = Dim::dynamic(-1);
  // Why the scan outputs cannot be read, or "": their rows are a symbol
  // that no --dim or --max-dim sizes (the program could not be planned).
  std::string unbounded_rows;
  if (scans > 0) {
    // The scan outputs get a row per iteration: at most a known trip
    // count, or else a symbol of their own, NAME_rows, that --max-dim
    // bounds.
    const TensorData* m = n.input(0) ? n.data(0) : nullptr;
    const std::string rows = sanitize_name(n.proto().name().empty() ? n.hint() : n.proto().name()) + "_rows";
    stack_dim = m ? Dim::dynamic(static_cast<int64_t>(data_as_doubles(*m).at(0))) : Dim::symbolic(rows);
    if (!m && !im.options().dim_sizes.count(rows) && !im.options().dim_bounds.count(rows))
      unbounded_rows =
          "the Loop stacks one row per trip into it, and " +
          (n.input(0) ? "its trip count, " + n.operand(0) + ", is computed at run time " +
                            im.run_time_sources(n.proto().input(0))
                      : std::string("it has no trip count (it runs while its condition holds)")) +
          "; or bound the rows (edgec compile --max-dim " + rows + "=MAX, the most trips it may run)";
  }
  std::vector<Value*> initial;
  for (size_t k = 0; k < carried; ++k) {
    if (const Entry* e = n.input(2 + k); e && e->seq)
      refuse_sequence_in_region(n, "carried value " + std::to_string(k) + ", " + n.operand(2 + k) + ",", *e);
    initial.push_back(n.value(2 + k));
  }
  auto region = std::make_unique<Graph>(im.program().graph);
  Graph& g = *region;
  std::vector<Value*> args = {g.add_placeholder(body.input(0).name(), TensorType{DType::Int64, {}})->result(),
                              g.add_placeholder(body.input(1).name(), TensorType{DType::Bool, {}})->result()};
  for (size_t k = 0; k < carried; ++k)
    args.push_back(g.add_placeholder(body.input(static_cast<int>(2 + k)).name(), initial[k]->type())->result());
  RegionScope scope;
  scope.graphs = {&g};
  std::vector<Value*> outs = import_region(n, scope, 0, body, "body", args, [&](std::vector<Value*> o) {
    o[0] = as_flag(n, o[0], DType::Bool, "the body's condition (output 0)");
    for (size_t k = 0; k < carried; ++k)
      if (!(o[1 + k]->type() == initial[k]->type()))
        n.fail("carried value " + std::to_string(k) + " enters the body as " + initial[k]->type().str() +
               " and leaves it as " + o[1 + k]->type().str() +
               "; edgec runs a Loop whose carried values keep their type");
    return own_outputs(n, g, std::move(o));
  });
  g.set_outputs(outs);
  std::vector<std::string> names;
  for (size_t i = 0; i < n.num_outputs(); ++i) names.push_back(n.hint(i));
  Node* loop = create_loop(im.graph(), trips, cond, initial, scope.captured, std::move(region), stack_dim, names);
  for (size_t i = 0; i < n.num_outputs(); ++i) {
    if (!n.has_output(i)) continue;
    if (i < carried || unbounded_rows.empty()) {
      n.set_output(i, loop->result(i));
      continue;
    }
    // A scan output of unbounded rows is refused where it is read (here,
    // not by the memory plan); one nothing reads is left out.
    Entry e;
    e.unavailable = "'" + n.proto().output(static_cast<int>(i)) + "' (scan output " + std::to_string(i - carried) +
                    " of the Loop" + (n.proto().name().empty() ? "" : " '" + n.proto().name() + "'") +
                    ") has no bound on its rows: " + unbounded_rows;
    im.define(n.proto().output(static_cast<int>(i)), std::move(e));
  }
}

void if_node(NodeContext& n) {
  const TensorData* cond = n.data(0);
  if (!cond) return if_at_run_time(n);
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
  const TensorData* d = n.data(i);  // known: loop_node unrolls only then
  if (!d) internal_error("the " + what + " is not known" + why);
  const std::vector<double> v = data_as_doubles(*d);
  if (v.size() != 1) n.fail(what + ", " + n.typed_operand(i) + ", holds " + std::to_string(v.size()) + " values; expected one");
  return v[0];
}

/// Imports one iteration of `body` (a Loop's or a Scan's): its names
/// renamed to name@SUFFIX, its inputs defined as `inputs`; returns the
/// entries of its outputs, each checked to be defined and readable.
std::vector<Entry> import_iteration(NodeContext& n, const onnx::GraphProto& body,
                                    const std::unordered_set<std::string>& defined, int64_t iteration,
                                    const std::vector<Entry>& inputs) {
  Importer& im = n.im();
  onnx::GraphProto copy = body;
  std::string kind = n.proto().op_type();
  std::transform(kind.begin(), kind.end(), kind.begin(), [](unsigned char ch) { return std::tolower(ch); });
  rename(copy, defined, "@" + kind + std::to_string(iteration));
  for (size_t k = 0; k < inputs.size(); ++k) im.define(copy.input(static_cast<int>(k)).name(), inputs[k]);
  copy.clear_input();  // defined above, as the enclosing graph's values
  im.import_subgraph(copy, "body (iteration " + std::to_string(iteration) + ")");
  std::vector<Entry> outputs;
  for (int k = 0; k < copy.output_size(); ++k) {
    const std::string& name = copy.output(k).name();
    if (!im.has_entry(name))
      n.fail("body output " + std::to_string(k) + " '" + name +
             "' is not produced by any node or initializer of the body, nor a value of the enclosing graph");
    Entry e = im.entry(name);
    if (!e.unavailable.empty()) n.fail("body output " + std::to_string(k) + " '" + name + "': " + e.unavailable);
    if (e.alias.empty()) e.alias = name;
    outputs.push_back(std::move(e));
  }
  return outputs;
}

/// Stacks `parts` (one per iteration, in order) on a new dim `axis`.
Value* stack(NodeContext& n, const std::vector<Value*>& parts, int64_t axis, size_t output) {
  Importer& im = n.im();
  std::vector<Value*> lifted;
  for (Value* v : parts)
    lifted.push_back(im.emit("unsqueeze", {v}, attrs_of({{"dims", std::vector<int64_t>{axis}}}), n.hint(output)));
  return im.emit_n("concat", lifted, attrs_of({{"dim", axis}}), n.hint(output),
                   {OperandGroup{true, static_cast<int>(lifted.size())}})[0];
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
  // Unrolled when the trip count and condition are known and the copies
  // stay under the budget; otherwise the body runs at run time.
  const bool known_trips = !n.input(0) || n.data(0), known_cond = !n.input(1) || n.data(1);
  if (!known_trips || !known_cond) return loop_at_run_time(n, body, carried, scans);
  const std::string why = " (edgec unrolls a Loop whose trip count and condition are known when compiling)";
  const std::optional<double> trips = known_scalar(n, 0, "the trip count", why);
  bool cond = known_scalar(n, 1, "the condition", why).value_or(1) != 0;
  std::unordered_set<std::string> defined;
  collect_defined(body, defined);
  const int64_t max_trips = kMaxUnrolledNodes / std::max(1, body.node_size());

  if (trips && *trips > static_cast<double>(max_trips)) return loop_at_run_time(n, body, carried, scans);
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
    if (i >= max_trips) return loop_at_run_time(n, body, carried, scans);  // the unrolled copies are dead code
    std::vector<Entry> inputs(2);
    inputs[0].data = make_int_data(DType::Int64, {}, {i});
    inputs[0].type = inputs[0].data->type;
    inputs[1].data = make_int_data(DType::Bool, {}, {1});
    inputs[1].type = inputs[1].data->type;
    inputs.insert(inputs.end(), values.begin(), values.end());
    std::vector<Entry> outputs = import_iteration(n, body, defined, i, inputs);
    const Entry& c = outputs[0];
    const TensorData* c_data = c.data ? &*c.data : c.value ? im.known(c.value) : nullptr;
    if (!c_data) return loop_at_run_time(n, body, carried, scans);  // the unrolled copies are dead code
    cond = data_as_doubles(*c_data).at(0) != 0;
    for (size_t k = 0; k < carried; ++k) values[k] = outputs[1 + k];
    for (size_t k = 0; k < scans; ++k) scan_parts[k].push_back(im.materialize(outputs[1 + carried + k].alias));
  }
  for (size_t k = 0; k < carried; ++k)
    if (n.has_output(k)) n.set_output(k, values[k]);
  for (size_t k = 0; k < scans; ++k) {
    if (!n.has_output(carried + k)) continue;
    if (scan_parts[k].empty())
      n.fail("scan output " + std::to_string(k) + " of a Loop that runs no iteration has no element to give it a "
             "shape; edgec unrolls Loops that run at least once when they have scan outputs");
    n.set_output(carried + k, stack(n, scan_parts[k], 0, carried + k));
  }
}

/// One Scan, unrolled: `states` passed through `length` iterations of the
/// body, each reading element t of every scan input along its axis (from
/// the end in direction 1); returns the final states and the scan outputs
/// stacked along their axes (reversed in direction 1).
struct ScanPlan {
  std::vector<int64_t> in_axes, in_dirs, out_axes, out_dirs;
  int64_t length = 0;
};
std::pair<std::vector<Entry>, std::vector<Value*>> unroll_scan(NodeContext& n, const onnx::GraphProto& body,
                                                              const std::unordered_set<std::string>& defined,
                                                              std::vector<Entry> states,
                                                              const std::vector<Value*>& scanned, const ScanPlan& plan,
                                                              int64_t first_iteration) {
  Importer& im = n.im();
  const size_t scan_outs = static_cast<size_t>(body.output_size()) - states.size();
  std::vector<std::vector<Value*>> parts(scan_outs);
  for (int64_t t = 0; t < plan.length; ++t) {
    std::vector<Entry> inputs = states;
    for (size_t k = 0; k < scanned.size(); ++k) {
      const int64_t at = plan.in_dirs[k] ? plan.length - 1 - t : t;
      inputs.push_back(im.entry_of(
          im.emit("select", {scanned[k]}, attrs_of({{"dim", plan.in_axes[k]}, {"index", at}}), n.hint())));
    }
    std::vector<Entry> outputs = import_iteration(n, body, defined, first_iteration + t, inputs);
    for (size_t k = 0; k < states.size(); ++k) states[k] = outputs[k];
    for (size_t k = 0; k < scan_outs; ++k) parts[k].push_back(im.materialize(outputs[states.size() + k].alias));
  }
  std::vector<Value*> stacked;
  for (size_t k = 0; k < scan_outs; ++k) {
    std::vector<Value*>& p = parts[k];
    if (plan.out_dirs[k]) std::reverse(p.begin(), p.end());
    const int rank = p.front()->type().rank() + 1;
    const int64_t a = plan.out_axes[k];
    if (a < -rank || a >= rank)
      n.fail("attribute 'scan_output_axes' gives scan output " + std::to_string(k) + " the axis " + std::to_string(a) +
             "; expected an axis of its rank " + std::to_string(rank));
    stacked.push_back(stack(n, p, a < 0 ? a + rank : a, states.size() + k));
  }
  return {std::move(states), std::move(stacked)};
}

/// Scan whose length is a symbolic dim (or too long to unroll): a `loop`
/// of `length` iterations (the scanned dim of operand `length_operand`,
/// bounded), its body taking element t of each scan input (from the end in
/// direction 1) with `take`, its scan outputs stacked by the loop on dim 0,
/// then reversed (direction 1) and moved to their axes.
void scan_at_run_time(NodeContext& n, const onnx::GraphProto& body, const ScanPlan& plan, size_t states,
                      size_t scan_ins, size_t scan_outs, size_t length_operand) {
  Importer& im = n.im();
  const size_t k0 = length_operand - states;
  const TensorType& lt = n.type(length_operand);
  const int64_t axis0 = plan.in_axes[k0] < 0 ? plan.in_axes[k0] + lt.rank() : plan.in_axes[k0];
  const Dim& len_dim = lt.dims[static_cast<size_t>(axis0)];
  Value* source = n.value(length_operand);
  Value* length = im.sym_scalar(SymInt::of_dim(len_dim, source, static_cast<int>(axis0)), n.hint() + "_length");
  Value* one = im.full({}, 1.0, DType::Int64, n.hint() + "_one");
  Value* last = im.emit("sub", {length, one}, {}, n.hint() + "_last");
  Value* always = constant_scalar(n, DType::Bool, 1, n.hint() + "_always");
  std::vector<Value*> initial, scanned;
  for (size_t k = 0; k < states; ++k) initial.push_back(n.value(k));
  for (size_t k = 0; k < scan_ins; ++k) scanned.push_back(n.value(states + k));
  bool any_reversed = false;
  for (int64_t d : plan.out_dirs) any_reversed |= d != 0;
  auto region = std::make_unique<Graph>(im.program().graph);
  Graph& g = *region;
  Value* iter = g.add_placeholder(n.hint() + "_t", TensorType{DType::Int64, {}})->result();
  g.add_placeholder(n.hint() + "_cond", TensorType{DType::Bool, {}});
  std::vector<Value*> state_args;
  for (size_t k = 0; k < states; ++k)
    state_args.push_back(g.add_placeholder(body.input(static_cast<int>(k)).name(), initial[k]->type())->result());
  RegionScope scope;
  scope.graphs = {&g};
  // The body's inputs: the states, then element t of each scan input.
  scope.active = 0;
  std::vector<Value*> args = state_args;
  {
    const Importer::InRegion in_region(im, scope);
    for (size_t k = 0; k < scan_ins; ++k) {
      Value* at = plan.in_dirs[k] ? im.emit("sub", {last, iter}, {}, n.hint() + "_rt") : iter;
      args.push_back(im.emit("take", {scanned[k], at}, attrs_of({{"dim", plan.in_axes[k]}}), n.hint() + "_x"));
    }
  }
  std::vector<Value*> outs = import_region(n, scope, 0, body, "body", args, [&](std::vector<Value*> o) {
    for (size_t k = 0; k < states; ++k)
      if (!(o[k]->type() == initial[k]->type()))
        n.fail("state " + std::to_string(k) + " enters the body as " + initial[k]->type().str() + " and leaves it as " +
               o[k]->type().str() + "; edgec runs a Scan whose states keep their type");
    o.insert(o.begin(), im.emit("clone", {always}, {}, n.hint() + "_cond"));
    if (any_reversed) o.push_back(im.emit("clone", {iter}, {}, n.hint() + "_t"));
    return own_outputs(n, g, std::move(o));
  });
  g.set_outputs(outs);
  std::vector<std::string> names;
  for (size_t i = 0; i < n.num_outputs(); ++i) names.push_back(n.hint(i));
  if (any_reversed) names.push_back(n.hint() + "_steps");
  // The scan outputs have a row per element: their dim 0 is the length's.
  Node* loop = create_loop(im.graph(), length, always, initial, scope.captured, std::move(region), len_dim, names);
  for (size_t k = 0; k < states; ++k)
    if (n.has_output(k)) n.set_output(k, loop->result(k));
  for (size_t k = 0; k < scan_outs; ++k) {
    if (!n.has_output(states + k)) continue;
    Value* y = loop->result(states + k);
    if (plan.out_dirs[k]) {
      // Row t of the result is the row the loop stacked at length-1-t.
      Value* rows = im.emit("sub", {last, loop->result(states + scan_outs)}, {}, n.hint() + "_rev");
      y = im.emit("take", {y, rows}, attrs_of({{"dim", int64_t{0}}}), n.hint(states + k));
    }
    const int rank = y->type().rank();
    const int64_t a = plan.out_axes[k] < 0 ? plan.out_axes[k] + rank : plan.out_axes[k];
    if (a < 0 || a >= rank)
      n.fail("attribute 'scan_output_axes' gives scan output " + std::to_string(k) + " the axis " +
             std::to_string(plan.out_axes[k]) + "; expected an axis of its rank " + std::to_string(rank));
    if (a != 0) {
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= a; ++d) perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = a + 1; d < rank; ++d) perm.push_back(d);
      y = im.permute(y, perm, n.hint(states + k));
    }
    n.set_output(states + k, y);
  }
}

/// Scan over scan inputs of a length known when compiling, unrolled as
/// Loop is. Opset 8's Scan has a batch dim first (on states and scan inputs
/// alike) and runs the body per batch entry: unrolled per entry, its
/// results stacked on dim 0.
void scan_node(NodeContext& n) {
  const onnx::GraphProto& body = n.attr("body")->g();
  const bool batched = n.opset() < 9;
  const size_t first = batched ? 1 : 0;  // opset 8: input 0 is sequence_lens
  // An opset-8 Scan is kept from ONNX's version converter (opsets.cpp), its
  // body with it: the body's operators are read at the converted opset, so
  // none may be one whose meaning changed since.
  if (batched)
    for (const auto& node : body.node())
      if (const char* changed = meaning_changed_since(node.op_type(), n.opset()))
        n.fail("its body's node '" + node.name() + "' (" + node.op_type() + ") is of opset " +
               std::to_string(n.opset()) + ", and " + changed + "; re-export the model at opset 9 or later");
  const int64_t m = n.attr_int("num_scan_inputs", 0);
  const auto operands = static_cast<int64_t>(n.num_inputs() - first);
  if (m < 1 || m > operands)
    n.fail("attribute 'num_scan_inputs' is " + std::to_string(m) + "; expected 1 to " + std::to_string(operands) +
           ", the node's states and scan inputs");
  const size_t states = static_cast<size_t>(operands - m), scan_ins = static_cast<size_t>(m);
  if (static_cast<size_t>(body.input_size()) != states + scan_ins || static_cast<size_t>(body.output_size()) < states)
    n.fail("attribute 'body' has " + std::to_string(body.input_size()) + " inputs and " +
           std::to_string(body.output_size()) + " outputs; expected " + std::to_string(states + scan_ins) +
           " inputs (the states, then an element of each scan input) and at least " + std::to_string(states) +
           " outputs (the states, then the scan outputs)");
  const size_t scan_outs = static_cast<size_t>(body.output_size()) - states;
  const auto per_scan = [&](const char* name, size_t count, bool axes) {
    std::vector<int64_t> v = n.attr_ints(name).value_or(std::vector<int64_t>(count, 0));
    if (v.size() != count)
      n.fail("attribute '" + std::string(name) + "' has " + std::to_string(v.size()) + " entries; expected " +
             std::to_string(count));
    for (int64_t x : v)
      if (!axes && x != 0 && x != 1)
        n.fail("attribute '" + std::string(name) + "' holds " + std::to_string(x) + "; expected 0 (forward) or 1");
    return v;
  };
  ScanPlan plan;
  plan.in_axes = batched ? std::vector<int64_t>(scan_ins, 0) : per_scan("scan_input_axes", scan_ins, true);
  plan.in_dirs = per_scan(batched ? "directions" : "scan_input_directions", scan_ins, false);
  plan.out_axes = batched ? std::vector<int64_t>(scan_outs, 0) : per_scan("scan_output_axes", scan_outs, true);
  plan.out_dirs = batched ? std::vector<int64_t>(scan_outs, 0) : per_scan("scan_output_directions", scan_outs, false);
  // The length: each scan input's dim along its axis (after opset 8's
  // batch dim), static and equal; opset 8's batch likewise.
  std::optional<int64_t> length, batch;
  for (size_t k = 0; k < scan_ins; ++k) {
    const size_t operand = first + states + k;
    const TensorType& t = n.type(operand);
    const int skip = batched ? 1 : 0;
    const int rank = t.rank() - skip;
    int64_t& a = plan.in_axes[k];
    if (a < -rank || a >= rank)
      n.fail("attribute 'scan_input_axes' gives " + n.typed_operand(operand) + " the axis " + std::to_string(a) +
             "; expected an axis of its rank " + std::to_string(rank));
    if (a < 0) a += rank;
    for (int dim : batched ? std::vector<int>{0, static_cast<int>(a) + 1} : std::vector<int>{static_cast<int>(a)}) {
      const Dim& d = t.dims[static_cast<size_t>(dim)];
      if (!d.is_static() && !batched) return scan_at_run_time(n, body, plan, states, scan_ins, scan_outs, operand);
      if (!d.is_static())
        n.fail(n.typed_operand(operand) + " is scanned along its symbolic dim " + d.str() +
               "; edgec unrolls a Scan whose length (and opset 8's batch) is known when compiling" + n.im().dim_fix(d));
      std::optional<int64_t>& known = batched && dim == 0 ? batch : length;
      if (known && *known != d.value)
        n.fail(n.typed_operand(operand) + " has " + std::to_string(d.value) + " elements along dim " +
               std::to_string(dim) + "; the other scan inputs have " + std::to_string(*known));
      known = d.value;
    }
  }
  plan.length = *length;
  if (batched && n.input(0)) {
    const TensorData* lens = n.data(0);
    bool full = lens != nullptr;
    if (lens)
      for (double v : data_as_doubles(*lens)) full &= static_cast<int64_t>(v) == plan.length;
    if (!full)
      n.fail("the sequence lengths, " + n.operand(0) + ", are not all the scan length " + std::to_string(plan.length) +
             " when compiling; edgec unrolls opset 8's Scan over whole sequences (re-export at opset 9 or later)");
  }
  const int64_t copies = plan.length * (batched ? *batch : 1);
  if (!batched && copies * std::max(1, body.node_size()) > kMaxUnrolledNodes)
    return scan_at_run_time(n, body, plan, states, scan_ins, scan_outs, first + states);
  if (copies * std::max(1, body.node_size()) > kMaxUnrolledNodes)
    refuse_unrolling(n, body, kMaxUnrolledNodes / std::max(1, body.node_size()), static_cast<double>(copies));
  if (copies == 0 && (scan_outs > 0 || batched))
    n.fail("the scan inputs are empty, so the outputs have no element to give them a shape");
  std::unordered_set<std::string> defined;
  collect_defined(body, defined);
  Importer& im = n.im();
  std::vector<Entry> initial;
  std::vector<Value*> scanned;
  for (size_t k = 0; k < states; ++k) {
    Entry e = n.required(first + k);
    if (e.alias.empty()) e.alias = n.proto().input(static_cast<int>(first + k));
    initial.push_back(std::move(e));
  }
  for (size_t k = 0; k < scan_ins; ++k) scanned.push_back(n.value(first + states + k));
  if (!batched) {
    auto [final_states, outs] = unroll_scan(n, body, defined, initial, scanned, plan, 0);
    for (size_t k = 0; k < states; ++k)
      if (n.has_output(k)) n.set_output(k, final_states[k]);
    for (size_t k = 0; k < scan_outs; ++k)
      if (n.has_output(states + k)) n.set_output(states + k, outs[k]);
    return;
  }
  std::vector<std::vector<Value*>> per_batch(states + scan_outs);
  for (int64_t b = 0; b < *batch; ++b) {
    const auto entry_at = [&](Value* v) {
      return im.entry_of(im.emit("select", {v}, attrs_of({{"dim", int64_t{0}}, {"index", b}}), n.hint()));
    };
    std::vector<Entry> st;
    for (const Entry& e : initial) st.push_back(entry_at(im.materialize(e.alias)));
    std::vector<Value*> sc;
    for (Value* v : scanned)
      sc.push_back(im.emit("select", {v}, attrs_of({{"dim", int64_t{0}}, {"index", b}}), n.hint()));
    auto [final_states, outs] = unroll_scan(n, body, defined, st, sc, plan, b * plan.length);
    for (size_t k = 0; k < states; ++k) per_batch[k].push_back(im.materialize(final_states[k].alias));
    for (size_t k = 0; k < scan_outs; ++k) per_batch[states + k].push_back(outs[k]);
  }
  for (size_t k = 0; k < states + scan_outs; ++k)
    if (n.has_output(k)) n.set_output(k, stack(n, per_batch[k], 0, k));
}

}  // namespace

void register_control_handlers(HandlerTable& t) {
  t["If"] = if_node;
  t["Loop"] = loop_node;
  t["Scan"] = scan_node;
}

}  // namespace edgec::onnx_import
