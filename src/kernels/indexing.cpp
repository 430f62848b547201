#include "kernels/families.h"

namespace edgec {

std::span<const KernelEntry> indexing_kernels() { return {}; }

}  // namespace edgec
