// The `xnnpack` backend's ahead-of-time side: a partitioner that takes the
// static-shape f32 (and, where this XNNPACK has the operator, f16) calls
// the delegate's operator table lists, with a one-line reason for every
// call it refuses (partitioner.cpp, which defines the BackendCompiler),
// and the payload: the delegate program as a program-file table without
// tensor bytes, like `reference`'s (preprocess.cpp). The runtime side
// creates XNNPACK operators from its instructions once, at init.
#pragma once

#include <cstddef>
#include <vector>

#include "lowering/backend.h"

namespace edgec {

const BackendCompiler& xnnpack_backend_compiler();

/// The payload of a verified, memory-planned delegate program. Throws
/// CompileError as BackendCompiler::preprocess does.
std::vector<std::byte> xnnpack_payload(const Program& delegate);

}  // namespace edgec
