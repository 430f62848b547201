// The partitioner's side of a delegate's operator table (runtime/call_view.h):
// the checks every table-driven partitioner makes before a row's own, and
// the CallView a row's check reads, made from the IR. Shared by the onednn
// and xnnpack partitioners, so that their reasons read alike.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ir/program.h"
#include "runtime/call_view.h"

namespace edgec {

/// Why a delegate that computes static shapes in the dtypes `allowed`
/// cannot take a value of type `t` (`what`: "input 0", "result 1"), or
/// nullopt: "dynamic shape: dim batch of input 0", "empty tensor: input 0
/// f32[0, 3]", "dtype f16 of input 0".
std::optional<std::string> static_type_refusal(const TensorType& t, const std::string& what,
                                               std::span<const DType> allowed);

/// A value init may read once: a constant or parameter placeholder (a
/// buffer may be mutated between runs).
bool is_init_constant(const Program& program, const Value* v);

/// `call` as a row's check sees it (`op`: its edge base name, `decl`: its
/// declaration); the call's shapes must be static.
CallView call_view_of(const Program& program, const Node& call, std::string_view op, const OpDecl* decl);

}  // namespace edgec
