// The `onednn` backend's runtime side (see runtime.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/backend.h"

namespace edgec::runtime {

const Backend& onednn_backend();

namespace onednn {

/// Convolution weights that init, on this machine, reorders into a layout
/// of their own size (int8 weights: with oneDNN's compensation after them):
/// what the compiler stores in the file instead, so that init reads them in
/// place (no copy, no fresh memory at load).
struct ChosenWeights {
  size_t instruction = 0;  ///< The convolution (payload instruction index).
  size_t operand = 1;      ///< Its weights operand (3 for qlinear_conv, qlinear_matmul).
  std::string key;         ///< The weights' named-data key.
  /// The layout, as the conv attributes weights_strides, weights_blocks and
  /// weights_block_dims say it (stored_weights_layout reads them back).
  std::vector<int64_t> strides, blocks, block_dims;
  /// int8 weights only (empty otherwise): oneDNN's compensation (flags,
  /// compensation mask, asymmetric compensation mask), the attribute
  /// weights_extra. Their bytes are then the weights' and the compensation's.
  std::vector<int64_t> extra;
  std::vector<std::byte> bytes;  ///< The weights in that layout.
};

/// Builds the delegate `payload` as init does (with `num_threads`) and
/// returns the weights it reordered so. For the compiler: the runtime's own
/// choices, so the two cannot disagree on one machine.
Result<std::vector<ChosenWeights>> chosen_weight_layouts(std::span<const std::byte> payload,
                                                         const NamedDataMap& named_data, int num_threads);

}  // namespace onednn

}  // namespace edgec::runtime
