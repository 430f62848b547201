#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> pooling_kernels() { return {}; }

}  // namespace edgec
