// ONNX's detection and sampling operators: NonMaxSuppression, RoiAlign and
// GridSample, on edgec's kernels of the same names (src/kernels/detection.cpp
// and grid_sample.cpp compute ONNX's semantics with ONNX Runtime's
// arithmetic). A NonMaxSuppression result has a data-dependent row count,
// bounded when max_output_boxes_per_class is known when compiling
// (docs/architecture.md, "Adding an operator").
#include <algorithm>
#include <string>
#include <vector>

#include "frontends/onnx/context.h"

namespace edgec::onnx_import {
namespace {


/// One of `choices`, else a refusal naming the attribute.
std::string attr_choice(NodeContext& n, const std::string& name, const std::string& dflt,
                        std::initializer_list<const char*> choices) {
  const std::string v = n.attr_string(name, dflt);
  std::string listed;
  for (const char* c : choices) {
    if (v == c) return v;
    listed += (listed.empty() ? "" : ", ") + std::string(c);
  }
  n.fail("attribute '" + name + "' is '" + v + "'; expected one of " + listed);
}

// NonMaxSuppression: the optional scalars are passed up to the last one
// given; one left out before it takes ONNX's default (no boxes, IoU 0).
// A max_output_boxes_per_class known at import time bounds the result's
// rows (max_boxes_bound); otherwise every box of every class may be kept.
void non_max_suppression(NodeContext& n) {
  const int64_t center = n.attr_int("center_point_box", 0);
  if (center != 0 && center != 1)
    n.fail("attribute 'center_point_box' is " + std::to_string(center) + "; expected 0 or 1");
  Attrs attrs = attrs_of({{"center_point_box", center == 1}});
  std::vector<Value*> ins = {n.value(0), n.value(1)};
  size_t last = 1;
  for (size_t i = 2; i < 5; ++i)
    if (n.input(i)) last = i;
  for (size_t i = 2; i <= last; ++i) {
    if (n.input(i)) {
      ins.push_back(n.value(i));
    } else {
      ins.push_back(n.im().full({}, 0.0, i == 2 ? DType::Int64 : DType::Float32, n.hint() + "_default"));
    }
  }
  if (n.input(2)) {
    if (const TensorData* d = n.data(2)) {
      const std::vector<int64_t> v = data_as_ints(*d);
      if (v.size() != 1)
        n.fail(n.typed_operand(2) + " holds " + std::to_string(v.size()) + " values; expected one");
      attrs.set("max_boxes_bound", std::max<int64_t>(v[0], 0));
    }
  }
  n.set_output(0, n.im().emit_n("non_max_suppression", ins, attrs, n.hint())[0]);
}

// RoiAlign: opset 16 added coordinate_transformation_mode (default
// half_pixel); before, ROIs were not shifted by half a pixel, which is
// output_half_pixel.
void roi_align(NodeContext& n) {
  const std::string mode = attr_choice(n, "mode", "avg", {"avg", "max"});
  const std::string coords = n.opset() >= 16 ? attr_choice(n, "coordinate_transformation_mode", "half_pixel",
                                                           {"half_pixel", "output_half_pixel"})
                                             : "output_half_pixel";
  const int64_t oh = n.attr_int("output_height", 1), ow = n.attr_int("output_width", 1);
  const int64_t ratio = n.attr_int("sampling_ratio", 0);
  if (oh < 1 || ow < 1)
    n.fail("attributes 'output_height' and 'output_width' are " + std::to_string(oh) + " and " + std::to_string(ow) +
           "; expected sizes of at least 1");
  if (ratio < 0) n.fail("attribute 'sampling_ratio' is " + std::to_string(ratio) + "; expected 0 (adaptive) or more");
  if (n.type(0).rank() != 4) n.fail(n.typed_operand(0) + " has rank " + std::to_string(n.type(0).rank()) + "; expected [N, C, H, W]");
  n.set_output(0, n.emit("roi_align", {n.value(0), n.value(1), n.value(2)},
                         attrs_of({{"mode", mode},
                                   {"coordinate_transformation_mode", coords},
                                   {"output_height", oh},
                                   {"output_width", ow},
                                   {"sampling_ratio", ratio},
                                   {"spatial_scale", n.attr_float("spatial_scale", 1.0)}})));
}

// GridSample: opset 16's modes are bilinear, nearest and bicubic on 2-D
// inputs; opset 20 names them linear, nearest and cubic and adds 3-D
// inputs (cubic stays 2-D).
void grid_sample(NodeContext& n) {
  const bool v20 = n.opset() >= 20;
  std::string mode = v20 ? attr_choice(n, "mode", "linear", {"linear", "nearest", "cubic"})
                         : attr_choice(n, "mode", "bilinear", {"bilinear", "nearest", "bicubic"});
  if (mode == "bilinear") mode = "linear";
  if (mode == "bicubic") mode = "cubic";
  const std::string padding = attr_choice(n, "padding_mode", "zeros", {"zeros", "border", "reflection"});
  const int64_t align = n.attr_int("align_corners", 0);
  if (align != 0 && align != 1) n.fail("attribute 'align_corners' is " + std::to_string(align) + "; expected 0 or 1");
  const int64_t rank = n.type(0).rank();
  if (rank != 4 && !(v20 && rank == 5))
    n.fail(n.typed_operand(0) + " has rank " + std::to_string(rank) + "; expected [N, C, H, W]" +
           (v20 ? " or [N, C, D, H, W]" : " (3-D inputs from opset 20)"));
  if (mode == "cubic" && rank != 4)
    n.fail("attribute 'mode' is 'cubic' for " + n.typed_operand(0) + "; cubic mode is for 2-D inputs [N, C, H, W]");
  n.set_output(0, n.emit("grid_sample", {n.value(0), n.value(1)},
                         attrs_of({{"mode", mode}, {"padding_mode", padding}, {"align_corners", align == 1}})));
}

}  // namespace

void register_detection_handlers(HandlerTable& t) {
  t["NonMaxSuppression"] = non_max_suppression;
  t["RoiAlign"] = roi_align;
  t["GridSample"] = grid_sample;
}

}  // namespace edgec::onnx_import
