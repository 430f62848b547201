// The kernel lists of each operator family; registry.cpp gathers them.
#pragma once

#include <span>

#include "kernels/registry.h"

namespace edgec {

std::span<const KernelEntry> elementwise_kernels();    // elementwise.cpp and friends
std::span<const KernelEntry> reduction_kernels();      // reduction.cpp
std::span<const KernelEntry> linalg_kernels();         // linalg.cpp
std::span<const KernelEntry> normalization_kernels();  // normalization.cpp
std::span<const KernelEntry> convolution_kernels();    // convolution.cpp
std::span<const KernelEntry> pooling_kernels();        // pooling.cpp
std::span<const KernelEntry> resize_kernels();         // resize.cpp
std::span<const KernelEntry> shape_kernels();          // shape.cpp
std::span<const KernelEntry> indexing_kernels();       // indexing.cpp
std::span<const KernelEntry> scatter_kernels();        // scatter.cpp
std::span<const KernelEntry> creation_kernels();       // creation.cpp
std::span<const KernelEntry> recurrent_kernels();      // recurrent.cpp
std::span<const KernelEntry> detection_kernels();      // detection.cpp
std::span<const KernelEntry> grid_sample_kernels();    // grid_sample.cpp
std::span<const KernelEntry> unique_kernels();         // unique.cpp
std::span<const KernelEntry> spectral_kernels();       // spectral.cpp
std::span<const KernelEntry> quantized_kernels();          // quantized.cpp
std::span<const KernelEntry> quantized_conv_kernels();     // quantized_conv.cpp
std::span<const KernelEntry> quantized_matmul_kernels();   // quantized_matmul.cpp
std::span<const KernelEntry> quantized_ms_kernels();   // quantized_ms.cpp

}  // namespace edgec
