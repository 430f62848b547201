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
                        resize_kernels(), shape_kernels(), indexing_kernels(), scatter_kernels(),
                        creation_kernels(), recurrent_kernels(), detection_kernels(), grid_sample_kernels(),
                        unique_kernels(), spectral_kernels(), quantized_kernels(), quantized_conv_kernels(),
                        quantized_matmul_kernels(), quantized_ms_kernels()}) {
      entries.insert(entries.end(), family.begin(), family.end());
    }
    std::sort(entries.begin(), entries.end(),
              [](const KernelEntry& a, const KernelEntry& b) { return a.decl.name < b.decl.name; });
    for (const auto& e : entries) names.push_back(e.decl.name);
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

const KernelEntry* find_entry(std::string_view op_name) {
  const auto& entries = registry().entries;
  auto it = std::lower_bound(entries.begin(), entries.end(), op_name,
                             [](const KernelEntry& e, std::string_view n) { return e.decl.name < n; });
  return (it != entries.end() && it->decl.name == op_name) ? &*it : nullptr;
}

}  // namespace

KernelFn find_kernel(std::string_view op_name) {
  const KernelEntry* e = find_entry(op_name);
  return e ? e->fn : nullptr;
}

const OpDecl* find_kernel_decl(std::string_view op_name) {
  const KernelEntry* e = find_entry(op_name);
  return e ? &e->decl : nullptr;
}

std::span<const KernelEntry> kernel_entries() { return registry().entries; }

std::span<const std::string_view> kernel_names() { return registry().names; }

}  // namespace edgec
