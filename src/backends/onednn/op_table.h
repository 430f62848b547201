// The onednn delegate's operators, one row each: what the partitioner
// checks before it takes a call (with the reason it gives when it does
// not), how the runtime builds the instruction, the oneDNN eltwise
// operations a unary operator is (for steps and fused post-ops), and which
// operands may arrive in a blocked layout. The partitioner (compile side)
// and the runtime side both read this table and nothing else, so an
// operator the partitioner takes is one the runtime can build; the test
// OnednnTable.EveryOperatorIsBuiltAndMatchesThePortableKernel walks it.
// docs/architecture.md, "Adding a backend", describes the pattern.
//
// The header names no oneDNN or IR type: the partitioner sees a call as a
// CallView made from the IR, the runtime makes one from an instruction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "base/dtype.h"
#include "base/error.h"
#include "kernels/op_decl.h"
#include "runtime/call_view.h"

namespace edgec::runtime::onednn {
struct Ctx;
struct Eltwise;
}  // namespace edgec::runtime::onednn

namespace edgec::onednn {

/// What a support check reads of a call (runtime/call_view.h); the
/// partitioner has already refused dynamic shapes and dtypes other than
/// f32 and f16 (held in f32 by the runtime), but for index operands and the optional operands, which it
/// type-checks after the row's check (OpRow::optional_from).
using edgec::CallView;

/// Why the delegate cannot take the call, or nullopt.
using SupportCheck = std::optional<std::string> (*)(const CallView& call);
/// The runtime's builder: the call's primitives or loops, at init.
using BuildFn = Error (*)(runtime::onednn::Ctx& c);
/// The oneDNN eltwise operations a unary operator is, with `attrs` read
/// through `decl` (hardsigmoid is two).
using EltwiseFn = std::vector<runtime::onednn::Eltwise> (*)(const OpDecl& decl, const Attrs& attrs);

/// Which operands the runtime may read in a blocked (oneDNN-chosen)
/// layout; the others are reordered to plain first.
enum class BlockedReads : uint8_t {
  None,       ///< Plain operands only.
  First,      ///< Operand 0 (convolution, pooling, batch norm).
  All,        ///< Every operand (unary operators).
  SameShape,  ///< Every operand, when all have the result's shape (binary operators).
};

struct OpRow {
  std::string_view name;          ///< The edge operator's base name.
  SupportCheck check = nullptr;   ///< Beyond static f32/f16 shapes; nullptr: none.
  BuildFn build = nullptr;
  EltwiseFn eltwise = nullptr;    ///< Unary operators only.
  BlockedReads blocked = BlockedReads::None;
  int index_from = -1;            ///< The first integer index operand (take, index), or -1.
  bool view = false;              ///< Its result is its input's bytes (reshape and kin).
  const OpDecl* decl = nullptr;   ///< Filled from the kernels' registry.
  /// The first optional operand (the recurrent layers' B, sequence_lens,
  /// initial states, peepholes), or -1. The importer passes one left out
  /// as an empty [0] tensor, which the partitioner does not type-check; a
  /// present one is type-checked after the row's check, so that the check
  /// can give the reason that matters (sequence_lens is an integer
  /// tensor).
  int optional_from = -1;
  /// An integer operator (qlinear_conv, qlinear_matmul: runtime_quant.h):
  /// its operands and results are u8, i8, i32 or f32 (scales), which the
  /// row's check types, rather than f32 data.
  bool quantized = false;
  /// Moves bytes only (reshape and kin, permute, slice): u8 and i8 data
  /// too (an int8 transformer's reshapes and transposes between its
  /// qlinear_matmuls), all operands and the result of one dtype.
  bool int8_data = false;
};

/// Every row, sorted by name.
std::span<const OpRow> op_table();
/// The row of base name `op`, or nullptr.
const OpRow* find_op_row(std::string_view op);
/// Attribute `name` of operator `op` as its declaration has it (kind,
/// default): what the runtime's builders read attributes through. Throws
/// std::logic_error when `op` has no row or its declaration no such
/// attribute (init reports it).
const AttrDecl& declared_attr(std::string_view op, std::string_view name);

/// The row's check applied to `call` (nullopt when it has none).
std::optional<std::string> check_call(const OpRow& row, const CallView& call);

}  // namespace edgec::onednn
