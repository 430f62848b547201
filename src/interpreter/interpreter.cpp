#include "interpreter/interpreter.h"

#include "base/memory_limit.h"
#include "base/diagnostic.h"
#include <cstring>
#include <unordered_map>

#include "ir/control_flow.h"
#include "ir/operator.h"

namespace edgec {
namespace {

std::string node_where(const Node& call) { return "node " + call.label() + " (" + call.op() + ")"; }

TensorData scalar_data(DType dtype, const void* value) {
  auto bytes = std::make_shared<std::vector<std::byte>>(dtype_size(dtype));
  std::memcpy(bytes->data(), value, bytes->size());
  return TensorData{TensorType{dtype, {}}, std::move(bytes)};
}

// The one element of a bool or i64 flag operand.
int64_t flag_value(const TensorData& d, const std::string& what) {
  if (!d.bytes || d.bytes->size() != dtype_size(d.type.dtype))
    throw CompileError(what + " holds " + d.type.str() + "; expected one element");
  if (d.type.dtype == DType::Bool) return (*d.bytes)[0] != std::byte{0};
  int64_t v = 0;
  std::memcpy(&v, d.bytes->data(), 8);
  return v;
}

// Runs a closed region on `args` (its placeholders, in order).
std::vector<TensorData> run_region(const Graph& g, std::span<const TensorData> args, KernelContext& ctx) {
  std::unordered_map<const Value*, TensorData> values;
  const auto phs = g.placeholders();
  if (phs.size() != args.size())
    throw CompileError("a region of " + std::to_string(phs.size()) + " placeholder(s) run with " +
                       std::to_string(args.size()) + " value(s)");
  for (size_t i = 0; i < phs.size(); ++i) values[phs[i]->result()] = args[i];
  for (const Node* n : g.calls()) {
    std::vector<TensorData> ins;
    for (const Value* in : n->inputs()) ins.push_back(values.at(in));
    auto outs = evaluate_call(*n, ins, ctx);
    for (size_t i = 0; i < outs.size(); ++i) values[n->result(i)] = std::move(outs[i]);
  }
  std::vector<TensorData> outs;
  const Node* out = g.output_node();
  if (!out) throw CompileError("a region has no output node");
  for (const Value* v : out->inputs()) outs.push_back(values.at(v));
  return outs;
}

std::vector<TensorData> evaluate_control_flow(const Node& call, std::span<const TensorData> inputs,
                                              KernelContext& ctx) {
  const ControlOperands ops = control_operands(call);
  const size_t first_capture = inputs.size() - ops.captures.size();
  const std::span<const TensorData> captures = inputs.subspan(first_capture);
  if (call.is_cond()) {
    const bool taken = flag_value(inputs[0], node_where(call) + ": the condition") != 0;
    return run_region(call.region(taken ? 0 : 1), captures, ctx);
  }
  const int64_t trips = flag_value(inputs[0], node_where(call) + ": the trip count");
  bool cond = flag_value(inputs[1], node_where(call) + ": the condition") != 0;
  const size_t n_carried = ops.carried.size();
  std::vector<TensorData> carried(inputs.begin() + 2, inputs.begin() + 2 + static_cast<std::ptrdiff_t>(n_carried));
  const size_t n_stacked = call.num_results() - n_carried;
  std::vector<std::vector<TensorData>> rows(n_stacked);
  for (int64_t i = 0; i < trips && cond; ++i) {
    std::vector<TensorData> args = {scalar_data(DType::Int64, &i), scalar_data(DType::Bool, &cond)};
    args.insert(args.end(), carried.begin(), carried.end());
    args.insert(args.end(), captures.begin(), captures.end());
    std::vector<TensorData> outs = run_region(call.region(0), args, ctx);
    cond = flag_value(outs[0], node_where(call) + ": the body's condition") != 0;
    for (size_t k = 0; k < n_carried; ++k) carried[k] = std::move(outs[1 + k]);
    for (size_t k = 0; k < n_stacked; ++k) rows[k].push_back(std::move(outs[1 + n_carried + k]));
  }
  std::vector<TensorData> results = std::move(carried);
  for (size_t k = 0; k < n_stacked; ++k) {
    const TensorType& declared = call.result(n_carried + k)->type();
    TensorType type;
    type.dtype = declared.dtype;
    type.dims.push_back(Dim::fixed(static_cast<int64_t>(rows[k].size())));
    if (rows[k].empty()) {
      for (size_t d = 1; d < declared.dims.size(); ++d) type.dims.push_back(Dim::fixed(std::max<int64_t>(declared.dims[d].value, 0)));
    } else {
      for (const Dim& d : rows[k][0].type.dims) type.dims.push_back(d);
    }
    if (auto ub = declared.dims.empty() ? std::nullopt : declared.dims[0].upper_bound();
        ub && static_cast<int64_t>(rows[k].size()) > *ub)
      throw CompileError(node_where(call) + ": ran " + std::to_string(rows[k].size()) + " iteration(s), more than the " +
                         declared.str() + " of stacked result %" + call.result(n_carried + k)->name() + " holds");
    auto bytes = std::make_shared<std::vector<std::byte>>();
    for (const TensorData& row : rows[k]) {
      if (!(row.type == rows[k][0].type))
        throw CompileError(node_where(call) + ": stacked result %" + call.result(n_carried + k)->name() + " gets " +
                           rows[k][0].type.str() + " and then " + row.type.str() + "; every row has one shape");
      bytes->insert(bytes->end(), row.bytes->begin(), row.bytes->end());
    }
    results.push_back(TensorData{std::move(type), std::move(bytes)});
  }
  return results;
}

}  // namespace

Tensor tensor_view(const TensorData& data) {
  const Dims& dims = data.type.dims;
  if (dims.size() > static_cast<size_t>(kMaxRank))
    throw CompileError("a tensor of type " + data.type.str() + " has rank " + std::to_string(dims.size()) +
                       "; edgec supports ranks up to " + std::to_string(kMaxRank));
  int64_t shape[kMaxRank];
  for (size_t i = 0; i < dims.size(); ++i) shape[i] = dims[i].value;
  void* ptr = data.bytes ? const_cast<std::byte*>(data.bytes->data()) : nullptr;
  return make_tensor(data.type.dtype, std::span<const int64_t>(shape, dims.size()), ptr, 0);
}

// Folding evaluates one small call after another (10^5 of them in a model
// of many literal constants): the per-call bookkeeping stays on the stack
// for the usual few operands.
std::vector<TensorData> evaluate_call(const Node& call, std::span<const TensorData> inputs,
                                      KernelContext& ctx) {
  if (call.is_control_flow()) return evaluate_control_flow(call, inputs, ctx);
  const OpInfo* op = op_of(call);
  if (!op) throw CompileError(node_where(call) + ": unknown operator");
  static const std::string kUnnamed;
  return evaluate_op(*op, call.operand_groups(), call.attrs(), inputs, ctx,
                     call.num_results() ? call.result(0)->name() : kUnnamed, call.op());
}

std::vector<TensorData> evaluate_op(const OpInfo& op_row, std::span<const OperandGroup> groups, const Attrs& attrs,
                                    std::span<const TensorData> inputs, KernelContext& ctx,
                                    std::string_view result_name, std::string_view full_op_name) {
  const OpInfo* op = &op_row;
  // Built only for a message (Node::label's form).
  auto where = [&] {
    return "node " + (result_name.empty() ? std::string("<unnamed>") : "%" + std::string(result_name)) + " (" +
           std::string(full_op_name) + ")";
  };
  if (!op->core)
    throw CompileError(where() + ": composite operator '" + op->name +
                       "' has no kernel; run to_edge to decompose it first");
  KernelFn kernel = find_kernel(op->name);
  if (!kernel) throw CompileError(where() + ": operator '" + op->name + "' has no portable kernel");

  // Size each output by the shape function on the actual input shapes: exact
  // for ordinary operators, an upper bound for data-dependent ones.
  SmallVector<const TensorType*, 4> in_types;
  in_types.reserve(inputs.size());
  for (const TensorData& d : inputs) {
    if (!d.bytes) throw CompileError(where() + ": an input's data is elided (opaque)");
    in_types.push_back(&d.type);
  }
  std::vector<TensorType> out_types;
  try {
    out_types = op->infer(TypeList(std::span<const TensorType* const>(in_types)), groups, attrs);
  } catch (const CompileError& e) {
    throw CompileError(where() + ": " + e.what());
  }

  SmallVector<Tensor, 3> in_tensors;
  in_tensors.reserve(inputs.size());
  for (const TensorData& d : inputs) in_tensors.push_back(tensor_view(d));

  std::vector<std::shared_ptr<std::vector<std::byte>>> buffers;
  buffers.reserve(out_types.size());
  SmallVector<Tensor, 2> out_tensors;
  for (const TensorType& t : out_types) {
    const auto bytes = t.max_nbytes();
    if (!bytes)
      throw CompileError(where() + ": result type " + t.str() +
                         (t.size_overflows() ? " is too large: its size in bytes does not fit in int64"
                                             : " has no size bound"));
    // Folding allocates what a file's shapes say (an Expand of a constant).
    if (const uint64_t limit = memory_limit(); static_cast<uint64_t>(*bytes) > limit)
      throw CompileError(where() + ": result of type " + t.str() + " is " + std::to_string(*bytes) +
                         " bytes, more than the memory limit of " + std::to_string(limit) +
                         " bytes (set EDGEC_MEMORY_LIMIT to change it)");
    auto buf = std::make_shared<std::vector<std::byte>>(static_cast<size_t>(*bytes));
    Tensor out;
    out.dtype = t.dtype;
    out.data = buf->data();
    out.capacity = buf->size();
    buffers.push_back(std::move(buf));
    out_tensors.push_back(out);
  }
  const Error err = kernel(ctx, in_tensors, attrs, out_tensors);
  if (err != Error::Ok)
    throw CompileError(where() + ": " + error_detail() + " (" + error_name(err) + ")");

  std::vector<TensorData> results;
  results.reserve(out_tensors.size());
  for (size_t i = 0; i < out_tensors.size(); ++i) {
    const Tensor& t = out_tensors[i];
    TensorType type;
    type.dtype = t.dtype;
    for (int d = 0; d < t.rank; ++d) type.dims.push_back(Dim::fixed(t.sizes[d]));
    buffers[i]->resize(t.nbytes());
    results.push_back(TensorData{std::move(type), std::move(buffers[i])});
  }
  return results;
}

std::string check_against_type(const TensorType& declared, DType dtype, std::span<const int64_t> shape,
                               std::map<std::string, int64_t>& symbols) {
  std::string got = std::string(dtype_name(dtype)) + shape_string(shape);
  if (dtype != declared.dtype || static_cast<int>(shape.size()) != declared.rank())
    return "expected " + declared.str() + ", got " + got;
  for (size_t i = 0; i < shape.size(); ++i) {
    const Dim& d = declared.dims[i];
    const int64_t s = shape[i];
    if (d.is_static() && d.value != s)
      return "expected " + declared.str() + ", got " + got + " (dim " + std::to_string(i) + ")";
    if (auto ub = d.upper_bound(); ub && s > *ub)
      return "expected " + declared.str() + ", got " + got + " (dim " + std::to_string(i) + " exceeds its bound " + std::to_string(*ub) + ")";
    if (d.kind == Dim::Kind::Symbolic) {
      auto [it, inserted] = symbols.emplace(d.symbol.str(), s);
      if (!inserted && it->second != s)
        return "expected " + declared.str() + ", got " + got + " (symbol '" + d.symbol.str() + "' is " +
               std::to_string(it->second) + " elsewhere)";
    }
  }
  return {};
}

std::vector<TensorData> run_program(const Program& program,
                                    const std::map<std::string, TensorData>& user_inputs,
                                    KernelContext& ctx) {
  std::map<const Value*, TensorData> values;
  std::map<std::string, int64_t> symbols;
  const auto placeholders = program.graph.placeholders();
  if (placeholders.size() != program.inputs.size())
    throw CompileError("the program's placeholders and input specs disagree; run the verifier");
  size_t used_inputs = 0;
  for (size_t i = 0; i < placeholders.size(); ++i) {
    const InputSpec& spec = program.inputs[i];
    const Value* v = placeholders[i]->result();
    if (spec.kind == InputKind::UserInput) {
      auto it = user_inputs.find(spec.target);
      if (it == user_inputs.end()) throw CompileError("missing input '" + spec.target + "' (" + v->type().str() + ")");
      ++used_inputs;
      const auto shape = it->second.type.static_shape();
      const std::string problem = check_against_type(v->type(), it->second.type.dtype, shape, symbols);
      if (!problem.empty()) throw CompileError("input '" + spec.target + "': " + problem);
      values[v] = it->second;
      continue;
    }
    const Store& store = program.store_for(spec);
    auto it = store.find(spec.target);
    if (it == store.end() || !it->second.bytes)
      throw CompileError(std::string(input_kind_name(spec.kind)) + " " + placeholders[i]->label() +
                         ": no data for target '" + spec.target + "'");
    values[v] = it->second;
  }
  if (used_inputs != user_inputs.size()) {
    for (const auto& [name, data] : user_inputs) {
      bool known = false;
      for (const auto& spec : program.inputs) known |= spec.kind == InputKind::UserInput && spec.target == name;
      if (!known) throw CompileError("unexpected input '" + name + "': the program has no such input");
    }
  }

  // Free each value after its last reader so peak memory follows the graph.
  std::map<const Value*, size_t> remaining;
  for (const Node* n : program.graph.nodes())
    for (const Value* in : n->inputs()) ++remaining[in];

  for (const Node* n : program.graph.calls()) {
    std::vector<TensorData> ins;
    ins.reserve(n->inputs().size());
    for (const Value* in : n->inputs()) ins.push_back(values.at(in));
    auto outs = evaluate_call(*n, ins, ctx);
    for (size_t i = 0; i < outs.size(); ++i) values[n->result(i)] = std::move(outs[i]);
    for (const Value* in : n->inputs())
      if (--remaining[in] == 0) values.erase(in);
  }
  std::vector<TensorData> outputs;
  const Node* out = program.graph.output_node();
  if (!out) throw CompileError("the graph has no output node");
  for (const Value* v : out->inputs()) outputs.push_back(values.at(v));
  return outputs;
}

}  // namespace edgec
