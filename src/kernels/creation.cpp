#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> creation_kernels() { return {}; }

}  // namespace edgec
