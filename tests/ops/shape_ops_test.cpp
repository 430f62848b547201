// Rows of the shape, indexing and creation families (src/ops/shape_ops.cpp,
// indexing_ops.cpp, creation_ops.cpp): schemas, shapes on typical inputs
// (matching the kernels), symbolic and data-dependent dims, and each error.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ops/op_rows.h"
#include "passes/decompositions.h"
#include "support/op_rows.h"

namespace edgec {
namespace {

const OpInfo& row(const std::string& name) {
  static const std::vector<OpInfo> rows = [] {
    std::vector<OpInfo> all = ops::shape_rows();
    for (auto family : {ops::indexing_rows(), ops::creation_rows()})
      for (auto& r : family) all.push_back(std::move(r));
    return all;
  }();
  for (const OpInfo& r : rows)
    if (r.name == name) return r;
  throw std::runtime_error("no shape/indexing/creation row " + name);
}

std::vector<TensorType> infer(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  const OpInfo& r = row(op);
  std::vector<OperandGroup> groups;
  // index(x, [i0, i1, ...]) and pick(i, [t0, t1, ...]): one tensor, then
  // the list; others one per input.
  if ((r.name == "index" || r.name == "pick") && !inputs.empty()) {
    groups = {OperandGroup{false, 1}, OperandGroup{true, static_cast<int>(inputs.size()) - 1}};
  } else if (r.name == "concat") {
    groups = {OperandGroup{true, static_cast<int>(inputs.size())}};
  } else {
    groups.assign(inputs.size(), OperandGroup{});
  }
  return row_shapes(r, inputs, groups, a);
}

TensorType infer1(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  return only_type(infer(op, std::move(inputs), a));
}

std::string shape_of(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  return infer1(op, std::move(inputs), a).str();
}

/// Expects a CompileError whose message starts with "[op]" and contains `part`.
void expect_error(const std::string& op, std::vector<TensorType> inputs, const Attrs& a, const std::string& part) {
  if (const auto error = infer_error([&] { infer(op, std::move(inputs), a); }, op, part)) {
    EXPECT_EQ(error->rfind("[" + op + "] ", 0), 0u) << *error;
  }
}

constexpr int64_t kMax = INT64_MAX;
constexpr int64_t kMin = INT64_MIN;

// ---- schemas -----------------------------------------------------------------

TEST(ShapeRows, Schemas) {
  const char* names[] = {"concat", "reshape", "permute", "expand", "squeeze", "unsqueeze", "flatten",
                         "split",  "slice",   "select",  "pad",    "tile",    "triu",      "tril",
                         "topk",   "take",    "gather",  "index",  "nonzero", "arange",    "full",
                         "rand_like", "scatter", "scatter_nd", "pick", "unique"};
  for (const char* n : names) {
    const OpInfo& r = row(n);
    expect_core_row(r, n);
  }
  // Composites of these families: no kernel of their own, a decomposition instead.
  const char* composites[] = {"embedding", "index_select", "zeros", "ones"};
  for (const char* n : composites) {
    const OpInfo& r = row(n);
    EXPECT_FALSE(r.core) << n;
    EXPECT_NE(find_decomposition(n), nullptr) << n;
    EXPECT_NE(r.shape, nullptr) << n;
  }
  EXPECT_EQ(ops::shape_rows().size() + ops::indexing_rows().size() + ops::creation_rows().size(),
            std::size(names) + std::size(composites));

  EXPECT_TRUE(row("reshape").attr("shape")->required);
  EXPECT_EQ(row("reshape").attr("shape")->kind, AttrKind::Ints);
  EXPECT_FALSE(row("squeeze").attr("dims")->required);
  EXPECT_TRUE(row("split").attr("sizes")->required);
  EXPECT_FALSE(row("split").attr("dim")->required);
  EXPECT_FALSE(row("slice").attr("steps")->required);
  EXPECT_FALSE(row("slice").attr("dims")->required);
  EXPECT_TRUE(row("slice").attr("starts")->required);
  EXPECT_TRUE(row("select").attr("index")->required);
  EXPECT_EQ(row("pad").attr("mode")->kind, AttrKind::String);
  EXPECT_EQ(row("pad").attr("value")->kind, AttrKind::Float);
  EXPECT_EQ(row("topk").attr("largest")->kind, AttrKind::Bool);
  EXPECT_TRUE(row("topk").attr("k")->required);
  EXPECT_EQ(row("arange").attr("start")->kind, AttrKind::Float);
  EXPECT_TRUE(row("arange").attr("end")->required);
  for (const char* n : {"arange", "full"}) {
    EXPECT_EQ(row(n).attr("dtype")->kind, AttrKind::DType) << n;
    EXPECT_TRUE(row(n).attr("dtype")->required) << n;
    EXPECT_TRUE(row(n).operands.empty()) << n;
    EXPECT_EQ(row(n).flags, kOpAllocation) << n;
  }
  EXPECT_EQ(row("index").operands.size(), 2u);
  EXPECT_EQ(row("index").operands[1].kind, OperandKind::List);
  EXPECT_EQ(row("take").operands.size(), 2u);
  EXPECT_EQ(row("concat").operands[0].kind, OperandKind::List);
  EXPECT_TRUE(row("nonzero").flags & kOpDataDependent);
  EXPECT_TRUE(row("index").flags & kOpDataDependent);
  EXPECT_TRUE(row("pick").flags & kOpDataDependent);
  EXPECT_EQ(row("pick").operands[1].kind, OperandKind::List);
  EXPECT_TRUE(row("reshape").flags & kOpShapeOnly);
  EXPECT_TRUE(row("take").flags & kOpShapeOnly);
  EXPECT_FALSE(row("topk").flags & kOpShapeOnly);
}

// ---- reshape -----------------------------------------------------------------

TEST(ShapeRows, Reshape) {
  EXPECT_EQ(shape_of("reshape", {f32({2, 3, 4})}, attrs_of({{"shape", Ints{4, -1}}})), "f32[4, 6]");
  EXPECT_EQ(shape_of("reshape", {typed(DType::Int8, {3, 5})}, attrs_of({{"shape", Ints{-1, 3}}})), "i8[5, 3]");
  EXPECT_EQ(shape_of("reshape", {f32({1, 1})}, attrs_of({{"shape", Ints{}}})), "f32[]");
  EXPECT_EQ(shape_of("reshape", {f32({})}, attrs_of({{"shape", Ints{1, 1, 1}}})), "f32[1, 1, 1]");
  EXPECT_EQ(shape_of("reshape", {f32({0, 3})}, attrs_of({{"shape", Ints{3, -1}}})), "f32[3, 0]");
  EXPECT_EQ(shape_of("reshape", {f32({0, 3})}, attrs_of({{"shape", Ints{3, 0, 5}}})), "f32[3, 0, 5]");
  // An empty float list is an empty int list.
  EXPECT_EQ(shape_of("reshape", {f32({1})}, attrs_of({{"shape", std::vector<double>{}}})), "f32[]");
}

TEST(ShapeRows, ReshapeSymbolic) {
  // The -1 takes the symbol when the static parts cancel.
  EXPECT_EQ(shape_of("reshape", {dims({sym("batch"), fx(3), fx(4)})}, attrs_of({{"shape", Ints{-1, 12}}})),
            "f32[batch, 12]");
  EXPECT_EQ(shape_of("reshape", {dims({sym("batch"), fx(12)})}, attrs_of({{"shape", Ints{-1, 3, 4}}})),
            "f32[batch, 3, 4]");
  // Otherwise a derived symbol, bounded when the input is.
  EXPECT_EQ(shape_of("reshape", {dims({sym("batch"), fx(6)})}, attrs_of({{"shape", Ints{-1, 3}}})),
            "f32[batch_mul2, 3]");
  EXPECT_EQ(shape_of("reshape", {dims({sym("b", 8), fx(2)})}, attrs_of({{"shape", Ints{-1, 4}}})),
            "f32[b_div2<=4, 4]");
  EXPECT_EQ(shape_of("reshape", {dims({sym("b"), sym("s"), fx(4)})}, attrs_of({{"shape", Ints{-1, 4}}})),
            "f32[b_x_s, 4]");
  EXPECT_EQ(shape_of("reshape", {dims({sym("b"), fx(0)})}, attrs_of({{"shape", Ints{-1, 4}}})), "f32[0, 4]");
  // A data-dependent input gives a data-dependent dim.
  EXPECT_EQ(shape_of("reshape", {dims({dyn(6), fx(4)})}, attrs_of({{"shape", Ints{-1, 2}}})), "f32[?<=12, 2]");
  EXPECT_EQ(shape_of("reshape", {dims({dyn(6), fx(4)})}, attrs_of({{"shape", Ints{-1, 4}}})), "f32[?<=6, 4]");
  // Without -1 the result is static; the element count must be possible.
  EXPECT_EQ(shape_of("reshape", {dims({sym("b"), fx(3)})}, attrs_of({{"shape", Ints{2, 6}}})), "f32[2, 6]");
  expect_error("reshape", {dims({sym("b"), fx(3)})}, attrs_of({{"shape", Ints{4, 4}}}), "not a multiple of 3");
  expect_error("reshape", {dims({sym("b", 2), fx(3)})}, attrs_of({{"shape", Ints{3, 3}}}), "more than its bound 6");
  expect_error("reshape", {dims({sym("b"), fx(0)})}, attrs_of({{"shape", Ints{3}}}), "got [3]");
}

TEST(ShapeRows, ReshapeErrors) {
  const auto x = f32({3, 5});
  expect_error("reshape", {x}, attrs_of({{"shape", Ints{4, 4}}}), "as many elements as f32[3, 5], got [4, 4]");
  expect_error("reshape", {x}, attrs_of({{"shape", Ints{4, -1}}}), "not a multiple of 4");
  expect_error("reshape", {x}, attrs_of({{"shape", Ints{-1, -1}}}), "at most one -1");
  expect_error("reshape", {x}, attrs_of({{"shape", Ints{-3, 5}}}), "got [-3, 5]");
  expect_error("reshape", {f32({0, 3})}, attrs_of({{"shape", Ints{0, -1}}}), "cannot be inferred");
  expect_error("reshape", {x}, {}, "expected attribute 'shape'");
  expect_error("reshape", {x}, attrs_of({{"shape", int64_t{3}}}), "of kind int[], got int");
  expect_error("reshape", {x}, attrs_of({{"shape", Ints(9, 1)}}), "rank at most 8, got rank 9");
  expect_error("reshape", {x}, attrs_of({{"shape", Ints{kMax, 2}}}), "got [");
  expect_error("reshape", {x, x}, attrs_of({{"shape", Ints{15}}}), "expected 1 tensor input(s), got 2");
}

// ---- squeeze, unsqueeze, flatten -----------------------------------------------

TEST(ShapeRows, Squeeze) {
  const auto x = typed(DType::UInt8, {1, 3, 1, 2});
  EXPECT_EQ(shape_of("squeeze", {x}), "u8[3, 2]");
  EXPECT_EQ(shape_of("squeeze", {x}, attrs_of({{"dims", Ints{0, -2}}})), "u8[3, 2]");
  EXPECT_EQ(shape_of("squeeze", {x}, attrs_of({{"dims", Ints{2}}})), "u8[1, 3, 2]");
  EXPECT_EQ(shape_of("squeeze", {x}, attrs_of({{"dims", Ints{}}})), "u8[1, 3, 1, 2]");
  EXPECT_EQ(shape_of("squeeze", {f32({})}), "f32[]");
  EXPECT_EQ(shape_of("squeeze", {f32({})}, attrs_of({{"dims", Ints{0}}})), "f32[]");
  EXPECT_EQ(shape_of("squeeze", {f32({1, 0, 1})}), "f32[0]");
  // Symbols stay unless listed; a listed symbol must be 1.
  EXPECT_EQ(shape_of("squeeze", {dims({sym("b"), fx(1), fx(4)})}), "f32[b, 4]");
  EXPECT_EQ(shape_of("squeeze", {dims({sym("b"), fx(1), fx(4)})}, attrs_of({{"dims", Ints{0, 1}}})), "f32[4]");
  expect_error("squeeze", {x}, attrs_of({{"dims", Ints{1}}}), "to have size 1, got 3");
  expect_error("squeeze", {x}, attrs_of({{"dims", Ints{4}}}), "for rank 4, got 4");
  expect_error("squeeze", {x}, attrs_of({{"dims", Ints{0, -4}}}), "dim -4 twice");
  expect_error("squeeze", {x}, attrs_of({{"dims", Ints{0, 1, 2, 3, 0}}}), "at most 4 dims");
  expect_error("squeeze", {f32({})}, attrs_of({{"dims", Ints{1}}}), "expected dim 0 or -1 for rank 0, got 1");
}

TEST(ShapeRows, Unsqueeze) {
  EXPECT_EQ(shape_of("unsqueeze", {f32({3, 2})}, attrs_of({{"dims", Ints{0, 3}}})), "f32[1, 3, 2, 1]");
  EXPECT_EQ(shape_of("unsqueeze", {f32({3, 4})}, attrs_of({{"dims", Ints{-1}}})), "f32[3, 4, 1]");
  EXPECT_EQ(shape_of("unsqueeze", {f32({3, 4})}, attrs_of({{"dims", Ints{3, 0}}})), "f32[1, 3, 4, 1]");
  EXPECT_EQ(shape_of("unsqueeze", {f32({3, 4})}, attrs_of({{"dims", Ints{1, 2}}})), "f32[3, 1, 1, 4]");
  EXPECT_EQ(shape_of("unsqueeze", {i64({})}, attrs_of({{"dims", Ints{0}}})), "i64[1]");
  EXPECT_EQ(shape_of("unsqueeze", {dims({sym("b"), fx(4)})}, attrs_of({{"dims", Ints{1}}})), "f32[b, 1, 4]");
  expect_error("unsqueeze", {f32({3, 4})}, attrs_of({{"dims", Ints{3}}}), "for rank 3, got 3");
  expect_error("unsqueeze", {f32({3, 4})}, attrs_of({{"dims", Ints{0, 0}}}), "dim 0 twice");
  expect_error("unsqueeze", {f32(Ints(7, 1))}, attrs_of({{"dims", Ints{0, 1}}}), "rank at most 8, got rank 9");
  expect_error("unsqueeze", {f32({3})}, {}, "expected attribute 'dims'");
}

TEST(ShapeRows, Flatten) {
  const auto x = f32({2, 3, 4, 5});
  EXPECT_EQ(shape_of("flatten", {x}), "f32[120]");
  EXPECT_EQ(shape_of("flatten", {x}, attrs_of({{"start_dim", int64_t{1}}, {"end_dim", int64_t{2}}})), "f32[2, 12, 5]");
  EXPECT_EQ(shape_of("flatten", {x}, attrs_of({{"start_dim", int64_t{-3}}})), "f32[2, 60]");
  EXPECT_EQ(shape_of("flatten", {x}, attrs_of({{"start_dim", int64_t{2}}, {"end_dim", int64_t{2}}})), "f32[2, 3, 4, 5]");
  EXPECT_EQ(shape_of("flatten", {typed(DType::Float16, {})}), "f16[1]");
  EXPECT_EQ(shape_of("flatten", {f32({2, 0, 3})}, attrs_of({{"end_dim", int64_t{1}}})), "f32[0, 3]");
  // Symbols: one symbol times 1 stays, anything else derives.
  EXPECT_EQ(shape_of("flatten", {dims({sym("b"), fx(3), fx(4)})}, attrs_of({{"start_dim", int64_t{1}}})), "f32[b, 12]");
  EXPECT_EQ(shape_of("flatten", {dims({sym("b", 4), fx(3), fx(4)})}), "f32[b_mul12<=48]");
  EXPECT_EQ(shape_of("flatten", {dims({sym("b"), sym("s"), fx(1)})}), "f32[b_x_s]");
  EXPECT_EQ(shape_of("flatten", {dims({dyn(5), fx(2)})}), "f32[?<=10]");
  EXPECT_EQ(shape_of("flatten", {dims({sym("b"), fx(1)})}), "f32[b]");
  expect_error("flatten", {x}, attrs_of({{"start_dim", int64_t{2}}, {"end_dim", int64_t{1}}}), "start_dim 2 after end_dim 1");
  expect_error("flatten", {x}, attrs_of({{"start_dim", int64_t{4}}}), "for rank 4, got 4");
  expect_error("flatten", {x}, attrs_of({{"start_dim", 1.0}}), "'start_dim' of kind int, got float");
}

// ---- permute, expand -----------------------------------------------------------

TEST(ShapeRows, Permute) {
  const auto x = typed(DType::Bool, {2, 3, 4});
  EXPECT_EQ(shape_of("permute", {x}, attrs_of({{"dims", Ints{2, 0, 1}}})), "bool[4, 2, 3]");
  EXPECT_EQ(shape_of("permute", {x}, attrs_of({{"dims", Ints{-1, -3, -2}}})), "bool[4, 2, 3]");
  EXPECT_EQ(shape_of("permute", {f32({})}, attrs_of({{"dims", Ints{}}})), "f32[]");
  EXPECT_EQ(shape_of("permute", {dims({sym("b"), fx(3)})}, attrs_of({{"dims", Ints{1, 0}}})), "f32[3, b]");
  expect_error("permute", {x}, attrs_of({{"dims", Ints{1, 0}}}), "expected 3 dims for bool[2, 3, 4], got [1, 0]");
  expect_error("permute", {x}, attrs_of({{"dims", Ints{0, 0, 1}}}), "dim 0 twice");
  expect_error("permute", {x}, attrs_of({{"dims", Ints{0, 1, 3}}}), "for rank 3, got 3");
}

TEST(ShapeRows, Expand) {
  const auto x = f32({3, 1});
  EXPECT_EQ(shape_of("expand", {x}, attrs_of({{"shape", Ints{2, 3, 4}}})), "f32[2, 3, 4]");
  EXPECT_EQ(shape_of("expand", {x}, attrs_of({{"shape", Ints{2, -1, 5}}})), "f32[2, 3, 5]");
  EXPECT_EQ(shape_of("expand", {x}, attrs_of({{"shape", Ints{3, 1}}})), "f32[3, 1]");
  EXPECT_EQ(shape_of("expand", {f32({2, 3})}, attrs_of({{"shape", Ints{1, 3}}})), "f32[2, 3]");
  EXPECT_EQ(shape_of("expand", {f32({2, 1})}, attrs_of({{"shape", Ints{4}}})), "f32[2, 4]");
  EXPECT_EQ(shape_of("expand", {f32({})}, attrs_of({{"shape", Ints{2, 2}}})), "f32[2, 2]");
  EXPECT_EQ(shape_of("expand", {x}, attrs_of({{"shape", Ints{0, 3, 2}}})), "f32[0, 3, 2]");
  EXPECT_EQ(shape_of("expand", {x}, attrs_of({{"shape", Ints{3, 0}}})), "f32[3, 0]");
  // Symbols: -1 and 1 keep them, a size replaces them.
  const auto s = dims({sym("b"), fx(1)});
  EXPECT_EQ(shape_of("expand", {s}, attrs_of({{"shape", Ints{-1, 4}}})), "f32[b, 4]");
  EXPECT_EQ(shape_of("expand", {s}, attrs_of({{"shape", Ints{1, 4}}})), "f32[b, 4]");
  EXPECT_EQ(shape_of("expand", {s}, attrs_of({{"shape", Ints{5, 4}}})), "f32[5, 4]");
  expect_error("expand", {x}, attrs_of({{"shape", Ints{4, 2}}}), "dim 0 has size 3, target 4");
  expect_error("expand", {x}, attrs_of({{"shape", Ints{-1, 3, 1}}}), "new leading dim 0, got -1");
  expect_error("expand", {x}, attrs_of({{"shape", Ints{3, -2}}}), "got [3, -2]");
}

// ---- concat, split -------------------------------------------------------------

TEST(ShapeRows, Concat) {
  EXPECT_EQ(shape_of("concat", {f32({2, 3}), f32({2, 1}), f32({2, 4})}, attrs_of({{"dim", int64_t{-1}}})), "f32[2, 8]");
  EXPECT_EQ(shape_of("concat", {f32({2, 3}), f32({2, 3})}), "f32[4, 3]");
  EXPECT_EQ(shape_of("concat", {f32({2, 0, 4}), f32({2, 3, 4})}, attrs_of({{"dim", int64_t{1}}})), "f32[2, 3, 4]");
  EXPECT_EQ(shape_of("concat", {f32({2, 3, 4})}, attrs_of({{"dim", int64_t{2}}})), "f32[2, 3, 4]");
  // torch.cat's legacy rule: 1-D empty inputs are skipped.
  EXPECT_EQ(shape_of("concat", {f32({0}), f32({2, 3}), f32({0})}, attrs_of({{"dim", int64_t{1}}})), "f32[2, 3]");
  EXPECT_EQ(shape_of("concat", {f32({0}), f32({0})}), "f32[0]");
  // Symbols: the static total goes last, so the name starts with a symbol.
  EXPECT_EQ(shape_of("concat", {f32({2, 3}), dims({sym("b"), fx(3)})}), "f32[b_plus_2, 3]");
  EXPECT_EQ(shape_of("concat", {dims({sym("b"), fx(3)}), f32({0, 3})}), "f32[b, 3]");
  EXPECT_EQ(shape_of("concat", {dims({sym("b"), fx(3)}), dims({sym("c"), fx(3)}), f32({1, 3})}), "f32[b_plus_c_plus_1, 3]");
  EXPECT_EQ(shape_of("concat", {dims({sym("b", 4), fx(3)}), f32({2, 3})}), "f32[?<=6, 3]");
  EXPECT_EQ(shape_of("concat", {dims({fx(2), sym("t")}), f32({2, 5})}, attrs_of({{"dim", int64_t{0}}})), "f32[4, t]");
  expect_error("concat", {f32({}), f32({})}, {}, "rank >= 1");
  expect_error("concat", {f32({0}), f32({})}, {}, "rank >= 1");
  expect_error("concat", {f32({2, 3, 4}), i64({2, 3, 4})}, {}, "expected tensor 1 of dtype f32, got i64");
  expect_error("concat", {f32({0}), i64({2, 3})}, {}, "got f32");
  expect_error("concat", {f32({2, 3, 4}), f32({2, 4, 4})}, {}, "outside dim 0");
  expect_error("concat", {f32({2, 3, 4}), f32({2, 3})}, {}, "to match f32[2, 3, 4] outside dim 0, got f32[2, 3]");
  expect_error("concat", {f32({2, 3, 4})}, attrs_of({{"dim", int64_t{3}}}), "in [-3, 2] for rank 3, got 3");
  expect_error("concat", {}, {}, "got none");
}

TEST(ShapeRows, Split) {
  const auto parts = infer("split", {typed(DType::Int32, {2, 6, 3})}, attrs_of({{"dim", int64_t{1}}, {"sizes", Ints{1, 2, 3}}}));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].str(), "i32[2, 1, 3]");
  EXPECT_EQ(parts[1].str(), "i32[2, 2, 3]");
  EXPECT_EQ(parts[2].str(), "i32[2, 3, 3]");
  EXPECT_EQ(infer("split", {f32({4, 6})}, attrs_of({{"dim", int64_t{-1}}, {"sizes", Ints{3, 3}}}))[1].str(), "f32[4, 3]");
  const auto zero = infer("split", {f32({4, 6})}, attrs_of({{"sizes", Ints{0, 4, 0}}}));
  ASSERT_EQ(zero.size(), 3u);
  EXPECT_EQ(zero[0].str(), "f32[0, 6]");
  EXPECT_EQ(zero[1].str(), "f32[4, 6]");
  // A symbolic dim splits into static parts; its bound must hold them.
  const auto s = infer("split", {dims({fx(2), sym("t")})}, attrs_of({{"dim", int64_t{1}}, {"sizes", Ints{1, 4}}}));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].str(), "f32[2, 4]");
  expect_error("split", {dims({fx(2), sym("t", 3)})}, attrs_of({{"dim", int64_t{1}}, {"sizes", Ints{1, 4}}}), "(sum 5)");
  const auto x = f32({4, 6});
  expect_error("split", {x}, attrs_of({{"dim", int64_t{1}}, {"sizes", Ints{2, 2}}}), "got [2, 2] (sum 4)");
  expect_error("split", {x}, attrs_of({{"dim", int64_t{1}}, {"sizes", Ints{-1, 7}}}), "sizes >= 0");
  expect_error("split", {x}, attrs_of({{"dim", int64_t{1}}}), "expected attribute 'sizes'");
  expect_error("split", {x}, attrs_of({{"sizes", Ints{}}}), "at least one size");
  expect_error("split", {x}, attrs_of({{"dim", int64_t{2}}, {"sizes", Ints{6}}}), "for rank 2, got 2");
  expect_error("split", {f32({})}, attrs_of({{"sizes", Ints{1}}}), "rank >= 1");
}

// ---- slice, select -------------------------------------------------------------

TEST(ShapeRows, Slice) {
  const auto x = f32({4, 5, 6});
  auto sl = [&](Ints d, Ints s, Ints e, Ints st = {}) {
    Attrs a = attrs_of({{"dims", d}, {"starts", s}, {"ends", e}});
    if (!st.empty()) a.set("steps", st);
    return shape_of("slice", {x}, a);
  };
  EXPECT_EQ(sl({1, 2}, {1, 0}, {4, 6}, {1, 2}), "f32[4, 3, 3]");
  EXPECT_EQ(sl({0}, {-1}, {kMin}, {-1}), "f32[4, 5, 6]");
  EXPECT_EQ(sl({-1}, {-4}, {-1}), "f32[4, 5, 3]");
  EXPECT_EQ(sl({0, 2}, {-100, 2}, {100, kMax}), "f32[4, 5, 4]");
  EXPECT_EQ(sl({1}, {4}, {2}), "f32[4, 0, 6]");
  EXPECT_EQ(sl({2}, {kMax}, {kMin}, {-2}), "f32[4, 5, 3]");
  EXPECT_EQ(sl({2}, {4}, {1}, {-2}), "f32[4, 5, 2]");
  EXPECT_EQ(sl({1}, {3}, {-1}, {-1}), "f32[4, 0, 6]");
  EXPECT_EQ(sl({2}, {1}, {6}, {kMax}), "f32[4, 5, 1]");
  EXPECT_EQ(sl({2}, {5}, {kMin}, {kMin}), "f32[4, 5, 1]");
  EXPECT_EQ(sl({0, 1, 2}, {3, 4, 1}, {0, 0, 5}, {-1, -2, 3}), "f32[3, 2, 2]");
  EXPECT_EQ(shape_of("slice", {x}, attrs_of({{"starts", Ints{1, 1}}, {"ends", Ints{3, 4}}})), "f32[2, 3, 6]");
  EXPECT_EQ(shape_of("slice", {x}, attrs_of({{"starts", Ints{}}, {"ends", Ints{}}})), "f32[4, 5, 6]");
  EXPECT_EQ(shape_of("slice", {i64({3, 0, 2})}, attrs_of({{"dims", Ints{1}}, {"starts", Ints{-1}}, {"ends", Ints{kMin}}, {"steps", Ints{-1}}})),
            "i64[3, 0, 2]");
}

TEST(ShapeRows, SliceSymbolic) {
  const auto x = dims({sym("b"), sym("t", 10), dyn(7)});
  auto sl = [&](int64_t d, int64_t s, int64_t e, int64_t st) {
    return shape_of("slice", {x}, attrs_of({{"dims", Ints{d}}, {"starts", Ints{s}}, {"ends", Ints{e}}, {"steps", Ints{st}}}));
  };
  // Whole-dim slices, forward or reversed, keep the dim.
  EXPECT_EQ(sl(0, 0, kMax, 1), "f32[b, t<=10, ?<=7]");
  EXPECT_EQ(sl(0, -1, kMin, -1), "f32[b, t<=10, ?<=7]");
  EXPECT_EQ(sl(1, -10, 10, 1), "f32[b, t<=10, ?<=7]");
  // Others derive a dim, bounded by the input's bound and the range.
  EXPECT_EQ(sl(0, 1, kMax, 1), "f32[b_slice_1_9223372036854775807_1, t<=10, ?<=7]");
  EXPECT_EQ(sl(1, 0, 3, 1), "f32[b, t_slice_0_3_1<=3, ?<=7]");
  EXPECT_EQ(sl(1, -1, kMin, -2), "f32[b, t_slice_m1_m9223372036854775808_m2<=5, ?<=7]");
  EXPECT_EQ(sl(2, 1, kMax, 1), "f32[b, t<=10, ?<=7]");
  EXPECT_EQ(sl(2, 0, 2, 1), "f32[b, t<=10, ?<=2]");
}

TEST(ShapeRows, SliceErrors) {
  const auto x = f32({4, 5, 6});
  expect_error("slice", {x}, attrs_of({{"dims", Ints{1}}, {"starts", Ints{0}}, {"ends", Ints{2}}, {"steps", Ints{0}}}),
               "nonzero steps, got step 0 for dim 1");
  expect_error("slice", {x}, attrs_of({{"dims", Ints{1, 2}}, {"starts", Ints{0}}, {"ends", Ints{2, 3}}}),
               "of one length, got 1, 2, 2, absent");
  expect_error("slice", {x}, attrs_of({{"dims", Ints{3}}, {"starts", Ints{0}}, {"ends", Ints{2}}}), "for rank 3, got 3");
  expect_error("slice", {x}, attrs_of({{"dims", Ints{1, -2}}, {"starts", Ints{0, 0}}, {"ends", Ints{2, 2}}}), "dim -2 twice");
  expect_error("slice", {x}, attrs_of({{"starts", Ints{0, 0, 0, 0}}, {"ends", Ints{1, 1, 1, 1}}}), "at most 3 sliced dims");
  expect_error("slice", {x}, attrs_of({{"starts", Ints{0}}}), "expected attribute 'ends'");
}

TEST(ShapeRows, Select) {
  const auto x = f32({3, 4, 5});
  EXPECT_EQ(shape_of("select", {x}, attrs_of({{"dim", int64_t{1}}, {"index", int64_t{2}}})), "f32[3, 5]");
  EXPECT_EQ(shape_of("select", {x}, attrs_of({{"dim", int64_t{-1}}, {"index", int64_t{-1}}})), "f32[3, 4]");
  EXPECT_EQ(shape_of("select", {f32({5})}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{4}}})), "f32[]");
  EXPECT_EQ(shape_of("select", {f32({2, 0})}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{1}}})), "f32[0]");
  EXPECT_EQ(shape_of("select", {dims({sym("b"), fx(3)})}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{7}}})), "f32[3]");
  expect_error("select", {dims({sym("b", 4), fx(3)})}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{4}}}), "got 4");
  expect_error("select", {x}, attrs_of({{"dim", int64_t{1}}, {"index", int64_t{4}}}), "in [-4, 3] for dim 1 of f32[3, 4, 5], got 4");
  expect_error("select", {x}, attrs_of({{"dim", int64_t{1}}, {"index", int64_t{-5}}}), "got -5");
  expect_error("select", {f32({2, 0})}, attrs_of({{"dim", int64_t{1}}, {"index", int64_t{0}}}), "got 0");
  expect_error("select", {x}, attrs_of({{"dim", int64_t{1}}}), "expected attribute 'index'");
  expect_error("select", {f32({})}, attrs_of({{"dim", int64_t{0}}, {"index", int64_t{0}}}), "got rank 0");
}

// ---- pad, tile, triu, tril -----------------------------------------------------

TEST(ShapeRows, Pad) {
  const auto x = f32({2, 3, 4});
  EXPECT_EQ(shape_of("pad", {x}, attrs_of({{"pads", Ints{1, 0, 2, 0, 3, 1}}, {"value", 1.0}})), "f32[3, 6, 7]");
  EXPECT_EQ(shape_of("pad", {x}, attrs_of({{"pads", Ints{1, 2, 3, 1, 0, 2}}, {"mode", std::string("reflect")}})), "f32[4, 5, 9]");
  EXPECT_EQ(shape_of("pad", {x}, attrs_of({{"pads", Ints{0, 3, 1, 2, 1, 4}}, {"mode", std::string("edge")}})), "f32[4, 7, 9]");
  EXPECT_EQ(shape_of("pad", {f32({3, 4, 5})}, attrs_of({{"pads", Ints{-1, 2, -2, 0, -1, 1}}})), "f32[2, 5, 4]");
  EXPECT_EQ(shape_of("pad", {f32({3, 4, 5})}, attrs_of({{"pads", Ints{0, 0, -3, 0, 0, -2}}})), "f32[3, 4, 0]");
  EXPECT_EQ(shape_of("pad", {f32({})}, attrs_of({{"pads", Ints{}}, {"value", int64_t{1}}})), "f32[]");
  EXPECT_EQ(shape_of("pad", {f32({2, 0})}, attrs_of({{"pads", Ints{1, 0, 2, 1}}})), "f32[5, 1]");
  // Symbols: offset by the pads, bounded when the input is.
  EXPECT_EQ(shape_of("pad", {dims({sym("t", 8), fx(2)})}, attrs_of({{"pads", Ints{1, 0, 2, 0}}})), "f32[t_plus3<=11, 2]");
  EXPECT_EQ(shape_of("pad", {dims({sym("t"), fx(2)})}, attrs_of({{"pads", Ints{-1, 0, 0, 0}}})), "f32[t_minus1, 2]");
  EXPECT_EQ(shape_of("pad", {dims({sym("t"), fx(2)})}, attrs_of({{"pads", Ints{1, 0, -1, 0}}})), "f32[t, 2]");
  EXPECT_EQ(shape_of("pad", {dims({dyn(4)})}, attrs_of({{"pads", Ints{1, 1}}})), "f32[?<=6]");
  const auto y = f32({3, 4, 5});
  expect_error("pad", {y}, attrs_of({{"pads", Ints{3, 0, 0, 0, 0, 0}}, {"mode", std::string("reflect")}}),
               "larger than its reflect padding 3, got size 3");
  expect_error("pad", {dims({sym("t", 2)})}, attrs_of({{"pads", Ints{0, 2}}, {"mode", std::string("reflect")}}), "at most 2");
  expect_error("pad", {f32({2, 0})}, attrs_of({{"pads", Ints{0, 1, 0, 0}}, {"mode", std::string("edge")}}), "non-empty dim 1");
  expect_error("pad", {y}, attrs_of({{"pads", Ints{1, 1}}}), "expected 6 pads (begins, then ends) for f32[3, 4, 5], got [1, 1]");
  expect_error("pad", {y}, attrs_of({{"pads", Ints(6, 0)}, {"mode", std::string("wrap")}}), "got 'wrap'");
  expect_error("pad", {y}, attrs_of({{"pads", Ints{-2, 0, 0, -2, 0, 0}}}), "a size >= 0, got -2, -2");
  expect_error("pad", {y}, attrs_of({{"pads", Ints{kMax, 0, 0, 1, 0, 0}}}), "a size >= 0");
}

TEST(ShapeRows, Tile) {
  EXPECT_EQ(shape_of("tile", {f32({2, 3})}, attrs_of({{"repeats", Ints{2, 3}}})), "f32[4, 9]");
  EXPECT_EQ(shape_of("tile", {f32({2, 3, 4})}, attrs_of({{"repeats", Ints{2, 0, 1}}})), "f32[4, 0, 4]");
  EXPECT_EQ(shape_of("tile", {typed(DType::Int8, {})}, attrs_of({{"repeats", Ints{}}})), "i8[]");
  EXPECT_EQ(shape_of("tile", {dims({sym("b", 3), sym("s"), sym("u")})}, attrs_of({{"repeats", Ints{2, 1, 0}}})),
            "f32[b_mul2<=6, s, 0]");
  expect_error("tile", {f32({2, 3, 4})}, attrs_of({{"repeats", Ints{2, 2}}}), "expected 3 repeats for f32[2, 3, 4], got [2, 2]");
  expect_error("tile", {f32({2, 3, 4})}, attrs_of({{"repeats", Ints{1, -1, 1}}}), "repeats >= 0, got [1, -1, 1]");
  expect_error("tile", {f32({2})}, attrs_of({{"repeats", Ints{kMax}}}), "fits in int64");
}

TEST(ShapeRows, Triangles) {
  for (const char* op : {"triu", "tril"}) {
    EXPECT_EQ(shape_of(op, {f32({2, 4, 5})}, attrs_of({{"diagonal", int64_t{-3}}})), "f32[2, 4, 5]") << op;
    EXPECT_EQ(shape_of(op, {dims({sym("b"), fx(3), fx(3)}, DType::Bool)}), "bool[b, 3, 3]") << op;
    expect_error(op, {f32({4})}, {}, "rank >= 2, got f32[4]");
  }
}

// ---- topk ----------------------------------------------------------------------

TEST(ShapeRows, TopK) {
  auto out = infer("topk", {typed(DType::Int32, {3, 7})}, attrs_of({{"k", int64_t{3}}}));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].str(), "i32[3, 3]");
  EXPECT_EQ(out[1].str(), "i64[3, 3]");
  out = infer("topk", {f32({4, 5, 6})}, attrs_of({{"k", int64_t{2}}, {"dim", int64_t{0}}, {"largest", false}, {"sorted", int64_t{1}}}));
  EXPECT_EQ(out[0].str(), "f32[2, 5, 6]");
  EXPECT_EQ(infer("topk", {f32({4, 5, 6})}, attrs_of({{"k", int64_t{0}}, {"dim", int64_t{1}}}))[1].str(), "i64[4, 0, 6]");
  EXPECT_EQ(infer("topk", {f32({0, 5})}, attrs_of({{"k", int64_t{2}}}))[0].str(), "f32[0, 2]");
  out = infer("topk", {f32({})}, attrs_of({{"k", int64_t{1}}}));
  EXPECT_EQ(out[0].str(), "f32[]");
  EXPECT_EQ(out[1].str(), "i64[]");
  EXPECT_EQ(infer("topk", {dims({sym("b"), sym("n", 9)})}, attrs_of({{"k", int64_t{4}}}))[0].str(), "f32[b, 4]");
  expect_error("topk", {dims({sym("n", 3)})}, attrs_of({{"k", int64_t{4}}}), "k in [0, 3]");
  expect_error("topk", {f32({4, 5, 6})}, attrs_of({{"k", int64_t{7}}}), "k in [0, 6] for dim 2 of f32[4, 5, 6], got 7");
  expect_error("topk", {f32({4, 5, 6})}, attrs_of({{"k", int64_t{-1}}}), "got -1");
  expect_error("topk", {typed(DType::Bool, {3})}, attrs_of({{"k", int64_t{1}}}), "numeric input, got bool[3]");
  expect_error("topk", {f32({4, 5, 6})}, {}, "expected attribute 'k'");
  expect_error("topk", {f32({4, 5, 6})}, attrs_of({{"k", int64_t{1}}, {"dim", int64_t{3}}}), "got 3");
  expect_error("topk", {f32({4})}, attrs_of({{"k", int64_t{1}}, {"largest", std::string("yes")}}), "'largest' of kind bool");
}

// ---- take, gather --------------------------------------------------------------

TEST(IndexingRows, Take) {
  EXPECT_EQ(shape_of("take", {typed(DType::Float16, {5, 4}), i64({3})}), "f16[3, 4]");
  EXPECT_EQ(shape_of("take", {f32({5, 4}), i64({2, 3})}, attrs_of({{"dim", int64_t{-1}}})), "f32[5, 2, 3]");
  EXPECT_EQ(shape_of("take", {f32({4, 5, 6}), typed(DType::Int32, {2, 2})}, attrs_of({{"dim", int64_t{1}}})), "f32[4, 2, 2, 6]");
  EXPECT_EQ(shape_of("take", {f32({4, 5, 6}), i64({})}, attrs_of({{"dim", int64_t{1}}})), "f32[4, 6]");
  EXPECT_EQ(shape_of("take", {f32({4, 5, 6}), i64({0})}, attrs_of({{"dim", int64_t{1}}})), "f32[4, 0, 6]");
  EXPECT_EQ(shape_of("take", {f32({3, 0}), i64({2})}), "f32[2, 0]");
  EXPECT_EQ(shape_of("take", {dims({sym("v"), fx(64)}), dims({sym("b"), sym("s")}, DType::Int64)}), "f32[b, s, 64]");
  expect_error("take", {f32({0, 2}), i64({1})}, {}, "non-empty dim 0");
  expect_error("take", {f32({4, 5, 6}), f32({1})}, {}, "indices: expected dtype i64, i32, got f32");
  expect_error("take", {f32({4, 5, 6}), i64({1})}, attrs_of({{"dim", int64_t{3}}}), "got 3");
  expect_error("take", {f32({}), i64({1})}, {}, "rank >= 1");
  expect_error("take", {f32({2, 2}), i64(Ints(8, 1))}, {}, "rank at most 8, got rank 9");
  expect_error("take", {f32({2, 2})}, {}, "expected 2 tensor input(s), got 1");
}

TEST(IndexingRows, Gather) {
  EXPECT_EQ(shape_of("gather", {typed(DType::UInt8, {3, 4}), i64({3, 6})}, attrs_of({{"dim", int64_t{1}}})), "u8[3, 6]");
  EXPECT_EQ(shape_of("gather", {f32({4, 5, 6}), typed(DType::Int32, {2, 3, 4})}, attrs_of({{"dim", int64_t{1}}})), "f32[2, 3, 4]");
  EXPECT_EQ(shape_of("gather", {f32({4, 5, 6}), i64({4, 0, 6})}, attrs_of({{"dim", int64_t{1}}})), "f32[4, 0, 6]");
  EXPECT_EQ(shape_of("gather", {dims({sym("b"), fx(5)}), dims({sym("b"), fx(2)}, DType::Int64)}, attrs_of({{"dim", int64_t{1}}})),
            "f32[b, 2]");
  expect_error("gather", {f32({4, 5, 6}), i64({4, 5})}, {}, "rank 3 no larger than f32[4, 5, 6] outside dim 0, got i64[4, 5]");
  expect_error("gather", {f32({4, 5, 6}), i64({4, 6, 6})}, {}, "no larger than");
  expect_error("gather", {f32({4, 5, 6}), mask({4, 5, 6})}, {}, "index: expected dtype i64, i32, got bool");
  expect_error("gather", {f32({0, 5}), i64({1, 5})}, {}, "non-empty dim 0");
  expect_error("gather", {f32({}), i64({})}, {}, "rank >= 1");
}

// ---- scatter, scatter_nd ----------------------------------------------------------

TEST(IndexingRows, Scatter) {
  const Attrs dim1 = attrs_of({{"dim", int64_t{1}}});
  EXPECT_EQ(shape_of("scatter", {typed(DType::Bool, {3, 4}), i64({3, 6}), typed(DType::Bool, {3, 6})}, dim1),
            "bool[3, 4]");
  EXPECT_EQ(shape_of("scatter", {f32({4, 5, 6}), typed(DType::Int32, {2, 3, 4}), f32({2, 3, 4})},
                     attrs_of({{"dim", int64_t{-1}}, {"reduction", std::string("max")}})),
            "f32[4, 5, 6]");
  EXPECT_EQ(shape_of("scatter", {dims({sym("b"), fx(5)}), dims({sym("b"), fx(2)}, DType::Int64), dims({sym("b"), fx(2)})},
                     dim1),
            "f32[b, 5]");
  expect_error("scatter", {f32({4, 5, 6}), i64({4, 5}), f32({4, 5})}, {}, "rank 3 no larger than f32[4, 5, 6]");
  expect_error("scatter", {f32({4, 5, 6}), i64({4, 6, 6}), f32({4, 6, 6})}, {}, "no larger than");
  expect_error("scatter", {f32({4, 5, 6}), i64({4, 5, 6}), f32({4, 5, 5})}, {},
               "expected updates of the indices' shape i64[4, 5, 6], got f32[4, 5, 5]");
  expect_error("scatter", {f32({4, 5, 6}), i64({4, 5, 6}), typed(DType::Float16, {4, 5, 6})}, {},
               "expected updates of dtype f32 like the input");
  expect_error("scatter", {f32({4, 5, 6}), mask({4, 5, 6}), f32({4, 5, 6})}, {}, "indices: expected dtype i64, i32");
  expect_error("scatter", {f32({0, 5}), i64({1, 5}), f32({1, 5})}, {}, "non-empty dim 0");
  expect_error("scatter", {f32({}), i64({}), f32({})}, {}, "rank >= 1");
  expect_error("scatter", {f32({4, 5})}, {}, "expected 3 tensor input(s), got 1");
}

TEST(IndexingRows, ScatterNd) {
  EXPECT_EQ(shape_of("scatter_nd", {f32({8}), i64({4, 1}), f32({4})}), "f32[8]");
  EXPECT_EQ(shape_of("scatter_nd", {typed(DType::Int8, {4, 4, 4}), i64({2, 1}), typed(DType::Int8, {2, 4, 4})},
                     attrs_of({{"reduction", std::string("mul")}})),
            "i8[4, 4, 4]");
  EXPECT_EQ(shape_of("scatter_nd", {f32({4, 5, 6}), typed(DType::Int32, {3, 2, 3}), f32({3, 2})}), "f32[4, 5, 6]");
  EXPECT_EQ(shape_of("scatter_nd", {dims({sym("b"), fx(6)}), dims({sym("n"), fx(1)}, DType::Int64), dims({sym("n"), fx(6)})}),
            "f32[b, 6]");
  expect_error("scatter_nd", {f32({4, 5}), i64({2, 3}), f32({2})}, {}, "last dim is 1 to 2 for f32[4, 5], got i64[2, 3]");
  expect_error("scatter_nd", {f32({4, 5}), i64({}), f32({5})}, {}, "indices of rank >= 1");
  expect_error("scatter_nd", {f32({4, 5}), dims({sym("k")}, DType::Int64), f32({5})}, {}, "last dim is 1 to 2");
  expect_error("scatter_nd", {f32({4, 5}), i64({2, 1}), f32({2, 4})}, {},
               "expected updates of shape f32[2, 5] (indices.shape[:-1] + input.shape[1:]), got f32[2, 4]");
  expect_error("scatter_nd", {f32({4, 5}), i64({2, 1}), typed(DType::Int64, {2, 5})}, {}, "like the input");
}

// ---- index, nonzero ------------------------------------------------------------

TEST(IndexingRows, IndexIntegers) {
  EXPECT_EQ(shape_of("index", {f32({4, 5, 3}), i64({2, 3})}), "f32[2, 3, 5, 3]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), i64({3, 1}), typed(DType::Int32, {1, 2})}), "f32[3, 2, 6]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), i64({2}), i64({2}), i64({2})}), "f32[2]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), i64({}), i64({})}), "f32[6]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), i64({0, 2})}), "f32[0, 2, 5, 6]");
  EXPECT_EQ(shape_of("index", {dims({fx(4), sym("t")}), dims({sym("n")}, DType::Int64)}), "f32[n, t]");
  expect_error("index", {f32({4, 5, 6}), i64({2}), i64({3})}, {}, "cannot be broadcast");
  expect_error("index", {f32({4, 5, 6}), i64({1}), i64({1}), i64({1}), i64({1})}, {},
               "at most 3 indices for f32[4, 5, 6], got 4");
  expect_error("index", {f32({4, 5, 6}), f32({1})}, {}, "index 0: expected dtype i64, i32, got f32");
  expect_error("index", {f32({4, 5, 6})}, {}, "an input and at least 1 index, got 1");
  expect_error("index", {f32({4, 0}), i64({1}), i64({1})}, {}, "non-empty dim 1");
  expect_error("index", {f32({2, 2}), i64(Ints(8, 1))}, {}, "rank at most 8, got rank 9");
}

TEST(IndexingRows, IndexMask) {
  EXPECT_EQ(shape_of("index", {f32({4, 5, 3}), mask({4, 5})}), "f32[?<=20, 3]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), mask({4})}), "f32[?<=4, 5, 6]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), mask({4, 5, 6})}), "f32[?<=120]");
  EXPECT_EQ(shape_of("index", {f32({4, 5, 6}), mask({})}), "f32[?<=1, 4, 5, 6]");
  EXPECT_EQ(shape_of("index", {typed(DType::Int32, {0, 3}), mask({0})}), "i32[?<=0, 3]");
  // Symbolic masks: bounded by either side's bounds, else a derived symbol.
  EXPECT_EQ(shape_of("index", {dims({sym("b", 8), fx(3)}), dims({sym("b", 8)}, DType::Bool)}), "f32[?<=8, 3]");
  EXPECT_EQ(shape_of("index", {dims({sym("b", 8), fx(3)}), dims({sym("b")}, DType::Bool)}), "f32[?<=8, 3]");
  EXPECT_EQ(shape_of("index", {dims({sym("b"), fx(3)}), dims({sym("b")}, DType::Bool)}), "f32[b_nonzero, 3]");
  expect_error("index", {f32({4, 5, 6}), mask({4}), i64({0})}, {}, "not supported");
  expect_error("index", {f32({4, 5, 6}), mask({4, 6})}, {}, "matching the leading dims of f32[4, 5, 6], got bool[4, 6]");
  expect_error("index", {f32({4}), mask({4, 1})}, {}, "matching the leading dims");
  expect_error("index", {f32(Ints(8, 1)), mask({})}, {}, "rank at most 8, got rank 9");
}

TEST(IndexingRows, Nonzero) {
  EXPECT_EQ(shape_of("nonzero", {f32({3, 4, 5})}), "i64[?<=60, 3]");
  EXPECT_EQ(shape_of("nonzero", {mask({200, 300})}), "i64[?<=60000, 2]");
  EXPECT_EQ(shape_of("nonzero", {i64({})}), "i64[?<=1, 0]");
  EXPECT_EQ(shape_of("nonzero", {f32({0, 4})}), "i64[?<=0, 2]");
  EXPECT_EQ(shape_of("nonzero", {dims({sym("b", 4), fx(3)})}), "i64[?<=12, 2]");
  EXPECT_EQ(shape_of("nonzero", {dims({dyn(6)})}), "i64[?<=6, 1]");
  EXPECT_EQ(shape_of("nonzero", {dims({sym("b"), sym("s")})}), "i64[b_x_s_nonzero, 2]");
  expect_error("nonzero", {}, {}, "expected 1 tensor input(s), got 0");
}

// Where the candidates differ, a dim is data-dependent, bounded by the largest.
TEST(IndexingRows, Pick) {
  EXPECT_EQ(shape_of("pick", {i64({}), f32({2, 3, 4}), f32({1, 3, 4}), f32({3, 3, 4})}), "f32[?<=3, 3, 4]");
  EXPECT_EQ(shape_of("pick", {typed(DType::Int32, {}), f32({2, 5}), f32({4, 1})}), "f32[?<=4, ?<=5]");
  EXPECT_EQ(shape_of("pick", {i64({}), f32({2, 2}), f32({2, 2})}), "f32[2, 2]");
  EXPECT_EQ(shape_of("pick", {i64({}), dims({sym("b"), fx(3)})}), "f32[b, 3]");
  EXPECT_EQ(shape_of("pick", {i64({}), dims({sym("b", 8), fx(3)}), f32({2, 3})}), "f32[?<=8, 3]");
  EXPECT_EQ(shape_of("pick", {i64({}), dims({dyn(6)}), f32({7})}), "f32[?<=7]");
  EXPECT_EQ(shape_of("pick", {i64({}), f32({})}), "f32[]");
  expect_error("pick", {i64({})}, {}, "an index and at least 1 tensor, got 1");
  expect_error("pick", {i64({1}), f32({2})}, {}, "expected a scalar index, got i64[1]");
  expect_error("pick", {f32({}), f32({2})}, {}, "index: expected dtype i64, i32, got f32");
  expect_error("pick", {i64({}), f32({2}), f32({2, 1})}, {}, "one dtype and rank, got f32[2] and f32[2, 1]");
  expect_error("pick", {i64({}), f32({2}), i64({2})}, {}, "one dtype and rank, got f32[2] and i64[2]");
  expect_error("pick", {i64({}), dims({sym("b")}), f32({2})}, {}, "bounded dims where the tensors differ");
}

// ---- arange, full --------------------------------------------------------------

Attrs arange(std::initializer_list<std::pair<std::string, AttrValue>> items, DType d = DType::Float32) {
  Attrs a = attrs_of(items);
  a.set("dtype", d);
  return a;
}

TEST(CreationRows, Arange) {
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{0}}, {"end", int64_t{10}}, {"step", int64_t{1}}})), "f32[10]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{2}}, {"end", int64_t{30}}, {"step", int64_t{3}}}, DType::Int8)),
            "i8[10]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"end", int64_t{7}}}, DType::UInt8)), "u8[7]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{5}}, {"end", int64_t{-6}}, {"step", int64_t{-2}}}, DType::Int64)),
            "i64[6]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", 0.0}, {"end", 1.0}, {"step", 0.1}})), "f32[10]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{-1}}, {"end", 2.5}, {"step", 0.5}})), "f32[7]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", 1.0}, {"end", -1.0}, {"step", -0.3}})), "f32[7]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", 0.0}, {"end", 2.0}, {"step", 0.25}}, DType::Float16)), "f16[8]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", kMax - 9}, {"end", kMax}, {"step", int64_t{4}}}, DType::Int64)),
            "i64[3]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{5}}, {"end", int64_t{5}}})), "f32[0]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", int64_t{5}}, {"end", int64_t{10}}, {"step", int64_t{-1}}}, DType::Int32)),
            "i32[0]");
  EXPECT_EQ(shape_of("arange", {}, arange({{"start", kMin}, {"end", kMax}, {"step", kMax}}, DType::Int64)), "i64[3]");
  expect_error("arange", {}, arange({{"start", int64_t{0}}, {"end", int64_t{5}}, {"step", int64_t{0}}}), "nonzero step");
  expect_error("arange", {}, arange({{"end", 5.0}, {"step", 0.0}}), "nonzero step");
  expect_error("arange", {}, arange({{"end", int64_t{2}}}, DType::Bool), "numeric dtype, got bool");
  expect_error("arange", {}, arange({{"start", int64_t{1}}}), "expected attribute 'end'");
  expect_error("arange", {}, arange({{"end", std::numeric_limits<double>::infinity()}}), "finite start, end and step");
  expect_error("arange", {}, arange({{"end", 1e300}, {"step", 1e-300}}), "fits in int64");
  expect_error("arange", {}, attrs_of({{"end", int64_t{3}}}), "expected attribute 'dtype' (dtype), got none");
  expect_error("arange", {}, arange({{"end", std::string("3")}}), "'end' of kind float, got str");
  expect_error("arange", {f32({1})}, arange({{"end", int64_t{3}}}), "expected 0 tensor input(s), got 1");
}

TEST(CreationRows, Full) {
  const DType all[] = {DType::Float32, DType::Float16, DType::Int64, DType::Int32, DType::Int8, DType::UInt8, DType::Bool};
  for (DType d : all)
    EXPECT_EQ(infer1("full", {}, arange({{"shape", Ints{2, 3}}, {"value", 1.0}}, d)), typed(d, {2, 3}));
  EXPECT_EQ(shape_of("full", {}, arange({{"shape", Ints{}}, {"value", 4.0}})), "f32[]");
  EXPECT_EQ(shape_of("full", {}, arange({{"shape", Ints{3}}})), "f32[3]");
  EXPECT_EQ(shape_of("full", {}, arange({{"shape", Ints{2, 0, 3}}, {"value", true}}, DType::Int32)), "i32[2, 0, 3]");
  EXPECT_EQ(shape_of("full", {}, arange({{"shape", std::vector<double>{}}, {"value", int64_t{1}}}, DType::Int64)), "i64[]");
  expect_error("full", {}, arange({{"shape", Ints{2, -1}}, {"value", 1.0}}), "sizes >= 0, got [2, -1]");
  expect_error("full", {}, arange({{"value", 1.0}}), "expected attribute 'shape'");
  expect_error("full", {}, arange({{"shape", Ints(9, 1)}}), "rank at most 8, got rank 9");
  expect_error("full", {}, attrs_of({{"shape", Ints{2}}}), "expected attribute 'dtype'");
  expect_error("full", {}, arange({{"shape", std::vector<double>{1.0}}}), "'shape' of kind int[], got float[]");
}

}  // namespace
}  // namespace edgec
