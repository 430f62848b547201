// The xnnpack partitioner: takes a call when the delegate's operator table
// (op_table.cpp, which the runtime side builds from) has a row for it and
// the row's check passes. Everything it takes has static shapes and f32
// data, or f16 data where the row says this XNNPACK has the operator for
// f16, one dtype throughout; checks run in a fixed order so that the reason
// names the first obstacle: operator, shapes and dtypes, then the row's
// check (constant weights, geometry, attributes).
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

class XnnpackPartitioner final : public Partitioner {
 public:
  const std::string& backend() const override { return xnnpack_backend_compiler().id(); }

  std::optional<std::string> refuse(const Program& program, const Node& call) const override {
    const auto name = split_op_name(call.op());
    const xnnpack::OpRow* row = name ? xnnpack::find_op_row(name->name) : nullptr;
    if (!row) return "operator " + (name ? name->name : call.op()) + " is not supported by XNNPACK";
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
