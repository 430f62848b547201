// Refusal cases of ops_nn.cpp and ops_recurrent.cpp: one small model per refusal site, walked by
// onnx_refusals_test.cpp (what they share: cases.h).
#include "frontends/refusals/cases.h"

namespace edgec::refusal_cases {

void add_nn_cases(std::vector<Case>& c) {
  auto add = [&](Case k) { c.push_back(std::move(k)); };
  // ---- ops_nn.cpp ----
  auto conv = [](const std::vector<int64_t>& w = {2, 2, 1, 1}) {
    Model m;
    m.x().weight("w", w);
    m.node("Conv", {"x", "w"}, {"y"});
    m.output("y");
    return m;
  };
  auto pool = [](const std::string& op, const std::vector<int64_t>& kernel = {2, 2}) {
    Model m;
    m.x();
    attr(m.node(op, {"x"}, {"y"}), "kernel_shape", kernel);
    m.output("y");
    return m;
  };
  {
    Model m = conv();
    attr(t_node(m), "strides", std::vector<int64_t>{0, 0});
    add(node_case("conv strides 0", m, "Conv", "attribute 'strides' is [0, 0]"));
  }
  // ---- Det, MaxPool's Indices output, MaxUnpool ----
  auto det = [](const std::vector<std::string>& dims) {
    Model m;
    m.input("x", dims).node("Det", {"x"}, {"y"});
    m.output("y");
    return m;
  };
  add(node_case("det of a vector", det({"4"}), "Det", "has rank 1; expected [..., n, n]"));
  add(node_case("det of a symbolic size", det({"n", "n"}), "Det",
                "has a symbolic matrix size; expected a static n in [..., n, n]"));
  {
    Model m;
    m.x();
    auto* n = m.node("MaxPool", {"x"}, {"y", "i"});
    attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(n, "storage_order", int64_t{2});
    m.output("y").output("i");
    add(node_case("max pool storage order 2", m, "MaxPool",
                  "attribute 'storage_order' is 2; expected 0 (row major) or 1 (column major)"));
  }
  auto unpool = [](const std::vector<std::string>& x_dims, const std::vector<std::string>& i_dims,
                   const std::vector<int64_t>& kernel, const std::vector<int64_t>& pads,
                   std::optional<std::vector<int64_t>> output_shape) {
    Model m;
    m.input("x", x_dims).input("i", i_dims, TensorProto::INT64);
    if (output_shape) m.ints("shape", *output_shape);
    auto* n = m.node("MaxUnpool", output_shape ? std::vector<std::string>{"x", "i", "shape"}
                                                : std::vector<std::string>{"x", "i"},
                     {"y"});
    attr(n, "kernel_shape", kernel);
    if (!pads.empty()) attr(n, "pads", pads);
    m.output("y");
    return m;
  };
  add(node_case("max unpool indices of another shape", unpool({"1", "2", "2", "2"}, {"1", "2", "2", "3"}, {2, 2}, {}, {}),
                "MaxUnpool", "; expected i64 indices of its shape"));
  add(node_case("max unpool of a symbolic dim", unpool({"n", "2", "2", "2"}, {"n", "2", "2", "2"}, {2, 2}, {}, {}),
                "MaxUnpool", "has a symbolic dim; expected a static shape"));
  add(node_case("max unpool output shape of 2 entries",
                unpool({"1", "2", "2", "2"}, {"1", "2", "2", "2"}, {2, 2}, {}, std::vector<int64_t>{4, 4}), "MaxUnpool",
                "is [4, 4]; expected 4 entries, the rank of"));
  add(node_case("max unpool to a negative size", unpool({"1", "1", "1", "1"}, {"1", "1", "1", "1"}, {3, 3}, {2, 2, 2, 2}, {}),
                "MaxUnpool", "the unpooled spatial dim 0 of"));
  add(node_case("max unpool output shape below the unpooled one",
                unpool({"1", "2", "2", "2"}, {"1", "2", "2", "2"}, {2, 2}, {}, std::vector<int64_t>{1, 2, 2, 2}),
                "MaxUnpool", "is [1, 2, 2, 2]; expected sizes in [[1, 2, 3, 3]"));
  add(node_case("max unpool of too many elements",
                unpool({"1048576", "1048576", "1", "1", "1"}, {"1048576", "1048576", "1", "1", "1"},
                       {2147483648, 2147483648, 2147483648}, {}, {}),
                "MaxUnpool", "has more elements than a tensor can hold"));
  // ---- NonMaxSuppression, RoiAlign, GridSample ----
  auto nms = [](const std::vector<int64_t>& max_boxes) {
    Model m;
    m.input("boxes", {"1", "3", "4"}).input("scores", {"1", "1", "3"}).ints("k", max_boxes);
    m.node("NonMaxSuppression", {"boxes", "scores", "k"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = nms({1});
    attr(t_node(m), "center_point_box", int64_t{2});
    add(node_case("nms center_point_box 2", m, "NonMaxSuppression", "attribute 'center_point_box' is 2; expected 0 or 1"));
  }
  add(node_case("nms max_output_boxes_per_class of 2 values", nms({1, 2}), "NonMaxSuppression",
                "input 2 'max_output_boxes_per_class' (value 'k', i64[2]) holds 2 values; expected one"));
  auto roi_align = [](const std::vector<std::string>& x_dims) {
    Model m;
    m.input("x", x_dims).floats("rois", {0, 0, 1, 1}, {1, 4}).ints("b", {0});
    m.node("RoiAlign", {"x", "rois", "b"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = roi_align({"1", "2", "4", "4"});
    attr(t_node(m), "mode", "min");
    add(node_case("roi_align mode min", m, "RoiAlign", "attribute 'mode' is 'min'; expected one of avg, max"));
  }
  {
    Model m = roi_align({"1", "2", "4", "4"});
    attr(t_node(m), "output_height", int64_t{0});
    add(node_case("roi_align output height 0", m, "RoiAlign",
                  "attributes 'output_height' and 'output_width' are 0 and 1; expected sizes of at least 1"));
  }
  {
    Model m = roi_align({"1", "2", "4", "4"});
    attr(t_node(m), "sampling_ratio", int64_t{-1});
    add(node_case("roi_align negative sampling ratio", m, "RoiAlign",
                  "attribute 'sampling_ratio' is -1; expected 0 (adaptive) or more"));
  }
  add(node_case("roi_align of rank 3", roi_align({"1", "2", "4"}), "RoiAlign",
                "input 0 'X' (value 'x', f32[1, 2, 4]) has rank 3; expected [N, C, H, W]"));
  auto grid_sample = [](int64_t opset, const std::vector<std::string>& x_dims, const std::vector<std::string>& grid_dims) {
    Model m(opset);
    m.input("x", x_dims).input("grid", grid_dims);
    m.node("GridSample", {"x", "grid"}, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = grid_sample(17, {"1", "2", "4", "4"}, {"1", "3", "3", "2"});
    attr(t_node(m), "align_corners", int64_t{2});
    add(node_case("grid_sample align_corners 2", m, "GridSample", "attribute 'align_corners' is 2; expected 0 or 1"));
  }
  add(node_case("grid_sample of rank 5 before opset 20", grid_sample(17, {"1", "2", "4", "4", "4"}, {"1", "3", "3", "3", "3"}),
                "GridSample", "has rank 5; expected [N, C, H, W] (3-D inputs from opset 20)"));
  {
    Model m = grid_sample(20, {"1", "2", "4", "4", "4"}, {"1", "3", "3", "3", "3"});
    attr(t_node(m), "mode", "cubic");
    add(node_case("grid_sample cubic of a 3-D input", m, "GridSample",
                  "; cubic mode is for 2-D inputs [N, C, H, W]", 20));
  }
  {
    Model m;
    m.input("a", {"1", "2", "3", "4"}).weight("b", {4, 4}).node("Gemm", {"a", "b"}, {"y"});
    m.output("y");
    add(node_case("gemm of rank 4", m, "Gemm", "input 0 'A' (value 'a', f32[1, 2, 3, 4]) has rank 4"));
  }
  {
    Model m = conv();
    attr(t_node(m), "auto_pad", "SAME");
    add(node_case("auto_pad SAME", m, "Conv", "attribute 'auto_pad' is 'SAME'"));
  }
  {
    Model m = conv();
    attr(t_node(m), "strides", std::vector<int64_t>{1});
    add(node_case("strides for one dim", m, "Conv", "attribute 'strides' is [1]; expected 2 entries"));
  }
  {
    Model m = conv();
    attr(t_node(m), "auto_pad", "VALID");
    attr(t_node(m), "pads", std::vector<int64_t>{0, 0, 0, 0});
    add(node_case("pads with auto_pad", m, "Conv", "attribute 'pads' is given with attribute 'auto_pad'"));
  }
  {
    // SAME: outputs 4 * 4; stride 4 and a 1x1 kernel give 13 unpadded,
    // which would need a begin pad of -2.
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    auto* n = m.node("ConvTranspose", {"x", "w"}, {"y"});
    attr(n, "auto_pad", "SAME_UPPER");
    attr(n, "strides", std::vector<int64_t>{4, 4});
    m.output("y");
    add(node_case("conv_transpose SAME", m, "ConvTranspose",
                  "attribute 'auto_pad' SAME_UPPER needs pads -2 and -1 in spatial dim 0"));
  }
  {
    Model m;
    m.x().input("w", {"2", "2", "k", "1"});
    attr(m.node("Conv", {"x", "w"}, {"y"}), "auto_pad", "SAME_UPPER");
    m.output("y");
    add(node_case("SAME with a symbolic kernel", m, "Conv",
                  "attribute 'auto_pad' SAME_UPPER is not supported without static kernel sizes"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "h", "4"}).weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "auto_pad", "SAME_LOWER");
    m.output("y");
    add(node_case("conv_transpose SAME of a symbolic size", m, "ConvTranspose",
                  "attribute 'auto_pad' SAME_LOWER needs static spatial sizes, got input 0 'X' (value 'x', "
                  "f32[1, 2, h, 4])"));
  }
  {
    Model m;
    m.x().input("w", {"2", "2", "k", "1"});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{4, 4});
    m.output("y");
    add(node_case("conv_transpose output_shape of a symbolic kernel", m, "ConvTranspose",
                  "attribute 'output_shape' [4, 4] needs static kernel sizes, got input 1 'W' (value 'w', "
                  "f32[2, 2, k, 1])"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{4});
    m.output("y");
    add(node_case("conv_transpose output_shape for one dim", m, "ConvTranspose",
                  "attribute 'output_shape' [4] has 1 entries; expected 2"));
  }
  {
    // 5 rows from 4 with stride 1: an output padding of 1, not below the stride.
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{5, 4});
    m.output("y");
    add(node_case("conv_transpose output_shape too large", m, "ConvTranspose",
                  "attribute 'output_shape' [5, 4] is 1 larger than the output in spatial dim 0"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "h", "4"});
    auto* n = m.node("MaxPool", {"x"}, {"y"});
    attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
    attr(n, "auto_pad", "SAME_UPPER");
    m.output("y");
    add(node_case("SAME on a symbolic size", m, "MaxPool", "attribute 'auto_pad' SAME_UPPER needs static"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "3", "3", "3", "3"}).weight("w", {2, 2, 1, 1, 1, 1}).node("Conv", {"x", "w"}, {"y"});
    m.output("y");
    add(node_case("conv 4-d", m, "Conv", "input 0 'X' (value 'x', f32[1, 2, 3, 3, 3, 3]) has rank 6"));
  }
  add(node_case("conv weight rank", conv({2, 2, 1}), "Conv", "input 1 'W' (value 'w', f32[2, 2, 1]) has rank 3"));
  {
    Model m = conv();
    attr(t_node(m), "kernel_shape", std::vector<int64_t>{1});
    add(node_case("kernel_shape for one dim", m, "Conv", "attribute 'kernel_shape' is [1]; expected 2 entries"));
  }
  {
    Model m = conv();
    attr(t_node(m), "kernel_shape", std::vector<int64_t>{3, 3});
    add(node_case("kernel_shape not the weight's", m, "Conv", "attribute 'kernel_shape' is [3, 3]"));
  }
  {
    Model m = conv();
    attr(t_node(m), "group", int64_t{0});
    add(node_case("group 0", m, "Conv", "attribute 'group' is 0"));
  }
  {
    Model m = conv({3, 1, 1, 1});
    attr(t_node(m), "group", int64_t{3});
    add(node_case("group not dividing the channels", m, "Conv", "attribute 'group' is 3, which does not divide the 2"));
  }
  {
    Model m = conv({2, 2, 1, 1});
    attr(t_node(m), "group", int64_t{2});
    add(node_case("weight channels per group", m, "Conv", "input 1 'W' (value 'w', f32[2, 2, 1, 1]) has 2 input"));
  }
  {
    Model m = conv({3, 1, 1, 1});
    attr(t_node(m), "group", int64_t{2});
    add(node_case("group not dividing the outputs", m, "Conv", "the 3 output channels of input 1 'W'"));
  }
  {
    Model m = pool("MaxPool", {2147483648, 2});
    attr(t_node(m), "auto_pad", "SAME_UPPER");
    attr(t_node(m), "dilations", std::vector<int64_t>{2, 1});
    add(node_case("SAME padding past the limit", m, "MaxPool",
                  "attribute 'auto_pad' SAME_UPPER needs 4294967294 pads"));
  }
  add(node_case("pool kernel for one dim", pool("MaxPool", {2}), "MaxPool", "attribute 'kernel_shape' is [2]"));
  {
    Model m = pool("AveragePool");
    attr(t_node(m), "pads", std::vector<int64_t>{2, 0, 0, 0});
    add(node_case("pool pads of the kernel", m, "AveragePool", "attribute 'pads' is [2, 0, 0, 0]"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_shape", std::vector<int64_t>{8, 8});
    m.output("y");
    add(node_case("conv_transpose output_shape", m, "ConvTranspose", "attribute 'output_shape'"));
  }
  {
    Model m;
    m.x().weight("w", {2, 2, 1, 1});
    attr(m.node("ConvTranspose", {"x", "w"}, {"y"}), "output_padding", std::vector<int64_t>{1});
    m.output("y");
    add(node_case("output_padding for one dim", m, "ConvTranspose", "attribute 'output_padding' is [1]"));
  }
  {
    Model m;
    m.input("x", {"2", "3"}).node("GlobalAveragePool", {"x"}, {"y"});
    m.output("y");
    add(node_case("global pool of rank 2", m, "GlobalAveragePool", "input 0 'X' (value 'x', f32[2, 3]) has rank 2"));
  }
  {
    Model m;
    m.x().floats("s", {1, 1}).floats("b", {0, 0});
    attr(m.node("BatchNormalization", {"x", "s", "b", "s", "s"}, {"y"}), "training_mode", int64_t{1});
    m.output("y");
    add(node_case("batch norm training", m, "BatchNormalization", "attribute 'training_mode' is 1"));
  }
  {
    Model m;
    m.x().floats("s", {1, 1, 1, 1});
    attr(m.node("LayerNormalization", {"x", "s"}, {"y"}), "axis", int64_t{4});
    m.output("y");
    add(node_case("layer norm axis", m, "LayerNormalization", "attribute 'axis' is 4"));
  }
  {
    Model m;
    m.x();
    attr(m.node("Softmax", {"x"}, {"y"}), "axis", int64_t{-5});
    m.output("y");
    add(node_case("softmax axis", m, "Softmax", "attribute 'axis' is -5"));
  }
  auto resize = [](const std::vector<std::string>& ins) {
    Model m;
    m.x().node("Resize", ins, {"y"});
    m.output("y");
    return m;
  };
  auto resize_attr = [&](const std::string& label, const char* name, const char* value, const char* expect) {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 2, 2});
    if (std::string(name) != "mode") attr(t_node(m), "mode", "linear");
    attr(t_node(m), name, value);
    add(node_case(label, m, "Resize", expect));
  };
  resize_attr("resize mode", "mode", "bicubic", "attribute 'mode' is 'bicubic'; expected nearest, linear or cubic");
  resize_attr("resize coordinate mode", "coordinate_transformation_mode", "center",
              "attribute 'coordinate_transformation_mode' is 'center'; expected half_pixel");
  resize_attr("resize nearest mode", "nearest_mode", "round", "attribute 'nearest_mode' is 'round'; expected");
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 2, 2});
    attr(t_node(m), "mode", "cubic");
    attr(t_node(m), "exclude_outside", int64_t{2});
    add(node_case("resize exclude_outside", m, "Resize", "attribute 'exclude_outside' is 2; expected 0 or 1"));
  }
  // Opset 18's attributes.
  auto resize18 = [](const std::vector<std::string>& ins) {
    Model m(18);
    m.x().node("Resize", ins, {"y"});
    m.output("y");
    return m;
  };
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {2});
    attr(t_node(m), "axes", std::vector<int64_t>{4});
    add(node_case("resize axes out of range", m, "Resize", "attribute 'axes' is [4]; expected axes in [-4, 3]", 18));
  }
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {2, 2});
    attr(t_node(m), "axes", std::vector<int64_t>{2, -2});
    add(node_case("resize an axis twice", m, "Resize", "attribute 'axes' is [2, -2]; expected each axis once", 18));
  }
  {
    Model m = resize18({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, 8, 8});
    attr(t_node(m), "keep_aspect_ratio_policy", "fit");
    add(node_case("resize aspect policy", m, "Resize", "attribute 'keep_aspect_ratio_policy' is 'fit'", 18));
  }
  {
    Model m = resize18({"x", "", "scales"});
    m.floats("scales", {1, 1, 0.5f, 0.5f});
    attr(t_node(m), "mode", "linear");
    attr(t_node(m), "antialias", int64_t{3});
    add(node_case("resize antialias", m, "Resize", "attribute 'antialias' is 3; expected 0 or 1", 18));
  }
  {
    Model m = resize({"x", "", "scales", "sizes"});
    m.floats("scales", {1, 1, 2, 2}).ints("sizes", {1, 2, 8, 8});
    add(node_case("resize scales and sizes", m, "Resize", "both the scales, input 2 'scales', and the sizes"));
  }
  add(node_case("resize without scales or sizes", resize({"x"}), "Resize",
                "neither the scales, input 2 'scales', nor the sizes, input 3 'sizes', are given"));
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {8, 8});
    add(node_case("resize sizes count", m, "Resize", "the sizes, input 3 'sizes', are [8, 8]; expected 4 sizes"));
  }
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, -8, 8});
    add(node_case("resize negative size", m, "Resize",
                  "the sizes, input 3 'sizes', are [1, 2, -8, 8]; expected sizes in"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.input("scales", {"4"});
    add(node_case("resize scales at run time", m, "Resize", "the scales, input 2 'scales',"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {2, 2});
    add(node_case("resize scales count", m, "Resize", "the scales, input 2 'scales', are [2, 2]; expected 4 scales"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 0, 2});
    add(node_case("resize scale of 0", m, "Resize", "the scales, input 2 'scales', are [1, 1, 0, 2]; expected finite"));
  }
  {
    Model m = resize({"x", "", "scales"});
    m.floats("scales", {1, 1, 1e9f, 1});
    add(node_case("resize to a huge size", m, "Resize", "the scales, input 2 'scales', give axis 2 of"));
  }
  {
    Model m = resize({"x", "", "", "sizes"});
    m.ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize tf_crop_and_resize without roi", m, "Resize",
                  "attribute 'coordinate_transformation_mode' is tf_crop_and_resize, but the roi, input 1 'roi'"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.input("roi", {"8"}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi at run time", m, "Resize", "the roi, input 1 'roi',"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.floats("roi", {0, 1}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi count", m, "Resize", "the roi, input 1 'roi', is [0, 1]; expected 8 values"));
  }
  {
    Model m = resize({"x", "roi", "", "sizes"});
    m.floats("roi", {0, 0, 0, 0, 1, 1, 1, std::numeric_limits<float>::infinity()}).ints("sizes", {1, 2, 3, 3});
    attr(t_node(m), "coordinate_transformation_mode", "tf_crop_and_resize");
    add(node_case("resize roi not finite", m, "Resize", "the roi, input 1 'roi', is [0, 0, 0, 0, 1, 1, 1, inf]"));
  }
  {
    Model m;
    m.input("x", {"1", "2", "4", "4"}, TensorProto::DOUBLE).floats("scales", {1, 1, 2, 2});
    m.node("Resize", {"x", "", "scales"}, {"y"});
    m.output("y");
    add(node_case("resize of doubles", m, "Resize",
                  "(value 'x', f64[1, 2, 4, 4]) is of type f64; expected f32 or f16 (the types the resize kernels"));
  }

  // ---- LRN (ops_nn.cpp) ----
  {
    Model m;
    attr(m.x().node("LRN", {"x"}, {"y"}), "size", int64_t{0});
    m.output("y");
    add(node_case("lrn size 0", m, "LRN", "attribute 'size' is 0; expected a window in [1, 2147483648]"));
  }
  // ---- LSTM, GRU, RNN (ops_recurrent.cpp) ----
  // X [seq 2, batch 1, input 3], hidden 2.
  auto recurrent = [](const std::string& op, int64_t gates, int64_t opset = 17, int elem = TensorProto::FLOAT) {
    Model m(opset);
    m.input("x", {"2", "1", "3"}, elem);
    if (elem == TensorProto::FLOAT) {
      m.weight("w", {1, 2 * gates, 3}).weight("r", {1, 2 * gates, 2});
    } else {
      m.input("w", {"1", std::to_string(2 * gates), "3"}, elem).input("r", {"1", std::to_string(2 * gates), "2"}, elem);
    }
    m.node(op, {"x", "w", "r"}, {"y"});
    m.output("y");
    return m;
  };
  auto strings = [](onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(AttributeProto::STRINGS);
    for (const auto& s : v) a->add_strings(s);
  };
  {
    Model m = recurrent("LSTM", 4);
    attr(t_node(m), "direction", "sideways");
    add(node_case("recurrent direction", m, "LSTM",
                  "attribute 'direction' is 'sideways'; expected 'forward', 'reverse' or 'bidirectional'"));
  }
  {
    Model m = recurrent("GRU", 3);
    attr(t_node(m), "layout", int64_t{2});
    add(node_case("recurrent layout", m, "GRU", "attribute 'layout' is 2; expected 0 or 1"));
  }
  add(node_case("recurrent in double", recurrent("RNN", 1, 17, TensorProto::DOUBLE), "RNN",
                "input 0 'X' (value 'x', f64[2, 1, 3]) is not float; edgec's rnn computes in float only"));
  {
    Model m = recurrent("RNN", 1);
    attr(t_node(m), "hidden_size", int64_t{0});
    add(node_case("recurrent hidden size", m, "RNN", "attribute 'hidden_size' is 0; expected a positive size"));
  }
  {
    Model m = recurrent("GRU", 3);
    strings(t_node(m), "activations", {"Sigmoid", "Tanh", "Tanh"});
    add(node_case("recurrent activation count", m, "GRU",
                  "attribute 'activations' has 3 entries; expected 2 (2 per direction)"));
  }
  {
    Model m = recurrent("RNN", 1);
    strings(t_node(m), "activations", {"Gelu"});
    add(node_case("recurrent unknown activation", m, "RNN", "attribute 'activations' holds 'Gelu'"));
  }
  {
    Model m = recurrent("LSTM", 4);
    attr(t_node(m), "clip", -1.0f);
    add(node_case("recurrent clip", m, "LSTM", "attribute 'clip' is -1.000000; expected a positive threshold"));
  }
  // ---- LpPool, GlobalLpPool (ops_nn.cpp) ----
  {
    Model m = Model().x();
    m.node("GlobalLpPool", {"x"}, {"y"});
    attr(t_node(m), "p", int64_t{0});
    m.output("y");
    add(node_case("lp pool order", m, "GlobalLpPool", "attribute 'p' is 0; expected an order >= 1"));
  }
  {
    Model m = Model(18).x();
    m.node("LpPool", {"x"}, {"y"});
    attr(t_node(m), "kernel_shape", std::vector<int64_t>{2, 2});
    attr(t_node(m), "ceil_mode", int64_t{1});
    m.output("y");
    add(node_case("lp pool ceil mode", m, "LpPool", "attribute 'ceil_mode' is 1; expected 0", 18));
  }
}

}  // namespace edgec::refusal_cases
