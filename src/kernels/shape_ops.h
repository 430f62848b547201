// Kernels of the shape family that live outside shape.cpp (to keep files
// small), with their declarations; shape.cpp's shape_kernels() gathers them.
#pragma once

#include <span>

#include "kernels/registry.h"

namespace edgec::shape_detail {

std::span<const KernelEntry> pad_kernels();   // shape_pad.cpp: pad, tile, triu, tril
std::span<const KernelEntry> topk_kernels();  // shape_topk.cpp

}  // namespace edgec::shape_detail
