// The xnnpack delegate's operators, one row each: what the partitioner
// checks before it takes a call (with the reason it gives when it does
// not), how the runtime builds the instruction's XNNPACK operators, the
// output range a clamping operator is (so that a producer with an output
// range takes it as its own), and whether this XNNPACK has the operator
// for f16. The partitioner (compile side) and the runtime side both read
// this table and nothing else, so an operator the partitioner takes is one
// the runtime can build; XnnpackTable.EveryOperatorIsBuiltAndMatchesThePortableKernel
// walks it. docs/architecture.md, "A backend's operator list", describes
// the pattern (the onednn table is the other one).
//
// The header names no XNNPACK or IR type: the partitioner sees a call as a
// CallView made from the IR (lowering/call_view.h).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/attrs.h"
#include "base/error.h"
#include "kernels/op_decl.h"
#include "runtime/call_view.h"

namespace edgec::runtime::xnnpack {
struct Ctx;
}  // namespace edgec::runtime::xnnpack

namespace edgec::xnnpack {

/// Why the delegate cannot take the call, or nullopt. The partitioner has
/// already refused dynamic shapes, empty tensors and dtypes the row does
/// not compute.
using SupportCheck = std::optional<std::string> (*)(const CallView& call);
/// The runtime's builder: the instruction's operators (and those of the
/// instructions it fuses), at init.
using BuildFn = Error (*)(runtime::xnnpack::Ctx& c);

/// An output range [lo, hi]: what relu and clamp are, and what XNNPACK's
/// operators with an output_min / output_max apply for free.
struct Range {
  float lo, hi;
};
/// The range a clamping operator is, with its attributes read through its
/// declaration.
using RangeFn = Range (*)(const OpDecl& decl, const Attrs& attrs);

struct OpRow {
  std::string_view name;         ///< The edge operator's base name.
  SupportCheck check = nullptr;  ///< Beyond static shapes and dtypes; nullptr: none.
  BuildFn build = nullptr;
  RangeFn range = nullptr;       ///< Clamping operators only (relu, clamp).
  bool f16 = false;              ///< This XNNPACK has it for f16 (else f32 only).
  bool view = false;             ///< Its result is its input's bytes (reshape and kin).
  const OpDecl* decl = nullptr;  ///< Filled from the kernels' registry.
};

/// Every row, sorted by name.
std::span<const OpRow> op_table();
/// The row of base name `op`, or nullptr.
const OpRow* find_op_row(std::string_view op);
/// The row's check applied to `call` (nullopt when it has none).
std::optional<std::string> check_call(const OpRow& row, const CallView& call);

}  // namespace edgec::xnnpack
