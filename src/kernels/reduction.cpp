#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> reduction_kernels() { return {}; }

}  // namespace edgec
