// ONNX Resize's coordinate arithmetic: where an output coordinate lands in
// the input (coordinate_transformation_mode) and which input index nearest
// mode picks there (nearest_mode). The `resize` kernel (resize.cpp) builds
// its taps from these; the ONNX importer compares them with torch's
// arithmetic (upsample_nearest_source) to decide when the faster
// upsample_nearest computes exactly the same indices. Both call the same
// compiled code, so the decision cannot drift from what the kernel does.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace edgec::resize {

/// ONNX's coordinate_transformation_mode values (tf_half_pixel_for_nn is
/// opset 11-12's, half_pixel_symmetric opset 19's).
enum class CoordMode : uint8_t {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn,
  TfCropAndResize,
};

/// resize's output_size entry for an axis sized at run time by its scale,
/// floor(input size * scale): the axis of a symbolic dim (its size is
/// known only when the program runs).
inline constexpr int64_t kSizeByScale = -1;

/// ONNX's nearest_mode values.
enum class NearestMode : uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };

/// The mode named `name` (ONNX's spelling), or nullopt.
std::optional<CoordMode> coord_mode_named(std::string_view name);
std::optional<NearestMode> nearest_mode_named(std::string_view name);

/// One resized axis as ONNX describes it. `scale` is ONNX's output / input
/// ratio: the given scale, or out / in when the output size is given. It
/// is not out / in in general: floor(in * scale) = out, and coordinates map
/// with the scale (a scale of 0.6 on 5 elements gives 3 outputs spaced
/// 1 / 0.6 apart).
struct AxisGeometry {
  int64_t in = 1;
  int64_t out = 1;
  double scale = 1;
  double roi_start = 0;  ///< tf_crop_and_resize only, normalized to [0, 1].
  double roi_end = 1;
};

/// The input coordinate (x_original) of output coordinate `o`. ONNX's
/// length_resized is scale * in, a real number (the spec defines scale as
/// length_resized / length_original), not the rounded output size; that
/// is what ONNX's own tests expect of align_corners with a scale of 0.6.
/// For tf_crop_and_resize a result outside [0, in - 1] means "use the
/// extrapolation value". Computed in double, without fused multiply-adds,
/// so nearest mode's ties round the same on every target.
double source_coordinate(CoordMode mode, const AxisGeometry& g, int64_t o);

/// The input index nearest mode picks at coordinate `x` (not clamped): an
/// integer x is itself, otherwise floor or ceil by `mode` (the round modes
/// decide at exactly .5 by their preference).
int64_t nearest_index(double x, NearestMode mode);

/// torch's nearest index (upsample_nearest's kernel): the float scale in /
/// out, the product floored in float; the 1x and 2x cases exact.
int64_t upsample_nearest_source(int64_t dst, int64_t in, int64_t out);

}  // namespace edgec::resize
