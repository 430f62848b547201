// The operator table: gathers every operator's row once, sorted by name, and
// answers lookups by full name (dialect.name.overload) or base name. A core
// operator's row is its kernel's declaration with the shape function of its
// result rule or the one its family file in src/ops registers under its
// name; a composite's row comes whole from composite_ops.cpp.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

#include "base/diagnostic.h"
#include "ops/op_info.h"
#include "kernels/registry.h"
#include "ops/op_rows.h"

namespace edgec {
namespace {

struct Table {
  std::vector<std::unique_ptr<OpInfo>> rows;
  std::vector<const OpInfo*> sorted;
  // Every pass looks up every call by name: hashed, not searched. Full
  // names exist for each dialect the row is allowed in ("aten.add.Tensor",
  // "edge.add.Tensor"); the views point into full_names.
  std::vector<std::string> full_names;
  std::unordered_map<std::string_view, const OpInfo*> by_full_name;
  std::unordered_map<std::string_view, const OpInfo*> by_name;

  Table() {
    std::unordered_map<std::string_view, ShapeFn> custom;
    for (auto family : {ops::elementwise_shapes(), ops::reduction_shapes(), ops::linalg_shapes(), ops::nn_shapes(),
                        ops::shape_shapes(), ops::indexing_shapes(), ops::creation_shapes(),
                        ops::quantized_shapes(), ops::quantized_ms_shapes()})
      for (auto [name, fn] : family)
        if (!custom.emplace(name, fn).second)
          throw CompileError("operator table: two shape functions for '" + std::string(name) + "'");
    for (const KernelEntry& e : kernel_entries()) {
      if (e.decl.family.empty())
        throw CompileError("operator table: the kernel of '" + std::string(e.decl.name) + "' declares no family");
      auto row = std::make_unique<OpInfo>();
      static_cast<OpDecl&>(*row) = e.decl;
      row->shape = ops::rule_shape(e.decl.result);
      if (e.decl.result == ResultRule::Custom) {
        auto it = custom.find(e.decl.name);
        if (it == custom.end())
          throw CompileError("operator table: '" + std::string(e.decl.name) +
                             "' declares a custom result rule but src/ops registers no shape function for it");
        row->shape = it->second;
        custom.erase(it);
      }
      rows.push_back(std::move(row));
    }
    if (!custom.empty())
      throw CompileError("operator table: a shape function for '" + std::string(custom.begin()->first) +
                         "', which no kernel declares");
    for (auto& row : ops::composite_rows()) rows.push_back(std::make_unique<OpInfo>(std::move(row)));
    for (const auto& r : rows) sorted.push_back(r.get());
    std::sort(sorted.begin(), sorted.end(),
              [](const OpInfo* a, const OpInfo* b) { return a->name < b->name; });
    for (size_t i = 1; i < sorted.size(); ++i)
      if (sorted[i - 1]->name == sorted[i]->name)
        throw CompileError("operator table: two rows named '" + std::string(sorted[i]->name) + "'");
    full_names.reserve(2 * sorted.size());
    for (const OpInfo* op : sorted)
      for (std::string_view dialect : {kAtenDialect, kEdgeDialect}) full_names.push_back(op->full_name(dialect));
    for (size_t i = 0; i < sorted.size(); ++i) {
      by_name.emplace(sorted[i]->name, sorted[i]);
      by_full_name.emplace(full_names[2 * i], sorted[i]);
      by_full_name.emplace(full_names[2 * i + 1], sorted[i]);
    }
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
  const auto& by_name = table().by_name;
  auto it = by_name.find(base_name);
  return it == by_name.end() ? nullptr : it->second;
}

const OpInfo* find_op(std::string_view full_name) {
  const auto& by_full_name = table().by_full_name;
  auto it = by_full_name.find(full_name);
  return it == by_full_name.end() ? nullptr : it->second;
}

bool is_known_dialect(std::string_view dialect) {
  return dialect == kAtenDialect || dialect == kEdgeDialect;
}

bool dialect_allows(std::string_view dialect, const OpInfo& op, std::string_view prefix) {
  if (prefix != dialect) return false;
  return dialect == kAtenDialect || (dialect == kEdgeDialect && op.core);
}

std::span<const OpInfo* const> all_ops() { return table().sorted; }

const OpDecl* find_decl_by_name(std::string_view base_name) { return find_op_by_name(base_name); }

std::vector<OpInfo> ops::family_rows(std::string_view family) {
  std::vector<OpInfo> rows;
  for (const OpInfo* op : all_ops())
    if (op->family == family) rows.push_back(*op);
  return rows;
}

const AttrDecl& ShapeQuery::attr(std::string_view attr_name) const {
  const AttrDecl* a = decl ? decl->attr(attr_name) : nullptr;
  if (!a) throw CompileError("internal error: [" + std::string(op) + "] reads attribute '" + std::string(attr_name) +
                             "', which its declaration does not have");
  return *a;
}

}  // namespace edgec
