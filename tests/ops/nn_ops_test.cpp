// Rows of the nn family (src/ops/nn_ops.cpp): schemas, shapes on typical
// inputs (matching the kernels), symbolic dims and each error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "ops/op_rows.h"
#include "support/op_rows.h"

namespace edgec {
namespace {

const OpInfo& row(const std::string& name) {
  static const std::vector<OpInfo> rows = ops::nn_rows();
  for (const OpInfo& r : rows)
    if (r.name == name) return r;
  throw std::runtime_error("no nn row " + name);
}

std::vector<TensorType> infer(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  return row_shapes(row(op), inputs, std::vector<OperandGroup>(inputs.size()), a);
}

TensorType infer1(const std::string& op, std::vector<TensorType> inputs, const Attrs& a = {}) {
  return only_type(infer(op, std::move(inputs), a));
}

/// Expects a CompileError whose message starts with "[op]" and contains `part`.
void expect_error(const std::string& op, std::vector<TensorType> inputs, const Attrs& a, const std::string& part) {
  if (const auto error = infer_error([&] { infer(op, std::move(inputs), a); }, op, part)) {
    EXPECT_NE(error->find("[" + op + "]"), std::string::npos) << *error;
  }
}

// ---- schemas -----------------------------------------------------------------

TEST(NnRows, Schemas) {
  const char* names[] = {"conv",       "conv_transpose", "max_pool",   "max_pool_with_indices", "avg_pool",
                         "adaptive_avg_pool",
                         "upsample_nearest", "upsample_bilinear", "softmax", "log_softmax", "batch_norm",
                         "layer_norm", "group_norm",     "instance_norm", "resize",      "lrn",  "lstm",
                         "gru",        "rnn",  "non_max_suppression", "roi_align", "grid_sample"};
  for (const char* n : names) {
    const OpInfo& r = row(n);
    expect_core_row(r, n);
    bool optional_seen = false;
    for (const auto& o : r.operands) {
      if (o.kind == OperandKind::Optional) optional_seen = true;
      else EXPECT_FALSE(optional_seen) << n << ": optional operands must be trailing";
    }
  }
  EXPECT_EQ(ops::nn_rows().size(), std::size(names));
  EXPECT_EQ(row("conv").operands.size(), 3u);
  EXPECT_EQ(row("conv").operands[2].kind, OperandKind::Optional);
  EXPECT_EQ(row("conv").attr("groups")->kind, AttrKind::Int);
  EXPECT_EQ(row("conv").attr("padding")->kind, AttrKind::Ints);
  EXPECT_FALSE(row("conv").attr("stride")->required);
  EXPECT_EQ(row("conv_transpose").attr("output_padding")->kind, AttrKind::Ints);
  EXPECT_TRUE(row("max_pool").attr("kernel_size")->required);
  EXPECT_EQ(row("max_pool").attr("ceil_mode")->kind, AttrKind::Bool);
  EXPECT_EQ(row("avg_pool").attr("count_include_pad")->kind, AttrKind::Bool);
  EXPECT_EQ(row("max_pool").attr("count_include_pad"), nullptr);
  EXPECT_TRUE(row("adaptive_avg_pool").attr("output_size")->required);
  EXPECT_TRUE(row("upsample_nearest").attr("output_size")->required);
  EXPECT_EQ(row("upsample_bilinear").attr("align_corners")->kind, AttrKind::Bool);
  EXPECT_TRUE(row("softmax").attr("dim")->required);
  EXPECT_TRUE(row("log_softmax").attr("dim")->required);
  EXPECT_EQ(row("batch_norm").operands.size(), 5u);
  EXPECT_EQ(row("batch_norm").attr("eps")->kind, AttrKind::Float);
  EXPECT_EQ(row("layer_norm").attr("axis")->kind, AttrKind::Int);
  EXPECT_FALSE(row("layer_norm").attr("axis")->required);
  EXPECT_EQ(row("layer_norm").operands[1].kind, OperandKind::Optional);
  EXPECT_TRUE(row("group_norm").attr("num_groups")->required);
  EXPECT_EQ(row("instance_norm").attr("eps")->kind, AttrKind::Float);
  EXPECT_TRUE(row("lrn").attr("size")->required);
  EXPECT_EQ(row("lrn").attr("beta")->kind, AttrKind::Float);
  EXPECT_EQ(row("upsample_nearest").flags, uint32_t{kOpShapeOnly});
  EXPECT_EQ(row("conv").flags, 0u);
}

// ---- conv ------------------------------------------------------------------------

TEST(NnRows, ConvShapes) {
  // ResNet stem: 7x7 stride 2 pad 3.
  EXPECT_EQ(infer1("conv", {f32({2, 3, 224, 224}), f32({64, 3, 7, 7})},
                   attrs_of({{"stride", Ints{2, 2}}, {"padding", Ints{3, 3}}})),
            f32({2, 64, 112, 112}));
  // 3x3 same conv with bias, attributes absent = 1s / 0s.
  EXPECT_EQ(infer1("conv", {f32({1, 8, 10, 12}), f32({16, 8, 3, 3}), f32({16})}, attrs_of({{"padding", Ints{1, 1}}})),
            f32({1, 16, 10, 12}));
  EXPECT_EQ(infer1("conv", {f32({1, 8, 10, 12}), f32({16, 8, 3, 3})}), f32({1, 16, 8, 10}));
  // Empty attribute lists mean the defaults.
  EXPECT_EQ(infer1("conv", {f32({1, 8, 10, 12}), f32({16, 8, 3, 3})},
                   attrs_of({{"stride", Ints{}}, {"padding", Ints{}}, {"dilation", Ints{}}})),
            f32({1, 16, 8, 10}));
  // 1-D kernel 5 (Diffusion Policy U-Net), f16.
  EXPECT_EQ(infer1("conv", {f16({4, 32, 16}), f16({64, 32, 5}), f16({64})}, attrs_of({{"padding", Ints{2}}})),
            f16({4, 64, 16}));
  // Asymmetric ONNX padding [h_begin, w_begin, h_end, w_end], stride, dilation.
  // H: (9 + 1 + 0 - 2*2 - 1) / 2 + 1 = 3; W: (7 + 0 + 2 - 2*1 - 1) / 1 + 1 = 7.
  EXPECT_EQ(infer1("conv", {f32({1, 2, 9, 7}), f32({3, 2, 3, 2})},
                   attrs_of({{"padding", Ints{1, 0, 0, 2}}, {"stride", Ints{2, 1}}, {"dilation", Ints{2, 2}}})),
            f32({1, 3, 3, 7}));
  // Groups and depthwise.
  EXPECT_EQ(infer1("conv", {f32({1, 6, 5, 5}), f32({9, 2, 3, 3})}, attrs_of({{"groups", int64_t{3}}})),
            f32({1, 9, 3, 3}));
  EXPECT_EQ(infer1("conv", {f32({1, 6, 5, 5}), f32({6, 1, 3, 3})},
                   attrs_of({{"groups", int64_t{6}}, {"padding", Ints{1, 1}}})),
            f32({1, 6, 5, 5}));
  // Empty batch; input smaller than the kernel but padded enough.
  EXPECT_EQ(infer1("conv", {f32({0, 2, 4, 4}), f32({3, 2, 3, 3})}), f32({0, 3, 2, 2}));
  EXPECT_EQ(infer1("conv", {f32({1, 2, 1}), f32({3, 2, 3})}, attrs_of({{"padding", Ints{1}}})), f32({1, 3, 1}));
  // Floor division of the last window.
  EXPECT_EQ(infer1("conv", {f32({1, 1, 8}), f32({1, 1, 3})}, attrs_of({{"stride", Ints{3}}})), f32({1, 1, 2}));
  // 3-d: D (5 + 1 + 0 - 3) / 1 + 1 = 4, H (6 + 2 - 3) / 2 + 1 = 3, W (7 + 2 - 2 * 2 - 1) / 1 + 1 = 5.
  EXPECT_EQ(infer1("conv", {f32({1, 3, 5, 6, 7}), f32({4, 3, 3, 3, 3})},
                   attrs_of({{"padding", Ints{1, 1, 1, 0, 1, 1}}, {"stride", Ints{1, 2, 1}}, {"dilation", Ints{1, 1, 2}}})),
            f32({1, 4, 4, 3, 5}));
}

TEST(NnRows, ConvSymbolic) {
  // Batch passes through; a 'same' stride-1 conv keeps the spatial symbol.
  EXPECT_EQ(infer1("conv", {dims({sym("N"), fx(32), sym("T")}), f32({64, 32, 5})}, attrs_of({{"padding", Ints{2}}})),
            dims({sym("N"), fx(64), sym("T")}));
  // Stride 1 without padding: T - 4.
  EXPECT_EQ(infer1("conv", {dims({fx(1), fx(32), sym("T")}), f32({64, 32, 5})}),
            dims({fx(1), fx(64), sym("T_minus_4")}));
  EXPECT_EQ(infer1("conv", {dims({fx(1), fx(32), sym("T", 100)}), f32({64, 32, 5})}),
            dims({fx(1), fx(64), sym("T_minus_4", 96)}));
  // Padding beyond 'same' grows the dim.
  EXPECT_EQ(infer1("conv", {dims({fx(1), fx(1), sym("T")}), f32({1, 1, 1})}, attrs_of({{"padding", Ints{1}}})),
            dims({fx(1), fx(1), sym("T_plus_2")}));
  // Strided: a derived symbol named after the window, bounded when the input is.
  const TensorType s2 = infer1("conv", {dims({fx(1), fx(3), sym("H", 224), sym("W")}), f32({8, 3, 3, 3})},
                               attrs_of({{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}));
  EXPECT_EQ(s2, dims({fx(1), fx(8), sym("H_win_k3_s2_d1_p1_1", 112), sym("W_win_k3_s2_d1_p1_1")}));
  // Deterministic: the same call gives the same dims.
  EXPECT_EQ(s2, infer1("conv", {dims({fx(1), fx(3), sym("H", 224), sym("W")}), f32({8, 3, 3, 3})},
                       attrs_of({{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}})));
  // A data-dependent input gives a data-dependent output with the bound.
  EXPECT_EQ(infer1("conv", {dims({fx(1), fx(1), Dim::dynamic(10)}), f32({1, 1, 3})}, attrs_of({{"stride", Ints{2}}})),
            dims({fx(1), fx(1), Dim::dynamic(4)}));
  // Symbolic channels: checks that need the size are skipped.
  EXPECT_EQ(infer1("conv", {dims({fx(1), sym("C"), fx(5)}), f32({4, 2, 3})}, attrs_of({{"groups", int64_t{2}}})),
            dims({fx(1), fx(4), fx(3)}));
  // A non-static kernel size still gives a (named, bounded) dim.
  const TensorType k = infer1("conv", {dims({fx(1), fx(2), sym("T", 10)}), dims({fx(4), fx(2), sym("K")})});
  EXPECT_EQ(k.dims[2].kind, Dim::Kind::Symbolic);
  EXPECT_EQ(k.dims[2].value, 10);
  // The bound itself too small for the kernel: every size is.
  expect_error("conv", {dims({fx(1), fx(1), sym("T", 2)}), f32({1, 1, 3})}, {}, "spatial size 2");
}

TEST(NnRows, ConvErrors) {
  const TensorType x = f32({1, 4, 8, 8});
  expect_error("conv", {x}, {}, "expected 2 to 3 tensor inputs, got 1");
  expect_error("conv", {typed(DType::Int32, {1, 4, 8, 8}), typed(DType::Int32, {4, 4, 3, 3})}, {}, "i32");
  expect_error("conv", {x, f16({4, 4, 3, 3})}, {}, "weight: expected dtype f32");
  expect_error("conv", {x, f32({4, 4, 3, 3}), f16({4})}, {}, "bias: expected dtype f32");
  expect_error("conv", {f32({4, 8}), f32({4, 4})}, {}, "rank-3 (N, C, L), rank-4 (N, C, H, W) or rank-5");
  expect_error("conv", {f32({1, 1, 4, 8, 8, 8}), f32({4, 1, 4, 3, 3, 3})}, {}, "got f32[1, 1, 4, 8, 8, 8]");
  expect_error("conv", {x, f32({4, 4, 3})}, {}, "weight of the input's rank 4");
  expect_error("conv", {x, f32({4, 4, 0, 3})}, {}, "non-empty kernel");
  // Channel mismatch: weight wants 3 * 1 = 3 channels, input has 4.
  expect_error("conv", {x, f32({6, 3, 3, 3})}, {}, "expected an input with 3 channels");
  // Groups not dividing the input or output channels.
  expect_error("conv", {x, f32({6, 2, 3, 3})}, attrs_of({{"groups", int64_t{3}}}), "groups 3 to divide");
  expect_error("conv", {x, f32({5, 2, 3, 3})}, attrs_of({{"groups", int64_t{2}}}), "output channels 5");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"groups", int64_t{0}}}), "groups >= 1, got 0");
  // Kernel larger than the padded input.
  expect_error("conv", {f32({1, 4, 2, 8}), f32({4, 4, 3, 3})}, {}, "spatial size 2");
  expect_error("conv", {f32({1, 4, 8, 8}), f32({4, 4, 3, 3})}, attrs_of({{"dilation", Ints{4, 1}}}),
               "dilation [4, 1]");
  expect_error("conv", {x, f32({4, 4, 3, 3}), f32({5})}, {}, "bias of shape [4]");
  expect_error("conv", {x, f32({4, 4, 3, 3}), f32({1, 4})}, {}, "got f32[1, 4]");
  // Attribute lists.
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"stride", Ints{1}}}), "expected 2 entries in 'stride'");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"stride", Ints{0, 1}}}), "'stride' entries in [1, ");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"dilation", Ints{1, 0}}}), "'dilation' entries");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"padding", Ints{1, 1, 1}}}),
               "expected 2 or 4 entries in 'padding', got [1, 1, 1]");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"padding", Ints{-1, 0}}}), "'padding' entries in [0, ");
  expect_error("conv", {x, f32({4, 4, 3, 3})}, attrs_of({{"padding", int64_t{1}}}), "'padding' to be int[], got int");
}

// ---- conv_transpose ------------------------------------------------------------

TEST(NnRows, ConvTransposeShapes) {
  // (5 - 1) * 2 - 1 - 1 + 1 * (3 - 1) + 1 + 1 = 10.
  EXPECT_EQ(infer1("conv_transpose", {f32({2, 4, 5, 5}), f32({4, 3, 3, 3}), f32({3})},
                   attrs_of({{"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}, {"output_padding", Ints{1, 1}}})),
            f32({2, 3, 10, 10}));
  // 1-D, U-Net upsampling: kernel 4 stride 2 pad 1 doubles the length.
  EXPECT_EQ(infer1("conv_transpose", {f32({1, 8, 16}), f32({8, 8, 4})},
                   attrs_of({{"stride", Ints{2}}, {"padding", Ints{1}}})),
            f32({1, 8, 32}));
  // Groups multiply the output channels; asymmetric padding; dilation.
  // H: (3 - 1) * 1 - 0 - 1 + 2 * 2 + 0 + 1 = 6; W: (4 - 1) * 2 - 1 - 0 + 2 * 1 + 1 + 1 = 9.
  EXPECT_EQ(infer1("conv_transpose", {f32({1, 4, 3, 4}), f32({4, 3, 3, 3})},
                   attrs_of({{"groups", int64_t{2}},
                          {"stride", Ints{1, 2}},
                          {"padding", Ints{0, 1, 1, 0}},
                          {"dilation", Ints{2, 1}},
                          {"output_padding", Ints{0, 1}}})),
            f32({1, 6, 6, 9}));
  // output_padding below dilation is allowed with stride 1 (torch).
  EXPECT_EQ(infer1("conv_transpose", {f32({1, 1, 3}), f32({1, 1, 2})},
                   attrs_of({{"dilation", Ints{2}}, {"output_padding", Ints{1}}})),
            f32({1, 1, 6}));
  EXPECT_EQ(infer1("conv_transpose", {f32({0, 2, 3}), f32({2, 1, 2})}), f32({0, 1, 4}));
  // 3-d: D (2 - 1) * 2 - 2 + 2 + 1 + 1 = 4, H (3 - 1) * 1 + 1 + 1 = 4, W (4 - 1) * 2 + 1 + 1 + 1 = 9.
  EXPECT_EQ(infer1("conv_transpose", {f32({1, 2, 2, 3, 4}), f32({2, 3, 3, 2, 2})},
                   attrs_of({{"stride", Ints{2, 1, 2}}, {"padding", Ints{1, 0, 0}}, {"output_padding", Ints{1, 0, 1}}})),
            f32({1, 3, 4, 4, 9}));
}

TEST(NnRows, ConvTransposeSymbolic) {
  EXPECT_EQ(infer1("conv_transpose", {dims({sym("N"), fx(8), sym("T", 16)}), f32({8, 4, 4})},
                   attrs_of({{"stride", Ints{2}}, {"padding", Ints{1}}})),
            dims({sym("N"), fx(4), sym("T_up_k4_s2_d1_p1_1_o0", 32)}));
  // Stride 1: in + k - 1 - pb - pe.
  EXPECT_EQ(infer1("conv_transpose", {dims({fx(1), fx(8), sym("T")}), f32({8, 4, 3})}),
            dims({fx(1), fx(4), sym("T_plus_2")}));
  EXPECT_EQ(infer1("conv_transpose", {dims({fx(1), fx(8), sym("T")}), f32({8, 4, 3})}, attrs_of({{"padding", Ints{1}}})),
            dims({fx(1), fx(4), sym("T")}));
  // Symbolic per-group output channels.
  EXPECT_EQ(infer1("conv_transpose", {f32({1, 4, 3}), dims({fx(4), sym("G", 5), fx(1)})},
                   attrs_of({{"groups", int64_t{2}}})),
            dims({fx(1), sym("G_times_2", 10), fx(3)}));
}

TEST(NnRows, ConvTransposeErrors) {
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({3, 2, 3})}, {}, "expected an input with 3 channels");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2, 3})}, attrs_of({{"groups", int64_t{3}}}),
               "groups 3 to divide");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2, 3})},
               attrs_of({{"stride", Ints{2}}, {"output_padding", Ints{2}}}), "output_padding smaller than stride [2]");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2, 3})}, attrs_of({{"output_padding", Ints{1, 1}}}),
               "expected 1 entries in 'output_padding'");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2, 3})}, attrs_of({{"output_padding", Ints{-1}}}),
               "'output_padding' entries in [0, ");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2, 3}), f32({4})}, {}, "bias of shape [2]");
  expect_error("conv_transpose", {f32({1, 4, 0}), f32({4, 2, 3})}, {}, "empty output");
  expect_error("conv_transpose", {f32({1, 4, 1}), f32({4, 2, 3})}, attrs_of({{"padding", Ints{2}}}), "empty output");
  expect_error("conv_transpose", {f32({1, 4, 5}), f32({4, 2})}, {}, "weight of the input's rank 3");
}

// ---- pooling ----------------------------------------------------------------------

TEST(NnRows, PoolShapes) {
  // ResNet max pool: 3x3 stride 2 pad 1.
  EXPECT_EQ(infer1("max_pool", {f32({2, 64, 112, 112})},
                   attrs_of({{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}})),
            f32({2, 64, 56, 56}));
  // Stride absent or empty = kernel_size.
  EXPECT_EQ(infer1("max_pool", {f32({1, 1, 6, 7})}, attrs_of({{"kernel_size", Ints{2, 2}}})), f32({1, 1, 3, 3}));
  EXPECT_EQ(infer1("avg_pool", {f32({1, 1, 6, 7})}, attrs_of({{"kernel_size", Ints{2, 2}}, {"stride", Ints{}}})),
            f32({1, 1, 3, 3}));
  // ceil_mode: 7 with k2 s2 -> 4; but the last window may not start in the right padding:
  // in 5, k 2, s 2, pad 1: floor((5 + 2 - 2 + 1) / 2) + 1 = 4, (4 - 1) * 2 = 6 >= 5 + 1 -> 3.
  EXPECT_EQ(infer1("max_pool", {f32({1, 1, 7})}, attrs_of({{"kernel_size", Ints{2}}, {"ceil_mode", true}})),
            f32({1, 1, 4}));
  EXPECT_EQ(infer1("avg_pool", {f32({1, 1, 5})},
                   attrs_of({{"kernel_size", Ints{2}}, {"padding", Ints{1}}, {"ceil_mode", true}})),
            f32({1, 1, 3}));
  EXPECT_EQ(infer1("avg_pool", {f32({1, 1, 5})}, attrs_of({{"kernel_size", Ints{2}}, {"padding", Ints{1}}})),
            f32({1, 1, 3}));
  // Dilation (max only), asymmetric padding, integer dtypes.
  // H: (6 + 0 + 1 - 2 * 2 - 1) / 1 + 1 = 3; W: (5 + 1 + 1 - 1 * 1 - 1) / 2 + 1 = 3.
  EXPECT_EQ(infer1("max_pool", {typed(DType::Int8, {2, 3, 6, 5})},
                   attrs_of({{"kernel_size", Ints{3, 2}},
                          {"stride", Ints{1, 2}},
                          {"dilation", Ints{2, 1}},
                          {"padding", Ints{0, 1, 1, 1}}})),
            typed(DType::Int8, {2, 3, 3, 3}));
  EXPECT_EQ(infer1("max_pool", {typed(DType::Int64, {0, 3, 4})}, attrs_of({{"kernel_size", Ints{2}}})),
            typed(DType::Int64, {0, 3, 2}));
  // avg_pool accepts dilation: 1s, and (ONNX AveragePool's) others:
  // (4 - 2 * 1 - 1) / 1 + 1 = 2, (5 - 2 - 1) / 1 + 1 = 3.
  EXPECT_EQ(infer1("avg_pool", {f16({1, 2, 4, 4})},
                   attrs_of({{"kernel_size", Ints{2, 2}}, {"dilation", Ints{1, 1}}, {"count_include_pad", false}})),
            f16({1, 2, 2, 2}));
  EXPECT_EQ(infer1("avg_pool", {f32({1, 2, 4, 5})},
                   attrs_of({{"kernel_size", Ints{2, 2}}, {"stride", Ints{1, 1}}, {"dilation", Ints{2, 2}}})),
            f32({1, 2, 2, 3}));
  // 3-d windows; with ceil_mode, D (5 - 2 + 1) / 2 + 1 = 3, H (6 - 3 + 1) / 2 + 1 = 3, W (7 - 2 + 1) / 2 + 1 = 4.
  EXPECT_EQ(infer1("max_pool", {f32({1, 2, 5, 6, 7})},
                   attrs_of({{"kernel_size", Ints{3, 3, 3}}, {"stride", Ints{2, 2, 2}}, {"padding", Ints{1, 1, 1}}})),
            f32({1, 2, 3, 3, 4}));
  EXPECT_EQ(infer1("avg_pool", {f32({1, 2, 5, 6, 7})},
                   attrs_of({{"kernel_size", Ints{2, 2, 2}}, {"ceil_mode", true}, {"dilation", Ints{1, 2, 1}}})),
            f32({1, 2, 3, 3, 4}));
}

TEST(NnRows, PoolSymbolic) {
  EXPECT_EQ(infer1("max_pool", {dims({sym("N"), fx(3), sym("H", 15), sym("W")})},
                   attrs_of({{"kernel_size", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}})),
            dims({sym("N"), fx(3), sym("H_win_k3_s2_d1_p1_1", 8), sym("W_win_k3_s2_d1_p1_1")}));
  // Floor-mode max_pool and conv with the same window give the same dim.
  const TensorType pooled = infer1("max_pool", {dims({fx(1), fx(1), sym("T")})},
                                   attrs_of({{"kernel_size", Ints{3}}, {"stride", Ints{2}}}));
  const TensorType conved =
      infer1("conv", {dims({fx(1), fx(1), sym("T")}), f32({1, 1, 3})}, attrs_of({{"stride", Ints{2}}}));
  EXPECT_EQ(pooled, conved);
  const TensorType ceil = infer1("avg_pool", {dims({fx(1), fx(1), sym("T", 7)})},
                                 attrs_of({{"kernel_size", Ints{2}}, {"ceil_mode", true}}));
  EXPECT_EQ(ceil, dims({fx(1), fx(1), sym("T_win_k2_s2_d1_p0_0_ceil", 4)}));
  // Stride 1 with 'same' padding keeps the dim.
  EXPECT_EQ(infer1("max_pool", {dims({fx(1), fx(1), sym("T")})},
                   attrs_of({{"kernel_size", Ints{3}}, {"stride", Ints{1}}, {"padding", Ints{1}}})),
            dims({fx(1), fx(1), sym("T")}));
  EXPECT_EQ(infer1("max_pool", {dims({fx(1), fx(1), Dim::dynamic(9)})}, attrs_of({{"kernel_size", Ints{2}}})),
            dims({fx(1), fx(1), Dim::dynamic(4)}));
}

TEST(NnRows, PoolErrors) {
  expect_error("max_pool", {f32({1, 1, 4}), f32({1})}, attrs_of({{"kernel_size", Ints{2}}}),
               "expected 1 tensor input(s), got 2");
  expect_error("max_pool", {typed(DType::Bool, {1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}}), "got bool");
  expect_error("avg_pool", {typed(DType::Int32, {1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}}), "got i32");
  expect_error("max_pool", {f32({1, 1, 4})}, {}, "'kernel_size' to be an int list with 1 to 3 entries, got none");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{}}}), "got []");
  expect_error("max_pool", {f32({1, 1, 4, 4, 4, 4})}, attrs_of({{"kernel_size", Ints{2, 2, 2, 2}}}),
               "got [2, 2, 2, 2]");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{2, 2}}}),
               "expected a rank-4 input (N, C, spatial...) for a 2-d window, got f32[1, 1, 4]");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{0}}}), "'kernel_size' entries in [1, ");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}, {"stride", Ints{0}}}),
               "'stride' entries");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}, {"dilation", Ints{1, 1}}}),
               "expected 1 entries in 'dilation'");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}, {"padding", Ints{1, 1, 1}}}),
               "expected 1 or 2 entries in 'padding'");
  // Window larger than the padded input.
  expect_error("max_pool", {f32({1, 1, 2})}, attrs_of({{"kernel_size", Ints{3}}}), "spatial size 2");
  expect_error("max_pool", {f32({1, 1, 4})}, attrs_of({{"kernel_size", Ints{2}}, {"dilation", Ints{4}}}),
               "(dilation [4])");
  expect_error("avg_pool", {f32({1, 1, 4, 4})}, attrs_of({{"kernel_size", Ints{2, 2}}, {"dilation", Ints{4, 1}}}),
               "(dilation [4, 1])");
}

TEST(NnRows, AdaptiveAndResize) {
  // Global average pool; output_size larger than the input; 1-D.
  EXPECT_EQ(infer1("adaptive_avg_pool", {f32({2, 512, 7, 7})}, attrs_of({{"output_size", Ints{1, 1}}})),
            f32({2, 512, 1, 1}));
  EXPECT_EQ(infer1("adaptive_avg_pool", {f16({1, 3, 5})}, attrs_of({{"output_size", Ints{8}}})), f16({1, 3, 8}));
  EXPECT_EQ(infer1("upsample_nearest", {f32({1, 3, 4, 5})}, attrs_of({{"output_size", Ints{8, 10}}})),
            f32({1, 3, 8, 10}));
  EXPECT_EQ(infer1("upsample_bilinear", {f32({1, 3, 4})}, attrs_of({{"output_size", Ints{7}}, {"align_corners", true}})),
            f32({1, 3, 7}));
  // An empty spatial dim resized to 0 is fine; the output size is static
  // whatever the input's spatial dims are.
  EXPECT_EQ(infer1("upsample_nearest", {f32({1, 1, 0})}, attrs_of({{"output_size", Ints{0}}})), f32({1, 1, 0}));
  EXPECT_EQ(infer1("upsample_bilinear", {dims({sym("N"), fx(2), sym("H"), sym("W", 9)})},
                   attrs_of({{"output_size", Ints{16, 16}}})),
            dims({sym("N"), fx(2), fx(16), fx(16)}));
  EXPECT_EQ(infer1("adaptive_avg_pool", {dims({sym("N"), fx(2), sym("H"), sym("W")})},
                   attrs_of({{"output_size", Ints{1, 1}}})),
            dims({sym("N"), fx(2), fx(1), fx(1)}));

  for (const char* op : {"adaptive_avg_pool", "upsample_nearest", "upsample_bilinear"}) {
    expect_error(op, {typed(DType::Int64, {1, 1, 4})}, attrs_of({{"output_size", Ints{2}}}), "got i64");
    expect_error(op, {f32({1, 1, 4})}, {}, "'output_size' to be an int list with 1 or 2 entries, got none");
    expect_error(op, {f32({1, 1, 4})}, attrs_of({{"output_size", Ints{2, 2}}}),
                 "expected a rank-4 input (N, C, spatial...) for a 2-d output_size, got f32[1, 1, 4]");
    expect_error(op, {f32({1, 1, 4})}, attrs_of({{"output_size", Ints{-1}}}), "'output_size' entries in [0, ");
    expect_error(op, {f32({1, 1, 0, 3})}, attrs_of({{"output_size", Ints{2, 2}}}), "non-empty spatial dims");
    expect_error(op, {f32({1, 1, 4}), f32({1, 1, 4})}, attrs_of({{"output_size", Ints{2}}}), "got 2");
  }
}

// resize (ONNX Resize): the input's type with each resized axis fixed.
TEST(NnRows, OnnxResize) {
  using Floats = std::vector<double>;
  EXPECT_EQ(infer1("resize", {f32({1, 3, 4, 5})}, attrs_of({{"axes", Ints{2, 3}}, {"output_size", Ints{8, 3}}})),
            f32({1, 3, 8, 3}));
  // Any axes; unresized symbolic dims stay; a resized one becomes static.
  EXPECT_EQ(infer1("resize", {dims({sym("N"), fx(2), sym("H")})},
                   attrs_of({{"axes", Ints{1, 2}}, {"output_size", Ints{5, 7}}, {"scales", Floats{2.5, 1.5}},
                             {"mode", std::string("cubic")}})),
            dims({sym("N"), fx(5), fx(7)}));
  EXPECT_EQ(infer1("resize", {f16({4})}, attrs_of({{"axes", Ints{}}, {"output_size", Ints{}}})), f16({4}));
  EXPECT_EQ(infer1("resize", {f32({1, 0, 3})}, attrs_of({{"axes", Ints{1}}, {"output_size", Ints{0}}})),
            f32({1, 0, 3}));

  // An output_size of -1 sizes the axis by its scale, floor(size * scale):
  // static for a static dim, a symbol named after the dim and the scale
  // (bounded by the bound's result) for a symbolic one, a bounded
  // data-dependent dim for a data-dependent one.
  const Attrs by_scale = attrs_of({{"axes", Ints{1, 2, 3}}, {"output_size", Ints{-1, -1, -1}},
                                   {"scales", Floats{0.6, 2.0, 2.5}}});
  EXPECT_EQ(infer1("resize", {dims({fx(1), fx(5), sym("H", 41), sym("W")})}, by_scale),
            dims({fx(1), fx(3), sym("H_times_2", 82), sym("W_times_2p5")}));
  EXPECT_EQ(infer1("resize", {dims({fx(1), fx(5), Dim::dynamic(7), fx(2)})}, by_scale),
            dims({fx(1), fx(3), Dim::dynamic(14), fx(5)}));
  // Equal resizes of one symbol give one symbol (an add of the two types).
  EXPECT_EQ(infer1("resize", {dims({fx(1), fx(5), sym("H", 41), sym("W")})}, by_scale),
            infer1("resize", {dims({fx(1), fx(5), sym("H", 41), sym("W")})}, by_scale));

  const Attrs hw = attrs_of({{"axes", Ints{2, 3}}, {"output_size", Ints{2, 2}}});
  expect_error("resize", {typed(DType::Int64, {1, 1, 4, 4})}, hw, "got i64");
  expect_error("resize", {f32({1, 1, 4, 4})}, attrs_of({{"axes", Ints{2, 3}}, {"output_size", Ints{-1, 2}}}),
               "expected 'output_size' entries >= 0, or -1 (floor(size * scale)) with 'scales', got [-1, 2]");
  expect_error("resize", {f32({1, 1, 4, 4})},
               attrs_of({{"axes", Ints{2, 3}}, {"output_size", Ints{-2, 2}}, {"scales", Floats{2.0, 2.0}}}),
               "got [-2, 2]");
  expect_error("resize", {f32({1, 1, 4, 4})}, attrs_of({{"axes", Ints{3, 2}}, {"output_size", Ints{2, 2}}}),
               "expected 'axes' to be increasing axes of the input f32[1, 1, 4, 4], got [3, 2]");
  expect_error("resize", {f32({1, 1, 4})}, hw, "increasing axes of the input f32[1, 1, 4], got [2, 3]");
  expect_error("resize", {f32({1, 1, 4, 4})}, attrs_of({{"axes", Ints{2, 3}}, {"output_size", Ints{2}}}),
               "expected 2 entries in 'output_size' (one per axis [2, 3]), got [2]");
  Attrs bad_scales = hw;
  bad_scales.set("scales", Floats{0.5});
  expect_error("resize", {f32({1, 1, 4, 4})}, bad_scales, "expected 2 entries in 'scales' (one per axis), got 1");
  bad_scales.set("scales", Floats{0.5, -1.0});
  expect_error("resize", {f32({1, 1, 4, 4})}, bad_scales, "expected 'scales' entries > 0, got -1.000000");
  Attrs bad_roi = hw;
  bad_roi.set("roi", Floats{0.0, 1.0});
  expect_error("resize", {f32({1, 1, 4, 4})}, bad_roi,
               "expected 4 entries in 'roi' (the starts, then the ends, of each axis), got 2");
  expect_error("resize", {f32({1, 1, 0, 4})}, hw, "expected a non-empty axis 2 to resize to 2, got f32[1, 1, 0, 4]");
  expect_error("resize", {f32({1, 1, 4, 4})}, attrs_of({{"output_size", Ints{2}}}), "'axes'");
}

// ---- normalization ------------------------------------------------------------

TEST(NnRows, Softmax) {
  for (const char* op : {"softmax", "log_softmax"}) {
    EXPECT_EQ(infer1(op, {f32({2, 3, 4})}, attrs_of({{"dim", int64_t{-1}}})), f32({2, 3, 4}));
    EXPECT_EQ(infer1(op, {f16({2, 3})}, attrs_of({{"dim", int64_t{0}}})), f16({2, 3}));
    EXPECT_EQ(infer1(op, {f32({})}, attrs_of({{"dim", int64_t{0}}})), f32({}));
    const TensorType s = dims({sym("B"), sym("S", 77), fx(8)});
    EXPECT_EQ(infer1(op, {s}, attrs_of({{"dim", int64_t{1}}})), s);
    expect_error(op, {f32({2, 3})}, {}, "expected attribute 'dim'");
    expect_error(op, {f32({2, 3})}, attrs_of({{"dim", int64_t{2}}}), "dim 2 out of range [-2, 1]");
    expect_error(op, {f32({2, 3})}, attrs_of({{"dim", int64_t{-3}}}), "out of range");
    expect_error(op, {typed(DType::Int32, {2, 3})}, attrs_of({{"dim", int64_t{0}}}), "got i32");
    expect_error(op, {f32({2}), f32({2})}, attrs_of({{"dim", int64_t{0}}}), "got 2");
  }
}

TEST(NnRows, BatchNorm) {
  const TensorType c = f32({3});
  EXPECT_EQ(infer1("batch_norm", {f32({2, 3, 4, 4}), c, c, c, c}), f32({2, 3, 4, 4}));
  EXPECT_EQ(infer1("batch_norm", {f32({2, 3}), c, c, c, c}, attrs_of({{"eps", 1e-3}})), f32({2, 3}));
  // Parameters may be of either float dtype (the kernel reads each as its own).
  EXPECT_EQ(infer1("batch_norm", {f16({1, 3, 5}), c, f16({3}), c, c}), f16({1, 3, 5}));
  const TensorType s = dims({sym("N"), fx(3), sym("L")});
  EXPECT_EQ(infer1("batch_norm", {s, c, c, c, c}), s);
  EXPECT_EQ(infer1("batch_norm", {dims({fx(1), sym("C")}), c, c, c, c}), dims({fx(1), sym("C")}));

  expect_error("batch_norm", {f32({2, 3}), c, c, c}, {}, "expected 5 tensor input(s), got 4");
  expect_error("batch_norm", {f32({3}), c, c, c, c}, {}, "rank >= 2 (N, C, ...), got f32[3]");
  expect_error("batch_norm", {f32({2, 3}), c, c, f32({4}), c}, {}, "running_mean of shape [3]");
  expect_error("batch_norm", {f32({2, 3}), c, c, c, f32({3, 1})}, {}, "running_var of shape [3]");
  expect_error("batch_norm", {f32({2, 3}), typed(DType::Int64, {3}), c, c, c}, {}, "weight: expected dtype");
  expect_error("batch_norm", {typed(DType::Int64, {2, 3}), c, c, c, c}, {}, "input: expected dtype");
}

TEST(NnRows, GroupAndInstanceNorm) {
  const TensorType x = f32({2, 6, 5, 5});
  EXPECT_EQ(infer1("group_norm", {x}, attrs_of({{"num_groups", int64_t{3}}})), x);
  EXPECT_EQ(infer1("group_norm", {x, f32({6}), f32({6})}, attrs_of({{"num_groups", int64_t{6}}, {"eps", 1e-6}})), x);
  EXPECT_EQ(infer1("group_norm", {f16({1, 4, 7}), f16({4})}, attrs_of({{"num_groups", int64_t{2}}})), f16({1, 4, 7}));
  EXPECT_EQ(infer1("instance_norm", {x}), x);
  EXPECT_EQ(infer1("instance_norm", {x, f32({6}), f32({6})}), x);
  const TensorType s = dims({sym("N"), sym("C"), sym("T", 64)});
  EXPECT_EQ(infer1("group_norm", {s}, attrs_of({{"num_groups", int64_t{8}}})), s);
  EXPECT_EQ(infer1("instance_norm", {s, f32({8})}), s);

  expect_error("group_norm", {x}, {}, "expected attribute 'num_groups'");
  expect_error("group_norm", {x}, attrs_of({{"num_groups", int64_t{4}}}), "divide the 6 channels");
  expect_error("group_norm", {x}, attrs_of({{"num_groups", int64_t{0}}}), "got 0");
  expect_error("group_norm", {x, f32({4})}, attrs_of({{"num_groups", int64_t{2}}}), "weight of shape [6]");
  expect_error("group_norm", {x, f32({6}), f16({6})}, attrs_of({{"num_groups", int64_t{2}}}), "bias: expected dtype f32");
  expect_error("group_norm", {f32({6})}, attrs_of({{"num_groups", int64_t{2}}}), "rank >= 2");
  expect_error("instance_norm", {x, f32({6}), f32({6}), f32({6})}, {}, "expected 1 to 3 tensor inputs, got 4");
  expect_error("instance_norm", {x, f32({6}), f32({5})}, {}, "bias of shape [6]");
  expect_error("instance_norm", {typed(DType::Int8, {1, 2, 3})}, {}, "got i8");
}

TEST(NnRows, Lrn) {
  const Attrs size3 = attrs_of({{"size", int64_t{3}}});
  const TensorType x = f32({2, 6, 5, 5});
  EXPECT_EQ(infer1("lrn", {x}, size3), x);
  EXPECT_EQ(infer1("lrn", {typed(DType::Float64, {1, 4})}, size3), typed(DType::Float64, {1, 4}));
  const TensorType s = dims({sym("N"), fx(8), sym("T", 64)});
  EXPECT_EQ(infer1("lrn", {s}, size3), s);

  expect_error("lrn", {x}, {}, "expected attribute 'size'");
  expect_error("lrn", {f32({6})}, size3, "rank >= 2");
  expect_error("lrn", {typed(DType::Int32, {2, 3})}, size3, "got i32");
  expect_error("lrn", {x, x}, size3, "expected 1 tensor input(s), got 2");
}

TEST(NnRows, LayerNorm) {
  const TensorType x = f32({2, 5, 8});
  EXPECT_EQ(infer1("layer_norm", {x}), x);
  EXPECT_EQ(infer1("layer_norm", {x, f32({8}), f32({8})}), x);
  EXPECT_EQ(infer1("layer_norm", {x, f32({5, 8}), f32({8})}, attrs_of({{"axis", int64_t{1}}})), x);
  // weight/bias broadcast against x.shape[axis:] (size-1 dims stretch).
  EXPECT_EQ(infer1("layer_norm", {x, f32({1, 8})}, attrs_of({{"axis", int64_t{-2}}})), x);
  EXPECT_EQ(infer1("layer_norm", {x, f32({2, 5, 8})}, attrs_of({{"axis", int64_t{0}}})), x);
  const TensorType s = dims({sym("B"), sym("S"), fx(8)});
  EXPECT_EQ(infer1("layer_norm", {s, f32({8}), f32({8})}), s);
  EXPECT_EQ(infer1("layer_norm", {s, f32({4, 8})}, attrs_of({{"axis", int64_t{1}}})), s);

  expect_error("layer_norm", {x, f32({7})}, {}, "weight of shape [8] (input f32[2, 5, 8], axis 2), got f32[7]");
  expect_error("layer_norm", {x, f32({8}), f32({5, 8})}, {}, "bias of shape");
  expect_error("layer_norm", {x, f32({3, 8})}, attrs_of({{"axis", int64_t{1}}}), "got f32[3, 8]");
  expect_error("layer_norm", {x, f16({8})}, {}, "weight: expected dtype f32");
  expect_error("layer_norm", {x}, attrs_of({{"axis", int64_t{3}}}), "expected axis in [-3, 2]");
  expect_error("layer_norm", {x}, attrs_of({{"axis", int64_t{-4}}}), "got -4");
  expect_error("layer_norm", {f32({})}, {}, "rank >= 1");
  expect_error("layer_norm", {typed(DType::Int32, {4})}, {}, "got i32");
}

TEST(NnRows, Recurrent) {
  // X [seq, batch, input]; results Y [seq, dirs, batch, hidden], the states
  // [dirs, batch, hidden] and the workspace [batch, 2 * gates * hidden + hidden].
  const TensorType x = dims({sym("T"), sym("N"), fx(3)});
  const Attrs bi = attrs_of({{"hidden_size", int64_t{2}}, {"direction", std::string("bidirectional")}});
  const auto lstm = infer("lstm", {x, f32({2, 8, 3}), f32({2, 8, 2})}, bi);
  ASSERT_EQ(lstm.size(), 4u);
  EXPECT_EQ(lstm[0], dims({sym("T"), fx(2), sym("N"), fx(2)}));
  EXPECT_EQ(lstm[1], dims({fx(2), sym("N"), fx(2)}));
  EXPECT_EQ(lstm[2], lstm[1]);
  EXPECT_EQ(lstm[3], dims({sym("N"), fx(18)}));
  const Attrs one = attrs_of({{"hidden_size", int64_t{2}}});
  // An operand left out before a given one is an empty [0].
  const auto gru = infer("gru", {x, f32({1, 6, 3}), f32({1, 6, 2}), f32({0}), typed(DType::Int32, {4})}, one);
  ASSERT_EQ(gru.size(), 3u);
  EXPECT_EQ(gru[2], dims({sym("N"), fx(14)}));
  EXPECT_EQ(infer("rnn", {x, f32({1, 2, 3}), f32({1, 2, 2}), f32({1, 4})}, one).size(), 3u);

  expect_error("lstm", {x, f32({1, 4, 3}), f32({1, 8, 2})}, one, "expected W [1, 8, 3], got f32[1, 4, 3]");
  expect_error("gru", {x, f32({1, 6, 3}), f32({1, 6, 2}), f32({1, 6})}, one, "expected B [1, 12]");
  expect_error("rnn", {x, f32({1, 2, 3}), f32({1, 2, 2}), f32({1, 4}), f32({4})}, one, "sequence_lens");
  expect_error("rnn", {f32({2, 3}), f32({1, 2, 3}), f32({1, 2, 2})}, one, "expected an input [seq, batch, input]");
  expect_error("rnn", {typed(DType::Int32, {2, 1, 3}), f32({1, 2, 3}), f32({1, 2, 2})}, one, "got i32");
}

}  // namespace
}  // namespace edgec
