// Shapes of non_max_suppression, roi_align and grid_sample (src/ops/nn_ops.cpp)
// and unique (src/ops/indexing_ops.cpp): the data-dependent bounds the
// memory plan sizes them by, the shapes the kernels give for static inputs,
// and each error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ops/op_rows.h"
#include "support/op_rows.h"

namespace edgec {
namespace {

const OpInfo& row(const std::string& name) {
  static const std::vector<OpInfo> rows = [] {
    std::vector<OpInfo> r = ops::nn_rows();
    for (const OpInfo& i : ops::indexing_rows()) r.push_back(i);
    return r;
  }();
  for (const OpInfo& r : rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

std::vector<TensorType> infer(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  return row_shapes(row(op), inputs, std::vector<OperandGroup>(inputs.size()), a);
}

void expect_error(const std::string& op, std::vector<TensorType> inputs, const Attrs& a, const std::string& part) {
  if (const auto error = infer_error([&] { infer(op, std::move(inputs), a); }, op, part)) {
    EXPECT_NE(error->find("[" + op + "]"), std::string::npos) << *error;
  }
}

TEST(DetectionRows, NonMaxSuppressionBoundsItsRows) {
  const auto t = infer("non_max_suppression", {f32({2, 50, 4}), f32({2, 3, 50}), i64({1}), f32({1})});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], dims({dyn(2 * 3 * 50), fx(3)}, DType::Int64));  // every box of every class
  EXPECT_EQ(t[1], i64({50}));                                      // the workspace
  // A max_output_boxes_per_class known when compiling bounds them tighter.
  EXPECT_EQ(infer("non_max_suppression", {f32({2, 50, 4}), f32({2, 3, 50})}, attrs_of({{"max_boxes_bound", int64_t{5}}}))[0],
            dims({dyn(2 * 3 * 5), fx(3)}, DType::Int64));
  // A symbolic box count with a bound gives a bound; without, a symbol.
  EXPECT_EQ(infer("non_max_suppression", {dims({fx(1), sym("n", 100), fx(4)}), dims({fx(1), fx(2), sym("n", 100)})})[0],
            dims({dyn(200), fx(3)}, DType::Int64));
  EXPECT_EQ(infer("non_max_suppression", {dims({fx(1), sym("n"), fx(4)}), dims({fx(1), fx(2), sym("n")})})[0].dims[0].kind,
            Dim::Kind::Symbolic);
}

TEST(DetectionRows, NonMaxSuppressionErrors) {
  expect_error("non_max_suppression", {f32({1, 6, 3}), f32({1, 1, 6})}, {}, "expected boxes [batch, boxes, 4]");
  expect_error("non_max_suppression", {f32({1, 6, 4}), f32({1, 1, 5})}, {}, "expected scores [batch, classes, boxes]");
  expect_error("non_max_suppression", {f32({1, 6, 4}), f32({1, 1, 6}), f32({1})}, {},
               "max_output_boxes_per_class");
  expect_error("non_max_suppression", {f32({1, 6, 4}), f32({1, 1, 6}), i64({1}), f32({2})}, {},
               "expected iou_threshold of one element");
  expect_error("non_max_suppression", {f16({1, 6, 4}), f16({1, 1, 6})}, {}, "boxes");
}

TEST(DetectionRows, RoiAlign) {
  EXPECT_EQ(infer("roi_align", {f32({2, 8, 10, 12}), f32({5, 4}), i64({5})},
                  attrs_of({{"output_height", int64_t{3}}, {"output_width", int64_t{4}}}))[0],
            f32({5, 8, 3, 4}));
  EXPECT_EQ(infer("roi_align", {f32({2, 8, 10, 12}), dims({sym("r"), fx(4)}), dims({sym("r")}, DType::Int64)})[0],
            dims({sym("r"), fx(8), fx(1), fx(1)}));
  expect_error("roi_align", {f32({2, 8, 10}), f32({5, 4}), i64({5})}, {}, "expected an input [N, C, H, W]");
  expect_error("roi_align", {f32({2, 8, 10, 12}), f32({5, 5}), i64({5})}, {}, "expected rois [num_rois, 4]");
  expect_error("roi_align", {f32({2, 8, 10, 12}), f32({5, 4}), i64({4})}, {}, "expected batch_indices [5]");
  expect_error("roi_align", {f32({2, 8, 10, 12}), f16({5, 4}), i64({5})}, {}, "rois");
}

TEST(DetectionRows, GridSample) {
  EXPECT_EQ(infer("grid_sample", {f32({2, 3, 10, 12}), f32({2, 5, 7, 2})})[0], f32({2, 3, 5, 7}));
  EXPECT_EQ(infer("grid_sample", {f32({1, 3, 4, 10, 12}), f32({1, 2, 5, 7, 3})})[0], f32({1, 3, 2, 5, 7}));
  expect_error("grid_sample", {f32({2, 3, 10, 12}), f32({2, 5, 7, 3})}, {}, "expected a grid [2, ..., 2] of rank 4");
  expect_error("grid_sample", {f32({1, 3, 4, 10, 12}), f32({1, 2, 5, 7, 3})}, attrs_of({{"mode", std::string("cubic")}}),
               "cubic mode (2-D only)");
  expect_error("grid_sample", {f32({2, 3, 10}), f32({2, 5, 2})}, {}, "expected an input [N, C, H, W] or");
}

TEST(DetectionRows, Unique) {
  const auto flat = infer("unique", {f32({3, 4})});
  ASSERT_EQ(flat.size(), 5u);
  EXPECT_EQ(flat[0], dims({dyn(12)}));
  EXPECT_EQ(flat[1], dims({dyn(12)}, DType::Int64));
  EXPECT_EQ(flat[2], i64({12}));
  EXPECT_EQ(flat[3], dims({dyn(12)}, DType::Int64));
  EXPECT_EQ(flat[4], i64({36}));
  const auto along = infer("unique", {f32({3, 4, 2})}, attrs_of({{"dim", Ints{-2}}}));
  EXPECT_EQ(along[0], dims({fx(3), dyn(4), fx(2)}));
  EXPECT_EQ(along[2], i64({4}));
  EXPECT_EQ(along[4], i64({12}));
  expect_error("unique", {f32({3, 4})}, attrs_of({{"dim", Ints{2}}}), "expected a dim in [-2, 1]");
  expect_error("unique", {f32({3, 4})}, attrs_of({{"dim", Ints{0, 1}}}), "to hold one dim");
}

}  // namespace
}  // namespace edgec
