#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> elementwise_kernels() { return {}; }

}  // namespace edgec
