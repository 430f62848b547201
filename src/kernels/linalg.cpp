#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> linalg_kernels() { return {}; }

}  // namespace edgec
