#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> shape_kernels() { return {}; }

}  // namespace edgec
