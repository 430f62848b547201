#include "lowering/call_view.h"

#include <algorithm>

namespace edgec {

std::optional<std::string> static_type_refusal(const TensorType& t, const std::string& what,
                                               std::span<const DType> allowed) {
  for (const Dim& d : t.dims) {
    if (!d.is_static())
      return "dynamic shape: dim " + (d.kind == Dim::Kind::Symbolic ? d.symbol.str() : d.str()) + " of " + what;
    if (d.value == 0) return "empty tensor: " + what + " " + t.str();
  }
  if (std::find(allowed.begin(), allowed.end(), t.dtype) == allowed.end())
    return "dtype " + std::string(dtype_name(t.dtype)) + " of " + what;
  return std::nullopt;
}

bool is_init_constant(const Program& program, const Value* v) {
  if (v->producer() == nullptr || v->producer()->is_call()) return false;
  const InputSpec* spec = program.input_spec_of(v);
  return spec && (spec->kind == InputKind::Constant || spec->kind == InputKind::Parameter);
}

CallView call_view_of(const Program& program, const Node& call, std::string_view op, const OpDecl* decl) {
  CallView view{op, call.attrs(), {}, {}, decl, {}, {}};
  for (const Value* v : call.inputs()) {
    view.inputs.push_back(v->type().static_shape());
    view.dtypes.push_back(v->type().dtype);
    view.constant.push_back(is_init_constant(program, v));
  }
  for (size_t i = 0; i < call.num_results(); ++i) view.results.push_back(call.result(i)->type().static_shape());
  return view;
}

}  // namespace edgec
