// The operator table: gathers every family's rows once, sorted by name, and
// answers lookups by full name (dialect.name.overload) or base name.
#include <algorithm>
#include <memory>

#include "ir/diagnostic.h"
#include "ir/operator.h"
#include "ops/op_rows.h"

namespace edgec {
namespace {

struct Table {
  std::vector<std::unique_ptr<OpInfo>> rows;
  std::vector<const OpInfo*> sorted;

  Table() {
    for (auto family : {ops::elementwise_rows(), ops::reduction_rows(), ops::linalg_rows(), ops::nn_rows(),
                        ops::shape_rows(), ops::indexing_rows(), ops::creation_rows()}) {
      for (auto& row : family) rows.push_back(std::make_unique<OpInfo>(std::move(row)));
    }
    for (const auto& r : rows) sorted.push_back(r.get());
    std::sort(sorted.begin(), sorted.end(),
              [](const OpInfo* a, const OpInfo* b) { return a->name < b->name; });
    for (size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i - 1]->name == sorted[i]->name)
        throw CompileError("operator table: two rows named '" + sorted[i]->name + "'");
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

std::optional<OpName> split_op_name(std::string_view full_name) {
  const size_t first = full_name.find('.');
  const size_t last = full_name.rfind('.');
  if (first == std::string_view::npos || first == last) return std::nullopt;
  OpName n;
  n.dialect = std::string(full_name.substr(0, first));
  n.name = std::string(full_name.substr(first + 1, last - first - 1));
  n.overload = std::string(full_name.substr(last + 1));
  if (n.dialect.empty() || n.name.empty() || n.overload.empty()) return std::nullopt;
  return n;
}

const OpInfo* find_op_by_name(std::string_view base_name) {
  const auto& sorted = table().sorted;
  auto it = std::lower_bound(sorted.begin(), sorted.end(), base_name,
                             [](const OpInfo* op, std::string_view n) { return op->name < n; });
  return (it != sorted.end() && (*it)->name == base_name) ? *it : nullptr;
}

const OpInfo* find_op(std::string_view full_name) {
  // Views, not split_op_name's strings: every pass looks up every call.
  const size_t first = full_name.find('.');
  const size_t last = full_name.rfind('.');
  if (first == std::string_view::npos || first == last || first == 0 || last + 1 == full_name.size() ||
      last == first + 1)
    return nullptr;
  if (!is_known_dialect(full_name.substr(0, first))) return nullptr;
  const OpInfo* op = find_op_by_name(full_name.substr(first + 1, last - first - 1));
  if (!op || op->overload != full_name.substr(last + 1)) return nullptr;
  return op;
}

bool is_known_dialect(std::string_view dialect) {
  return dialect == kAtenDialect || dialect == kEdgeDialect;
}

bool dialect_allows(std::string_view dialect, const OpInfo& op, std::string_view prefix) {
  if (prefix != dialect) return false;
  return dialect == kAtenDialect || (dialect == kEdgeDialect && op.core);
}

std::span<const OpInfo* const> all_ops() { return table().sorted; }

std::vector<TensorType> infer_result_types(const OpInfo& op, const Node& call) {
  std::vector<TensorType> types;
  types.reserve(call.inputs().size());
  for (const Value* v : call.inputs()) types.push_back(v->type());
  ShapeQuery q{op.name, types, call.operand_groups(), call.attrs()};
  std::vector<TensorType> results = op.shape(q);
  // Whatever an operator's sizes come from (attributes, input shapes), a
  // result whose bytes do not fit in int64 would wrap every size computed
  // from it later.
  for (const TensorType& t : results)
    if (t.size_overflows())
      ops::op_error(op.name, "result type " + t.str() + " is too large: its size in bytes does not fit in int64");
  return results;
}

}  // namespace edgec
