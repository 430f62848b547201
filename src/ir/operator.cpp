#include "ir/operator.h"

#include "base/diagnostic.h"

namespace edgec {

std::vector<TensorType> shape_of_call(const OpInfo& op, std::span<Value* const> inputs,
                                      std::span<const OperandGroup> groups, const Attrs& attrs) {
  // Pointers to the inputs' types, on the stack for the usual few inputs
  // (a concat may have 10^5).
  constexpr size_t kInline = 8;
  const TensorType* inline_types[kInline];
  std::vector<const TensorType*> many;
  const TensorType** types = inline_types;
  if (inputs.size() > kInline) {
    many.resize(inputs.size());
    types = many.data();
  }
  for (size_t i = 0; i < inputs.size(); ++i) types[i] = &inputs[i]->type();
  return op.infer(TypeList(std::span<const TensorType* const>(types, inputs.size())), groups, attrs);
}

std::vector<TensorType> infer_result_types(const OpInfo& op, const Node& call) {
  std::vector<TensorType> results = shape_of_call(op, call.inputs(), call.operand_groups(), call.attrs());
  // Whatever an operator's sizes come from (attributes, input shapes), a
  // result whose bytes do not fit in int64 would wrap every size computed
  // from it later.
  for (const TensorType& t : results)
    if (t.size_overflows())
      throw CompileError("[" + std::string(op.name) + "] result type " + t.str() +
                         " is too large: its size in bytes does not fit in int64");
  return results;
}

}  // namespace edgec
