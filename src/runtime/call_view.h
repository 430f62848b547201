// What a delegate's support check reads of a call (docs/architecture.md, "A
// backend's operator list"): the operator, its attributes, the static
// shapes and dtypes of its operands and results, and which operands are
// constants init may read once. The partitioner makes one from the IR
// (lowering/call_view.h); a runtime may make one from an instruction, so
// that both sides run the same check. It names no IR and no library type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/attrs.h"
#include "base/dtype.h"
#include "kernels/op_decl.h"
#include "kernels/registry.h"

namespace edgec {

struct CallView {
  std::string_view op;  ///< The edge operator's base name.
  const Attrs& attrs;
  std::vector<std::vector<int64_t>> inputs;
  std::vector<std::vector<int64_t>> results;
  const OpDecl* decl = nullptr;  ///< The operator's declaration (its attributes' defaults).
  /// Per operand: a constant (a constant or parameter placeholder), whose
  /// bytes init may read once and lay out for the library.
  std::vector<bool> constant;
  /// Per operand: its dtype.
  std::vector<DType> dtypes;

  /// Attribute `name` through the operator's declaration (its default when
  /// absent). Throws std::logic_error when the declaration has no such
  /// attribute (a table row reading what its operator does not have).
  double float_attr(std::string_view name) const;
  int64_t int_attr(std::string_view name) const;
  bool bool_attr(std::string_view name) const;
  std::string_view string_attr(std::string_view name) const;
};

/// Attribute `name` of operator `op` as `decl` has it (kind, default).
/// Throws std::logic_error when `decl` is null or lacks the attribute.
const AttrDecl& declared_attr_of(const OpDecl* decl, std::string_view op, std::string_view name);

/// A delegate's operator table made ready to search: `rows` (each with a
/// `name` and a `decl`) sorted by name, each given its operator's
/// declaration from the kernels' registry. Throws std::logic_error naming
/// `backend` on two rows for one operator or a row with no portable kernel
/// (a table that cannot be right; its first use reports it).
template <typename Row>
std::vector<Row> sorted_op_rows(std::vector<Row> rows, std::string_view backend) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string name(rows[i].name);
    if (i > 0 && rows[i - 1].name == rows[i].name)
      throw std::logic_error(std::string(backend) + ": two rows for " + name);
    rows[i].decl = find_kernel_decl(rows[i].name);
    if (!rows[i].decl) throw std::logic_error(std::string(backend) + ": " + name + " has no portable kernel declaring it");
  }
  return rows;
}

/// The row named `op` of a table sorted_op_rows made, or nullptr.
template <typename Row>
const Row* find_sorted_row(std::span<const Row> rows, std::string_view op) {
  auto it = std::lower_bound(rows.begin(), rows.end(), op, [](const Row& r, std::string_view n) { return r.name < n; });
  return it != rows.end() && it->name == op ? &*it : nullptr;
}

}  // namespace edgec
