// Argument checks that every kernel family makes alike, so that their
// messages read the same whichever kernel fails: "<op>: expected ..., got
// ...". A family adds its own checks on top (elementwise_common.h,
// shape_common.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/error.h"
#include "kernels/tensor.h"

namespace edgec {

/// The input and output counts.
Error check_arity(std::string_view op, std::span<const Tensor> inputs, size_t num_inputs,
                  std::span<Tensor> outputs, size_t num_outputs);

/// Only the output count; for kernels whose input count varies.
Error check_num_outputs(std::string_view op, std::span<Tensor> outputs, size_t num_outputs);

/// InvalidType unless `out` has dtype `expected`.
Error check_output_dtype(std::string_view op, const Tensor& out, DType expected);

/// Tensor::resize with the op name in front of its message.
Error resize_output(std::string_view op, Tensor& out, std::span<const int64_t> shape);

}  // namespace edgec
