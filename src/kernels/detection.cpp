// Object-detection kernels, as ONNX defines them (ONNX Runtime's CPU
// kernels are the reference the tests compare with):
//   non_max_suppression(boxes, scores[, max_output_boxes_per_class,
//       iou_threshold, score_threshold]; center_point_box, max_boxes_bound)
//       ONNX NonMaxSuppression: i64 [n, 3] rows (batch, class, box), n data
//       dependent, and an i64 [boxes] workspace
//   roi_align(x, rois, batch_indices; mode, output_height, output_width,
//       sampling_ratio, spatial_scale, coordinate_transformation_mode)
//       ONNX RoiAlign: [rois, C, output_height, output_width]
//
// non_max_suppression visits each (batch, class) in order; its candidates
// (scores above score_threshold, when given) go by score, highest first,
// equal scores by box index, lowest first, and a candidate is kept unless
// its IoU with one kept before in the class exceeds iou_threshold, until
// max_output_boxes_per_class are kept. Boxes are [y1, x1, y2, x2] (either
// corner first) or, with center_point_box, [x_center, y_center, width,
// height]. The candidates' order is sorted into the workspace (the kernel
// allocates nothing), which is left zero.
//
// roi_align samples each output bin at sampling_ratio^2 points (or
// ceil(roi size / output size) per axis when it is 0) by bilinear
// interpolation, then averages them (avg) or takes the largest of the
// weighted corner values (max, as ONNX Runtime does). output_half_pixel
// (opset 10's behaviour) does not shift the ROI by half a pixel and makes
// ROIs at least 1x1; half_pixel shifts it by -0.5.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/f16_compute.h"
#include "kernels/families.h"
#include "kernels/shape_common.h"

namespace edgec {
namespace {

using namespace shape_detail;

std::string str(int64_t v) { return std::to_string(v); }

struct DetectionDecls {
  AttrDecl center_point_box = attr_bool("center_point_box", false);
  /// An upper bound on max_output_boxes_per_class known when compiling
  /// (-1: none); the result has at most batch * classes * min(boxes, bound)
  /// rows.
  AttrDecl max_boxes_bound = attr_int("max_boxes_bound", -1);
  AttrDecl mode = attr_string("mode", "avg", {"avg", "max"});
  AttrDecl output_height = attr_int("output_height", 1, AttrRule::Positive);
  AttrDecl output_width = attr_int("output_width", 1, AttrRule::Positive);
  AttrDecl sampling_ratio = attr_int("sampling_ratio", 0, AttrRule::NonNegative);
  AttrDecl spatial_scale = attr_float("spatial_scale", 1.0);
  AttrDecl coordinate_transformation_mode =
      attr_string("coordinate_transformation_mode", "half_pixel", {"half_pixel", "output_half_pixel"});
};

/// The element offset of index `idx` (rank entries) in `t`.
inline int64_t offset_of(const Tensor& t, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  int d = 0;
  for (int64_t i : idx) off += i * t.strides[d++];
  return off;
}

Error shape_error(std::string_view op, const std::string& what, const Tensor& t) {
  return fail(Error::InvalidShape, std::string(op) + ": expected " + what + ", got shape " + shape_string(t.shape()));
}

// ---- non_max_suppression -------------------------------------------------------

/// A scalar operand (one element, rank 0 or 1) of dtype `dtype`.
Error check_scalar(std::string_view op, const Tensor& t, DType dtype, const std::string& name) {
  if (t.dtype != dtype)
    return fail(Error::InvalidType, std::string(op) + ": expected " + name + " of dtype " +
                                        std::string(dtype_name(dtype)) + ", got " + std::string(dtype_name(t.dtype)));
  if (t.numel() != 1 || t.rank > 1) return shape_error(op, name + " of one element (shape [] or [1])", t);
  return Error::Ok;
}

struct BoxCorners {
  float x_min, y_min, x_max, y_max;
};

inline BoxCorners corners(const float* b, bool center_point) {
  if (center_point) {
    const float half_w = b[2] / 2, half_h = b[3] / 2;
    return {b[0] - half_w, b[1] - half_h, b[0] + half_w, b[1] + half_h};
  }
  return {std::min(b[1], b[3]), std::min(b[0], b[2]), std::max(b[1], b[3]), std::max(b[0], b[2])};
}

/// Whether two boxes overlap by more than `iou_threshold` (ONNX Runtime's
/// arithmetic: empty intersections and degenerate boxes never suppress).
bool suppresses(const float* a, const float* b, bool center_point, float iou_threshold) {
  const BoxCorners p = corners(a, center_point), q = corners(b, center_point);
  const float ix_min = std::max(p.x_min, q.x_min), ix_max = std::min(p.x_max, q.x_max);
  if (ix_max <= ix_min) return false;
  const float iy_min = std::max(p.y_min, q.y_min), iy_max = std::min(p.y_max, q.y_max);
  if (iy_max <= iy_min) return false;
  const float intersection = (ix_max - ix_min) * (iy_max - iy_min);
  if (intersection <= 0.0f) return false;
  const float area_p = (p.x_max - p.x_min) * (p.y_max - p.y_min);
  const float area_q = (q.x_max - q.x_min) * (q.y_max - q.y_min);
  const float union_area = area_p + area_q - intersection;
  if (area_p <= 0.0f || area_q <= 0.0f || union_area <= 0.0f) return false;
  return intersection / union_area > iou_threshold;
}

Error nms_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "non_max_suppression";
  const DetectionDecls& d = declared<DetectionDecls>();
  if (inputs.size() < 2 || inputs.size() > 5)
    return fail(Error::InvalidArgument, "non_max_suppression: expected 2 to 5 inputs, got " +
                                            str(static_cast<int64_t>(inputs.size())));
  EDGEC_TRY(check_num_outputs(kOp, outputs, 2));
  const Tensor& boxes = inputs[0];
  const Tensor& scores = inputs[1];
  for (const Tensor* t : {&boxes, &scores})
    if (t->dtype != DType::Float32)
      return fail(Error::InvalidType, "non_max_suppression: expected f32 boxes and scores, got " +
                                          std::string(dtype_name(t->dtype)));
  if (boxes.rank != 3 || boxes.sizes[2] != 4) return shape_error(kOp, "boxes [batch, boxes, 4]", boxes);
  const int64_t batch = boxes.sizes[0], num_boxes = boxes.sizes[1];
  if (scores.rank != 3 || scores.sizes[0] != batch || scores.sizes[2] != num_boxes)
    return shape_error(kOp, "scores [" + str(batch) + ", classes, " + str(num_boxes) + "] for boxes " +
                                shape_string(boxes.shape()),
                       scores);
  const int64_t classes = scores.sizes[1];
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], DType::Int64));
  EDGEC_TRY(check_output_dtype(kOp, outputs[1], DType::Int64));

  int64_t max_per_class = 0;  // absent: no output (ONNX's default)
  float iou_threshold = 0.0f;
  bool has_score_threshold = false;
  float score_threshold = 0.0f;
  if (inputs.size() > 2) {
    EDGEC_TRY(check_scalar(kOp, inputs[2], DType::Int64, "max_output_boxes_per_class"));
    max_per_class = std::max<int64_t>(*inputs[2].data_as<int64_t>(), 0);
  }
  if (inputs.size() > 3) {
    EDGEC_TRY(check_scalar(kOp, inputs[3], DType::Float32, "iou_threshold"));
    iou_threshold = *inputs[3].data_as<float>();
    if (!(iou_threshold >= 0.0f && iou_threshold <= 1.0f))
      return fail(Error::InvalidArgument, "non_max_suppression: expected an iou_threshold in [0, 1], got " +
                                              std::to_string(iou_threshold));
  }
  if (inputs.size() > 4) {
    EDGEC_TRY(check_scalar(kOp, inputs[4], DType::Float32, "score_threshold"));
    score_threshold = *inputs[4].data_as<float>();
    has_score_threshold = true;
  }
  bool center_point = false;
  int64_t bound = -1;
  EDGEC_TRY(bool_attr(kOp, attrs, d.center_point_box, center_point));
  EDGEC_TRY(int_attr(kOp, attrs, d.max_boxes_bound, bound));
  if (bound >= 0 && max_per_class > bound)
    return fail(Error::InvalidArgument, "non_max_suppression: max_output_boxes_per_class is " + str(max_per_class) +
                                            ", above the bound " + str(bound) +
                                            " the program was compiled with (max_boxes_bound)");

  const int64_t ws_shape[] = {num_boxes};
  EDGEC_TRY(resize_output(kOp, outputs[1], ws_shape));
  int64_t* order = outputs[1].data_as<int64_t>();
  // Rows go straight to the output; its capacity bounds them.
  int64_t* out = outputs[0].data_as<int64_t>();
  const int64_t capacity_rows = static_cast<int64_t>(outputs[0].capacity / (3 * sizeof(int64_t)));
  int64_t rows = 0;
  // Boxes are read as 4 consecutive floats: a strided boxes tensor is read
  // through a per-box copy.
  auto box_at = [&](int64_t b, int64_t i, float* tmp) {
    for (int k = 0; k < 4; ++k) tmp[k] = boxes.data_as<float>()[offset_of(boxes, {b, i, k})];
  };
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = scores.data_as<float>();
      auto score = [&](int64_t i) { return s[offset_of(scores, {b, c, i})]; };
      int64_t n = 0;
      for (int64_t i = 0; i < num_boxes; ++i)
        if (!has_score_threshold || score(i) > score_threshold) order[n++] = i;
      // Highest score first; equal scores by lower index. NaN scores pass
      // no threshold; without one they go last, so that the order is total.
      std::sort(order, order + n, [&](int64_t i, int64_t j) {
        const float a = score(i), bb = score(j);
        const bool a_nan = a != a, b_nan = bb != bb;
        if (a_nan != b_nan) return b_nan;
        if (!a_nan && a != bb) return a > bb;
        return i < j;
      });
      const int64_t first_row = rows;
      for (int64_t k = 0; k < n && rows - first_row < max_per_class; ++k) {
        float cand[4];
        box_at(b, order[k], cand);
        bool keep = true;
        for (int64_t r = first_row; r < rows && keep; ++r) {
          float kept[4];
          box_at(b, out[3 * r + 2], kept);
          keep = !suppresses(kept, cand, center_point, iou_threshold);
        }
        if (!keep) continue;
        if (rows >= capacity_rows)
          return fail(Error::InvalidShape, "non_max_suppression: more selected boxes than the output holds (" +
                                               str(capacity_rows) + " rows)");
        out[3 * rows] = b;
        out[3 * rows + 1] = c;
        out[3 * rows + 2] = order[k];
        ++rows;
      }
    }
  }
  std::fill(order, order + num_boxes, int64_t{0});
  const int64_t shape[] = {rows, 3};
  return resize_output(kOp, outputs[0], shape);
}

// ---- roi_align -----------------------------------------------------------------

template <typename T>
Error roi_align_typed(const Tensor& x, const Tensor& rois, const Tensor& batch_indices, Tensor& y, bool max_mode,
                      int64_t pooled_h, int64_t pooled_w, int64_t sampling_ratio, double spatial_scale_d,
                      bool half_pixel) {
  using C = Compute<T>;
  const int64_t channels = x.sizes[1], height = x.sizes[2], width = x.sizes[3];
  const int64_t num_rois = rois.sizes[0];
  const T* xd = x.data_as<T>();
  const T* rd = rois.data_as<T>();
  T* yd = y.data_as<T>();
  const C spatial_scale = static_cast<C>(spatial_scale_d);
  const int64_t plane = pooled_h * pooled_w;
  for (int64_t n = 0; n < num_rois; ++n) {
    const int64_t bi = read_index(batch_indices, n * batch_indices.strides[0]);
    if (bi < 0 || bi >= x.sizes[0])
      return fail(Error::IndexOutOfRange, "roi_align: batch index " + str(bi) + " of ROI " + str(n) +
                                              " is out of range for a batch of " + str(x.sizes[0]));
    auto roi = [&](int k) { return widen(rd[offset_of(rois, {n, k})]); };
    const C offset = half_pixel ? C(0.5) : C(0);
    const C start_w = roi(0) * spatial_scale - offset;
    const C start_h = roi(1) * spatial_scale - offset;
    const C end_w = roi(2) * spatial_scale - offset;
    const C end_h = roi(3) * spatial_scale - offset;
    C roi_w = end_w - start_w, roi_h = end_h - start_h;
    if (!half_pixel) {
      roi_w = std::max(roi_w, C(1));
      roi_h = std::max(roi_h, C(1));
    }
    const C bin_h = roi_h / static_cast<C>(pooled_h);
    const C bin_w = roi_w / static_cast<C>(pooled_w);
    const int64_t grid_h =
        sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_h / static_cast<C>(pooled_h)));
    const int64_t grid_w =
        sampling_ratio > 0 ? sampling_ratio : static_cast<int64_t>(std::ceil(roi_w / static_cast<C>(pooled_w)));
    const C count = static_cast<C>(std::max<int64_t>(grid_h * grid_w, 1));
    // Sample (iy, ix) of bin (ph, pw): its four corners and their weights
    // (all zero outside the map).
    struct Sample {
      int64_t y_low = 0, x_low = 0, y_high = 0, x_high = 0;
      C w1 = 0, w2 = 0, w3 = 0, w4 = 0;
    };
    auto sample = [&](int64_t ph, int64_t pw, int64_t iy, int64_t ix) {
      Sample p;
      C sy = start_h + static_cast<C>(ph) * bin_h +
             static_cast<C>(static_cast<float>(iy) + .5f) * bin_h / static_cast<C>(grid_h);
      C sx = start_w + static_cast<C>(pw) * bin_w +
             static_cast<C>(static_cast<float>(ix) + .5f) * bin_w / static_cast<C>(grid_w);
      if (sy < -1.0 || sy > static_cast<C>(height) || sx < -1.0 || sx > static_cast<C>(width)) return p;
      if (sy <= 0) sy = 0;
      if (sx <= 0) sx = 0;
      p.y_low = static_cast<int64_t>(sy);
      p.x_low = static_cast<int64_t>(sx);
      if (p.y_low >= height - 1) {
        p.y_high = p.y_low = height - 1;
        sy = static_cast<C>(p.y_low);
      } else {
        p.y_high = p.y_low + 1;
      }
      if (p.x_low >= width - 1) {
        p.x_high = p.x_low = width - 1;
        sx = static_cast<C>(p.x_low);
      } else {
        p.x_high = p.x_low + 1;
      }
      const C ly = sy - static_cast<C>(p.y_low), lx = sx - static_cast<C>(p.x_low);
      const C hy = C(1) - ly, hx = C(1) - lx;
      p.w1 = hy * hx;
      p.w2 = hy * lx;
      p.w3 = ly * hx;
      p.w4 = ly * lx;
      return p;
    };
    for (int64_t c = 0; c < channels; ++c) {
      auto at = [&](int64_t r, int64_t q) { return widen(xd[offset_of(x, {bi, c, r, q})]); };
      for (int64_t ph = 0; ph < pooled_h; ++ph) {
        for (int64_t pw = 0; pw < pooled_w; ++pw) {
          C acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const Sample p = sample(ph, pw, iy, ix);
              const C v1 = p.w1 * at(p.y_low, p.x_low), v2 = p.w2 * at(p.y_low, p.x_high);
              const C v3 = p.w3 * at(p.y_high, p.x_low), v4 = p.w4 * at(p.y_high, p.x_high);
              if (max_mode) {
                const C v = std::max(std::max(std::max(v1, v2), v3), v4);
                acc = first ? v : std::max(acc, v);
              } else {
                acc += v1 + v2 + v3 + v4;
              }
              first = false;
            }
          }
          if (!max_mode) acc /= count;
          yd[(n * channels + c) * plane + ph * pooled_w + pw] = narrow<T>(acc);
        }
      }
    }
  }
  return Error::Ok;
}

Error roi_align_kernel(KernelContext&, std::span<const Tensor> inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  constexpr std::string_view kOp = "roi_align";
  const DetectionDecls& d = declared<DetectionDecls>();
  EDGEC_TRY(check_arity(kOp, inputs, 3, outputs, 1));
  const Tensor& x = inputs[0];
  const Tensor& rois = inputs[1];
  const Tensor& batch_indices = inputs[2];
  if (x.dtype != DType::Float32 && x.dtype != DType::Float16 && x.dtype != DType::Float64)
    return fail(Error::InvalidType, "roi_align: expected an input of dtype f32, f16 or f64, got " +
                                        std::string(dtype_name(x.dtype)));
  if (rois.dtype != x.dtype)
    return fail(Error::InvalidType, "roi_align: expected rois of the input's dtype " +
                                        std::string(dtype_name(x.dtype)) + ", got " +
                                        std::string(dtype_name(rois.dtype)));
  EDGEC_TRY(check_index_dtype(kOp, batch_indices, "batch_indices"));
  EDGEC_TRY(check_output_dtype(kOp, outputs[0], x.dtype));
  if (x.rank != 4) return shape_error(kOp, "an input [N, C, H, W]", x);
  if (rois.rank != 2 || rois.sizes[1] != 4) return shape_error(kOp, "rois [num_rois, 4]", rois);
  if (batch_indices.rank != 1 || batch_indices.sizes[0] != rois.sizes[0])
    return shape_error(kOp, "batch_indices [" + str(rois.sizes[0]) + "], one per ROI", batch_indices);
  std::string_view mode, coords;
  int64_t oh = 1, ow = 1, ratio = 0;
  double scale = 1.0;
  EDGEC_TRY(read_attr(kOp, attrs, d.mode, mode));
  EDGEC_TRY(read_attr(kOp, attrs, d.coordinate_transformation_mode, coords));
  EDGEC_TRY(read_attr(kOp, attrs, d.output_height, oh));
  EDGEC_TRY(read_attr(kOp, attrs, d.output_width, ow));
  EDGEC_TRY(read_attr(kOp, attrs, d.sampling_ratio, ratio));
  EDGEC_TRY(read_attr(kOp, attrs, d.spatial_scale, scale));
  const int64_t shape[] = {rois.sizes[0], x.sizes[1], oh, ow};
  EDGEC_TRY(resize_output(kOp, outputs[0], shape));
  if (outputs[0].numel() == 0) return Error::Ok;
  if (x.sizes[2] == 0 || x.sizes[3] == 0) return shape_error(kOp, "an input of nonzero height and width", x);
  const bool max_mode = mode == "max", half_pixel = coords == "half_pixel";
  switch (x.dtype) {
    case DType::Float16:
      return roi_align_typed<Half>(x, rois, batch_indices, outputs[0], max_mode, oh, ow, ratio, scale, half_pixel);
    case DType::Float64:
      return roi_align_typed<double>(x, rois, batch_indices, outputs[0], max_mode, oh, ow, ratio, scale, half_pixel);
    default:
      return roi_align_typed<float>(x, rois, batch_indices, outputs[0], max_mode, oh, ow, ratio, scale, half_pixel);
  }
}

}  // namespace

std::span<const KernelEntry> detection_kernels() {
  const DetectionDecls& d = declared<DetectionDecls>();
  const OperandDecl max_boxes{"max_output_boxes_per_class", OperandKind::Optional},
      iou{"iou_threshold", OperandKind::Optional}, score{"score_threshold", OperandKind::Optional};
  static const KernelEntry kDetectionKernels[] = {
      {declare("non_max_suppression", "nn", {{"boxes"}, {"scores"}, max_boxes, iou, score},
               {d.center_point_box, d.max_boxes_bound}, {DType::Float32}, kOpDataDependent,
               "ONNX NonMaxSuppression: i64 [n, 3] (batch, class, box) rows and a workspace"),
       nms_kernel},
      {declare("roi_align", "nn", {{"self"}, {"rois"}, {"batch_indices"}},
               {d.mode, d.output_height, d.output_width, d.sampling_ratio, d.spatial_scale,
                d.coordinate_transformation_mode},
               {DType::Float32, DType::Float16, DType::Float64}, 0,
               "ONNX RoiAlign: [rois, C, output_height, output_width], avg or max of bilinear samples"),
       roi_align_kernel},
  };
  return kDetectionKernels;
}

}  // namespace edgec
