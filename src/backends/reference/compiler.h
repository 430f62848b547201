// The `reference` backend's ahead-of-time side. It runs delegate programs on
// the portable kernels, so it exists to test the lowering rules (docs/semantics.md
// 4-6) end to end, not to be fast: the partitioner takes any core operator
// in its operator set, and the payload is the delegate program itself as a
// program-file table without tensor bytes.
#pragma once

#include <string>

#include "lowering/backend.h"

namespace edgec {

class ReferenceCompiler final : public BackendCompiler {
 public:
  ReferenceCompiler();  // partitioner.cpp
  /// options: "" (every core operator) or "add+matmul" (edge base names).
  std::unique_ptr<Partitioner> make_partitioner(const std::string& options) const override;  // partitioner.cpp
  std::vector<std::byte> preprocess(const Program& delegate) const override;                 // preprocess.cpp
};

const BackendCompiler& reference_backend_compiler();

}  // namespace edgec
