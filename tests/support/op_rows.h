// What tests of operator rows (tests/ops) build their queries with: types
// and dims in a word, attribute lists (attrs_of), and a row's shape
// function run on given inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/diagnostic.h"
#include "ops/op_info.h"
#include "support/attrs.h"

namespace edgec {

using Ints = std::vector<int64_t>;

inline TensorType f32(Ints shape) { return TensorType::of(DType::Float32, shape); }
inline TensorType f16(Ints shape) { return TensorType::of(DType::Float16, shape); }
inline TensorType i64(Ints shape) { return TensorType::of(DType::Int64, shape); }
inline TensorType mask(Ints shape) { return TensorType::of(DType::Bool, shape); }
inline TensorType typed(DType d, Ints shape) { return TensorType::of(d, shape); }
inline TensorType dims(Dims ds, DType d = DType::Float32) { return TensorType(d, std::move(ds)); }
inline Dim fx(int64_t v) { return Dim::fixed(v); }
inline Dim sym(const std::string& s, int64_t ub = -1) { return Dim::symbolic(s, ub); }
inline Dim dyn(int64_t ub) { return Dim::dynamic(ub); }

/// The result types row `r`'s shape function gives for `inputs`, grouped
/// into operands by `groups`.
inline std::vector<TensorType> row_shapes(const OpInfo& r, const std::vector<TensorType>& inputs,
                                          const std::vector<OperandGroup>& groups, const Attrs& a) {
  ShapeQuery q{r.name, inputs, groups, a};
  return r.shape(q);
}

/// The one type in `types`; a test failure when there are more or none.
inline TensorType only_type(const std::vector<TensorType>& types) {
  EXPECT_EQ(types.size(), 1u);
  return types.at(0);
}

/// Expects what a core row `r` (named `n`) declares: the default overload,
/// a shape function and a summary.
inline void expect_core_row(const OpInfo& r, const std::string& n) {
  EXPECT_EQ(r.overload, "default") << n;
  EXPECT_TRUE(r.core) << n;
  EXPECT_NE(r.shape, nullptr) << n;
  EXPECT_FALSE(r.summary.empty()) << n;
}

/// The message of the CompileError `infer()` throws for operator `op`,
/// expected to contain `part`; none, and a test failure, when it throws none.
template <typename Infer>
std::optional<std::string> infer_error(Infer&& infer, const std::string& op, const std::string& part) {
  try {
    infer();
    ADD_FAILURE() << op << ": expected an error containing '" << part << "'";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    return msg;
  }
  return std::nullopt;
}

}  // namespace edgec
