// Kernels of the shape family that live outside shape.cpp (to keep files
// small); shape.cpp lists them in shape_kernels().
#pragma once

#include <span>

#include "kernels/registry.h"

namespace edgec::shape_detail {

// shape_pad.cpp
Error pad_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                 std::span<Tensor> outputs);
Error tile_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs);
Error triu_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs);
Error tril_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs);

// shape_topk.cpp (listed by indexing_kernels())
Error topk_kernel(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                  std::span<Tensor> outputs);

}  // namespace edgec::shape_detail
