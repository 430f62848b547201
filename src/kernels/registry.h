// Portable CPU kernels by operator name. The interpreter (constant folding,
// `edgec eval`), the runtime and the reference backend all dispatch here, so
// each operator's semantics is written once.
//
// A kernel is a plain function of (context, inputs, attributes, outputs):
// - `inputs` are the tensor operands in schema order; a list operand
//   (concat's tensors, index's indices) is flattened in place, and an absent
//   trailing optional operand is simply not passed.
// - `outputs` arrive with dtype, data and capacity set by the caller; the
//   kernel sizes each with Tensor::resize (checking capacity) and writes it
//   contiguously.
// - Failures return an Error with a detail naming the operator and the
//   offending sizes (see fail()); kernels never throw, never allocate on the
//   heap, and never read or write outside the tensors they were given.
#pragma once

#include <span>
#include <string_view>

#include "base/attrs.h"
#include "base/error.h"
#include "kernels/op_decl.h"
#include "kernels/tensor.h"

namespace edgec {

struct KernelContext {
  int num_threads = 1;  ///< Upper bound on threads a kernel may use.
};

using KernelFn = Error (*)(KernelContext& ctx, std::span<const Tensor> inputs, const Attrs& attrs,
                           std::span<Tensor> outputs);

/// The kernel for a core operator's base name ("add", "convolution"), or
/// nullptr when there is none.
KernelFn find_kernel(std::string_view op_name);

/// Every registered base name, sorted (for tests and `edgec inspect`).
std::span<const std::string_view> kernel_names();

}  // namespace edgec

namespace edgec {

/// One row of a family's kernel list: the operator's declaration and its
/// kernel. Each family file exports its rows (e.g. elementwise_kernels())
/// and registry.cpp gathers them.
struct KernelEntry {
  OpDecl decl;
  KernelFn fn;
};

/// The declaration of the operator whose kernel is `op_name`, or nullptr
/// (no kernel: a composite or an unknown name).
const OpDecl* find_kernel_decl(std::string_view op_name);
/// Every kernel's row, sorted by name.
std::span<const KernelEntry> kernel_entries();

}  // namespace edgec
