// The operator table seen from the IR: a call's row (op_of, remembered by
// the node) and its result types inferred from its input values. The table
// itself is src/ops/op_info.h.
#pragma once

#include <span>
#include <vector>

#include "ir/program.h"
#include "ops/op_info.h"

namespace edgec {

/// find_op of a call's operator, remembered by the node until its operator
/// changes: every pass and the verifier look up every call.
inline const OpInfo* op_of(const Node& call) {
  if (const OpInfo* cached = call.cached_op_info()) return cached;
  const OpInfo* op = find_op(call.op());
  call.cache_op_info(op);
  return op;
}

/// Runs the row's shape function on a call's current input types, and
/// refuses a result whose size in bytes does not fit in int64.
std::vector<TensorType> infer_result_types(const OpInfo& op, const Node& call);
/// The row's shape function on the types of `inputs` (a call about to be
/// made), without infer_result_types's size check.
std::vector<TensorType> shape_of_call(const OpInfo& op, std::span<Value* const> inputs,
                                      std::span<const OperandGroup> groups, const Attrs& attrs);

}  // namespace edgec
