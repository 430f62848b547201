// Control-flow calls (docs/semantics.md §8): `cond` and `loop`, calls that
// own regions. Their operands, regions and result types are described here
// once, for the verifier, the passes, the interpreter and the writer.
//
//   cond(%pred, [captures])                        regions: then, else
//     each branch: placeholders = captures; outputs = the call's results
//   loop(%trips, %cond, [carried], [captures])      region: body
//     body: placeholders = iteration (i64[]), condition (bool[]), carried,
//           captures; outputs = next condition, next carried, one element
//           per stacked result
//     results: the final carried values, then each stacked result: its
//           elements on a new dim 0, one row per iteration run
//
// The loop runs while iteration < trips and the condition holds; each
// iteration passes the body's carried outputs to the next. A trip count of
// INT64_MAX is "no limit" (ONNX's Loop without M).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "ir/program.h"

namespace edgec {

/// The operand lists of a control-flow call.
struct ControlOperands {
  std::span<Value* const> carried;   ///< loop only
  std::span<Value* const> captures;  ///< both
};
/// Reads the groups of `call` (cond: plain, list; loop: plain, plain,
/// list, list); throws CompileError when they are not so.
ControlOperands control_operands(const Node& call);

/// The result types the regions of `call` give it: a cond's results merge
/// its branches' outputs (a dim that differs becomes data-dependent,
/// bounded by the larger bound); a loop's carried results are the carried
/// operands' types and each stacked result keeps its dim 0 (the call's own:
/// static, or bounded) over the body's element type. Throws CompileError
/// saying what does not agree.
std::vector<TensorType> control_flow_result_types(const Node& call);

/// Every structural problem of a control-flow call (operand groups, region
/// counts, placeholders against operands, outputs against results, a loop
/// body whose outputs are not its own calls' results), for the verifier.
std::vector<std::string> control_flow_problems(const Node& call);

/// Creates cond(pred, captures) before `before` (nullptr: at the end) owning
/// `then_branch` and `else_branch` (regions of `g`'s root), with result
/// types from the branches.
Node* create_cond(Graph& g, Value* pred, const std::vector<Value*>& captures, std::unique_ptr<Graph> then_branch,
                  std::unique_ptr<Graph> else_branch, const std::vector<std::string>& result_names,
                  Node* before = nullptr);

/// Creates loop(trips, cond, carried, captures) owning `body`; the stacked
/// results' dim 0 is `stack_dim` (static trips, or a bound).
Node* create_loop(Graph& g, Value* trips, Value* cond, const std::vector<Value*>& carried,
                  const std::vector<Value*>& captures, std::unique_ptr<Graph> body, Dim stack_dim,
                  const std::vector<std::string>& result_names, Node* before = nullptr);

/// Makes `outer` (a value of the graph holding `call`) readable inside
/// every region of `call`: appends it to the captures and a placeholder to
/// each region. Returns the placeholder values, one per region. A value
/// already captured is not captured twice.
std::vector<Value*> capture(Node* call, Value* outer);

/// Removes the captures no region of `call` reads, with their
/// placeholders; returns whether any was.
bool prune_captures(Node* call);

/// Copies the calls of `region` into `dst` before `before` (nullptr: at the
/// end), its placeholders read as `args`; returns the copies of its
/// outputs. Nested control-flow calls are copied with their regions.
std::vector<Value*> inline_region(Graph& dst, Node* before, const Graph& region, std::span<Value* const> args);

/// Calls `fn` on `g` and then on every region under it, depth first.
template <typename Fn>
void for_each_graph(Graph& g, Fn&& fn) {
  fn(g);
  for (Node* n : g.calls())
    for (size_t i = 0; i < n->num_regions(); ++i) for_each_graph(n->region(i), fn);
}

/// Gives each loop's stacked-rows symbol (a run-time trip count's
/// NAME_rows, docs/semantics.md §8) the size `sizes` names for it, or else
/// the bound `bounds` does; either bounds the rows. Adds every such symbol
/// to `symbols`; returns whether a type changed (readers then re-infer).
bool bound_loop_rows(Graph& g, const std::map<std::string, int64_t>& sizes,
                     const std::map<std::string, int64_t>& bounds, std::set<std::string>& symbols);

/// Re-infers the result types of every call of `g` (regions included:
/// their placeholders take the types of what the call binds them to).
/// Throws CompileError naming the call when a shape function refuses.
void refresh_graph_types(Graph& g);

}  // namespace edgec
