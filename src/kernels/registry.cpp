#include "kernels/registry.h"

#include <algorithm>
#include <vector>

#include "kernels/families.h"

namespace edgec {
namespace {

struct Registry {
  std::vector<KernelEntry> entries;
  std::vector<std::string_view> names;

  Registry() {
    for (auto family : {elementwise_kernels(), reduction_kernels(), linalg_kernels(),
                        normalization_kernels(), convolution_kernels(), pooling_kernels(),
                        resize_kernels(), shape_kernels(), indexing_kernels(), creation_kernels()}) {
      entries.insert(entries.end(), family.begin(), family.end());
    }
    std::sort(entries.begin(), entries.end(),
              [](const KernelEntry& a, const KernelEntry& b) { return a.name < b.name; });
    for (const auto& e : entries) names.push_back(e.name);
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

KernelFn find_kernel(std::string_view op_name) {
  const auto& entries = registry().entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), op_name,
                             [](const KernelEntry& e, std::string_view n) { return e.name < n; });
  return (it != entries.end() && it->name == op_name) ? it->fn : nullptr;
}

std::span<const std::string_view> kernel_names() { return registry().names; }

}  // namespace edgec
