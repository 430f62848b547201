#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> convolution_kernels() { return {}; }

}  // namespace edgec
