// The onednn partitioner: takes a call when the delegate's operator table
// (op_table.cpp, which the runtime side builds from) has a row for it and
// the row's check passes. Everything it takes has static shapes and f32 or
// f16 data (integer index operands, the quantized rows and an integer clamp
// fused into one of them aside; the runtime holds f16 in f32, see
// runtime_state.h's header); checks run in a fixed order so that
// the reason names the first obstacle: operator, mask index, shapes,
// dtypes, then the row's check (attributes, geometry).
#include "backends/onednn/compiler.h"
#include "lowering/call_view.h"
#include "lowering/mask_rules.h"
#include "backends/onednn/op_table.h"
#include "backends/onednn/runtime_quant.h"
#include "base/diagnostic.h"
#include "ir/operator.h"

namespace edgec {
namespace {

using Reason = std::optional<std::string>;

std::string num(int64_t v) { return std::to_string(v); }

// Static shapes, no empty tensor, and f32 or f16 data (integer indices for
// an index operand; the integer types and f32 scales of a quantized row,
// whose check says which operand takes which).
Reason check_type(const TensorType& t, const std::string& what, bool is_index, bool quantized = false,
                  bool int8_data = false) {
  static constexpr DType kData[] = {DType::Float32, DType::Float16}, kIndex[] = {DType::Int64, DType::Int32},
                         kQuantized[] = {DType::UInt8, DType::Int8, DType::Int32, DType::Float32},
                         kMoved[] = {DType::Float32, DType::Float16, DType::UInt8, DType::Int8};
  return static_type_refusal(t, what,
                             quantized  ? std::span<const DType>(kQuantized)
                             : is_index ? std::span<const DType>(kIndex)
                             : int8_data ? std::span<const DType>(kMoved)
                                        : std::span<const DType>(kData));
}

// A quantized row's operand that must hold zeros only (the weights' zero
// point: oneDNN's int8 primitives have none), read from the constant.
Reason nonzero_refusal(const Program& program, const Node& call, int operand) {
  const Value* v = call.input(static_cast<size_t>(operand));
  const InputSpec* spec = program.input_spec_of(v);
  auto data = spec ? program.constants.find(spec->target) : program.constants.end();
  if (data == program.constants.end() || !data->second.bytes)
    return "input " + num(operand) + " (the weights' zero point) is not a constant with data";
  for (std::byte b : *data->second.bytes)
    if (b != std::byte{0})
      return "input " + num(operand) +
             " (the weights' zero point) is not all 0 (oneDNN's int8 primitives take symmetric int8 weights, "
             "as ONNX Runtime's quantizer writes them)";
  return std::nullopt;
}

bool is_8bit(DType t) { return t == DType::UInt8 || t == DType::Int8; }

class OnednnPartitioner final : public Partitioner {
 public:
  const std::string& backend() const override { return onednn_backend_compiler().id(); }

  std::optional<std::string> refuse(const Program& program, const Node& call) const override {
    const auto name = split_op_name(call.op());
    if (!name) return "operator " + call.op() + " is not supported by oneDNN";
    const onednn::OpRow* row = onednn::find_op_row(name->name);
    if (!row) return "operator " + name->name + " is not supported by oneDNN";
    if (name->name == "clamp" && call.inputs().size() == 1 && is_8bit(call.input(0)->type().dtype))
      return integer_clamp_refusal(program, call);
    if (row->int8_data && !call.inputs().empty() && is_8bit(call.input(0)->type().dtype))
      if (!next_to_int8_work(program, call, Direction::Both))
        return "moving " + std::string(dtype_name(call.input(0)->type().dtype)) + " data next to no integer "
               "operator oneDNN takes (on its own it would be a delegate of its own for a copy)";
    if (row->index_from >= 0) {
      // docs/semantics.md §7 first: a mask's positions computed at run time make the
      // result's size data-dependent, and the mask's origin is the reason
      // that matters. A constant mask arrives here already folded into
      // positions (docs/semantics.md §3.4) and is taken.
      if (auto r = mask_refusal(program, call)) return r;
      for (size_t i = 1; i < call.inputs().size(); ++i)
        if (call.input(i)->type().dtype == DType::Bool)
          return std::string("boolean mask index not folded into positions (SEMANTICS 7.2)");
    }
    // An optional operand left out (an empty [0] tensor, the importer's
    // convention) is not checked; a present one has its shape checked here
    // and its dtype after the row's check (OpRow::optional_from).
    auto optional = [&](size_t i) { return row->optional_from >= 0 && i >= static_cast<size_t>(row->optional_from); };
    auto absent = [&](size_t i) {
      const TensorType& t = call.input(i)->type();
      return optional(i) && t.dims.size() == 1 && t.dims[0].is_static() && t.dims[0].value == 0;
    };
    for (size_t i = 0; i < call.inputs().size(); ++i) {
      if (absent(i)) continue;
      const bool is_index = row->index_from >= 0 && i >= static_cast<size_t>(row->index_from);
      TensorType t = call.input(i)->type();
      if (optional(i)) t.dtype = DType::Float32;  // checked below
      if (auto r = check_type(t, "input " + num(static_cast<int64_t>(i)), is_index, row->quantized, row->int8_data))
        return r;
    }
    for (size_t i = 0; i < call.num_results(); ++i)
      if (auto r = check_type(call.result(i)->type(), "result " + num(static_cast<int64_t>(i)), false, row->quantized,
                              row->int8_data))
        return r;
    // Bytes moved as they are: u8 / i8 data throughout or none (a view
    // keeps its dtype).
    if (row->int8_data && (call.inputs().empty() ? false : is_8bit(call.input(0)->type().dtype)))
      for (size_t i = 0; i < call.num_results(); ++i)
        if (call.result(i)->type().dtype != call.input(0)->type().dtype)
          return "result " + num(static_cast<int64_t>(i)) + " of dtype " +
                 std::string(dtype_name(call.result(i)->type().dtype)) + " from input of dtype " +
                 std::string(dtype_name(call.input(0)->type().dtype));
    if (auto r = onednn::check_call(*row, call_view_of(program, call, name->name, row->decl))) return r;
    for (size_t i = 0; i < call.inputs().size(); ++i)
      if (optional(i) && !absent(i))
        if (auto r = check_type(call.input(i)->type(), "input " + num(static_cast<int64_t>(i)), false, row->quantized))
          return r;
    if (const int zero = onednn::quantized_zero_operand(name->name); row->quantized && zero >= 0)
      if (auto r = nonzero_refusal(program, call, zero)) return r;
    return std::nullopt;
  }

 private:
  enum class Direction { Back, Forward, Both };

  // Whether the u8 / i8 data movement `call` (an int8_data row) reads the
  // result of, or has its result read only by, calls this partitioner takes
  // that do integer work (qlinear_conv, qlinear_matmul, the clamp after
  // them), through other such data movements: then it joins their delegate
  // (an int8 transformer's reshapes and transposes between its matmuls)
  // rather than making one of its own between portable kernels.
  bool next_to_int8_work(const Program& program, const Node& call, Direction dir) const {
    auto taken_int8 = [&](const Node* n, Direction onward) {
      const auto op = n ? split_op_name(n->op()) : std::nullopt;
      const onednn::OpRow* r = op ? onednn::find_op_row(op->name) : nullptr;
      if (!r || n->inputs().empty()) return false;
      if (r->int8_data) return is_8bit(n->input(0)->type().dtype) && next_to_int8_work(program, *n, onward);
      return (r->quantized || op->name == "clamp") && !refuse(program, *n);
    };
    if (dir != Direction::Forward && taken_int8(call.input(0)->producer(), Direction::Back)) return true;
    if (dir == Direction::Back) return false;
    bool any = false;
    for (size_t i = 0; i < call.num_results(); ++i)
      for (const Use& u : call.result(i)->uses()) {
        if (!taken_int8(u.user, Direction::Forward)) return false;
        any = true;
      }
    return any;
  }

  // An integer clamp (fuse_qdq's relu or clip after an integer convolution
  // or matmul) is taken only as a post-op of the qlinear_conv or
  // qlinear_matmul whose result it alone reads, itself taken (the runtime
  // fuses it there: runtime_quant.cpp); oneDNN's int8 elementwise is not
  // used on its own.
  std::optional<std::string> integer_clamp_refusal(const Program& program, const Node& call) const {
    const Value* x = call.input(0);
    const std::string dtype(dtype_name(x->type().dtype));
    if (call.num_results() != 1 || call.result(0)->type().dtype != x->type().dtype)
      return "an integer clamp of " + dtype + " with another result";
    if (auto r = check_type(x->type(), "input 0", false, true)) return r;
    const Node* producer = x->producer();
    const auto made_by = producer ? split_op_name(producer->op()) : std::nullopt;
    if (!made_by || (made_by->name != "qlinear_conv" && made_by->name != "qlinear_matmul"))
      return "an integer clamp of " + dtype +
             " not after a qlinear_conv or qlinear_matmul (oneDNN takes one only as their post-op)";
    if (x->uses().size() != 1)
      return "an integer clamp of a " + made_by->name + " result that is also read elsewhere (oneDNN takes one only "
             "as the post-op of what it alone reads)";
    const double lo = onednn::declared_attr("clamp", "min").float_value(call.attrs());
    const double hi = onednn::declared_attr("clamp", "max").float_value(call.attrs());
    if (!(lo <= hi)) return "an integer clamp to [" + std::to_string(lo) + ", " + std::to_string(hi) + "] (min above max)";
    if (auto r = refuse(program, *producer))
      return "an integer clamp after a " + made_by->name + " that oneDNN does not take (" + *r + ")";
    return std::nullopt;
  }
};

}  // namespace

OnednnCompiler::OnednnCompiler()
    : BackendCompiler("onednn",
                      "oneDNN 2.6 primitives (static shapes, f32; f16 computed in f32): conv, matmul, normalization, pooling, elementwise, "
                      "reductions, recurrent layers") {}

std::unique_ptr<Partitioner> OnednnCompiler::make_partitioner(const std::string& options) const {
  if (!options.empty()) throw CompileError("onednn: unknown options '" + options + "' (the backend takes none)");
  return std::make_unique<OnednnPartitioner>();
}

const BackendCompiler& onednn_backend_compiler() {
  static const OnednnCompiler kCompiler;
  return kCompiler;
}

}  // namespace edgec
