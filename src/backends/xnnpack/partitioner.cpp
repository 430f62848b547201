// The xnnpack partitioner: takes a call when the delegate's operator table
// (op_table.cpp, which the runtime side builds from) has a row for it and
// the row's check passes. Everything it takes has static shapes and f32
// data, or f16 data where the row says this XNNPACK has the operator for
// f16, one dtype throughout; an integer row's (qlinear_conv,
// qlinear_matmul) u8 / i8 data, f32 scales and i32 biases, typed by its
// check, and constant quantization parameters XNNPACK's 8-bit operators
// take (xnnpack::plan_quantized). Checks run in a fixed order so that the
// reason names the first obstacle: operator, shapes and dtypes, then the
// row's check (constant weights, geometry, attributes), then the
// quantization parameters' values.
#include <cstring>
#include <type_traits>

#include "backends/xnnpack/compiler.h"
#include "backends/xnnpack/op_table.h"
#include "base/diagnostic.h"
#include "ir/operator.h"
#include "lowering/call_view.h"

namespace edgec {
namespace {

using Reason = std::optional<std::string>;

constexpr DType kF32[] = {DType::Float32};
constexpr DType kF32OrF16[] = {DType::Float32, DType::Float16};
constexpr DType kQuantized[] = {DType::UInt8, DType::Int8, DType::Int32, DType::Float32};

// The elements of constant operand `i` of `call` (f32, or u8 / i8 as
// int32), or nullopt when it has no data here.
template <typename T>
std::optional<std::vector<T>> constant_values(const Program& program, const Node& call, size_t i) {
  const Value* v = call.input(i);
  const InputSpec* spec = program.input_spec_of(v);
  if (!spec) return std::nullopt;
  const Store& store = program.store_for(*spec);
  const auto data = store.find(spec->target);
  if (data == store.end() || !data->second.bytes) return std::nullopt;
  const std::vector<std::byte>& b = *data->second.bytes;
  const DType t = v->type().dtype;
  const size_t esz = dtype_size(t);
  int64_t n = 1;
  for (int64_t d : v->type().static_shape()) n *= d;
  std::vector<T> out;
  for (int64_t k = 0; k < n; ++k) {
    const size_t at = data->second.splat ? 0 : static_cast<size_t>(k) * esz;
    if (at + esz > b.size()) return std::nullopt;
    if constexpr (std::is_same_v<T, float>) {
      float f;
      std::memcpy(&f, &b[at], sizeof f);
      out.push_back(f);
    } else {
      out.push_back(t == DType::UInt8 ? static_cast<T>(static_cast<uint8_t>(b[at]))
                                      : static_cast<T>(static_cast<int8_t>(b[at])));
    }
  }
  return out;
}

// The row's checks passed (the parameters are constants of the right
// types and sizes): whether XNNPACK's 8-bit operators take their values.
Reason quantized_values_refusal(const Program& program, const Node& call, std::string_view op) {
  const auto xs = constant_values<float>(program, call, 1), ws = constant_values<float>(program, call, 4),
             ys = constant_values<float>(program, call, 6);
  const auto wz = constant_values<int32_t>(program, call, 5);
  const auto wv = constant_values<int32_t>(program, call, 3);
  if (!xs || !ws || !ys || !wz || !wv || xs->size() != 1 || ys->size() != 1)
    return std::string(op) + " quantization parameters or weights without data";
  const auto& w = call.input(3)->type();
  const int64_t channels = op == "qlinear_conv" ? w.static_shape()[0] : w.static_shape().back();
  std::vector<uint8_t> bytes(wv->size());
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>((*wv)[i]);
  xnnpack::QuantPlan plan;
  return xnnpack::plan_quantized(op, w.dtype, *wz, *ws, (*xs)[0], (*ys)[0], channels,
                                 xnnpack::holds_qc8_min(w.dtype, *wz, bytes.data(), bytes.size()), plan);
}

class XnnpackPartitioner final : public Partitioner {
 public:
  const std::string& backend() const override { return xnnpack_backend_compiler().id(); }

  std::optional<std::string> refuse(const Program& program, const Node& call) const override {
    const auto name = split_op_name(call.op());
    const xnnpack::OpRow* row = name ? xnnpack::find_op_row(name->name) : nullptr;
    if (!row) return "operator " + (name ? name->name : call.op()) + " is not supported by XNNPACK";
    if (row->quantized) {
      for (size_t i = 0; i < call.inputs().size(); ++i) {
        const TensorType& t = call.input(i)->type();
        // qlinear_conv's bias left out as an empty [0] (the importer's way).
        if (i == 8 && t.dims.size() == 1 && t.dims[0].is_static() && t.dims[0].value == 0) continue;
        if (auto r = static_type_refusal(t, "input " + std::to_string(i), kQuantized)) return r;
      }
      for (size_t i = 0; i < call.num_results(); ++i)
        if (auto r = static_type_refusal(call.result(i)->type(), "result " + std::to_string(i), kQuantized)) return r;
      if (auto r = xnnpack::check_call(*row, call_view_of(program, call, name->name, row->decl))) return r;
      return quantized_values_refusal(program, call, name->name);
    }
    const std::span<const DType> dtypes = row->f16 ? std::span<const DType>(kF32OrF16) : std::span<const DType>(kF32);
    std::vector<const TensorType*> types;
    for (size_t i = 0; i < call.inputs().size(); ++i) {
      types.push_back(&call.input(i)->type());
      if (auto r = static_type_refusal(*types.back(), "input " + std::to_string(i), dtypes)) return r;
    }
    for (size_t i = 0; i < call.num_results(); ++i) {
      types.push_back(&call.result(i)->type());
      if (auto r = static_type_refusal(*types.back(), "result " + std::to_string(i), dtypes)) return r;
    }
    // XNNPACK's operators compute in one type.
    for (const TensorType* t : types)
      if (t->dtype != types.front()->dtype)
        return "mixed dtypes " + std::string(dtype_name(types.front()->dtype)) + " and " +
               std::string(dtype_name(t->dtype));
    return xnnpack::check_call(*row, call_view_of(program, call, name->name, row->decl));
  }
};

// No options; the payload is preprocess.cpp's.
class XnnpackCompiler final : public BackendCompiler {
 public:
  XnnpackCompiler()
      : BackendCompiler("xnnpack",
                        "XNNPACK operators (static shapes, f32; f16 where XNNPACK has it): conv, fully connected, "
                        "int8 / uint8 qlinear_conv and qlinear_matmul, "
                        "pooling, resize, softmax, elementwise, concat; NHWC inside") {}

  std::unique_ptr<Partitioner> make_partitioner(const std::string& options) const override {
    if (options.empty()) return std::make_unique<XnnpackPartitioner>();
    throw CompileError("xnnpack: unknown options '" + options + "' (the backend takes none)");
  }

  std::vector<std::byte> preprocess(const Program& delegate) const override { return xnnpack_payload(delegate); }
};

}  // namespace

const BackendCompiler& xnnpack_backend_compiler() {
  static const XnnpackCompiler kCompiler;
  return kCompiler;
}

}  // namespace edgec
