// The `onednn` backend's ahead-of-time side: a partitioner that takes the
// static-shape f32 calls oneDNN 2.6 (plus the delegate's own gather loops)
// can run, with a one-line reason for every call it refuses, and preprocess,
// whose payload is the delegate program as a program-file table without
// tensor bytes (like `reference`'s): the runtime side builds oneDNN
// primitives from its instructions once, at init.
#pragma once

#include <string>

#include "lowering/backend.h"

namespace edgec {

class OnednnCompiler final : public BackendCompiler {
 public:
  OnednnCompiler();  // partitioner.cpp
  /// options: none (throws CompileError on any).
  std::unique_ptr<Partitioner> make_partitioner(const std::string& options) const override;  // partitioner.cpp
  std::vector<std::byte> preprocess(const Program& delegate) const override;                 // preprocess.cpp
  /// Stores the weights of convolutions that oneDNN, on this machine,
  /// reads in a blocked layout in that layout (preprocess.cpp).
  void prepare_constants(Program& delegate, const std::set<std::string>& shared) const override;
  /// x86-64 only: the weights it stores are in the layouts oneDNN picks on
  /// the compiling CPU, and on ARM's NEON cores oneDNN 2.6 has only
  /// reference loops.
  std::optional<std::string> refuse_target(Target target) const override {
    if (target == Target::X86_64) return std::nullopt;
    return "it stores weights in the layouts oneDNN picks on this x86-64 CPU, and oneDNN 2.6 has no fast "
           "convolutions on ARM's NEON cores";
  }
};

const BackendCompiler& onednn_backend_compiler();

}  // namespace edgec
