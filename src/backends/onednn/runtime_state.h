// The onednn delegate's execution state, shared by runtime.cpp (init,
// binding, execute) and the per-family builders (runtime_ops.cpp,
// runtime_gather.cpp). Everything here is made once at init: execute only
// points the boundary slots' memory objects at the caller's tensors and runs
// the steps, so it never allocates.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/program.h"

namespace edgec::runtime::onednn {

/// A oneDNN memory object over a slot, at a byte offset into it (views such
/// as slices read from inside their input); rebinding a slot moves it.
struct Binding {
  dnnl::memory memory;
  size_t offset = 0;
};

struct SlotState {
  std::byte* ptr = nullptr;     ///< Arena, mapped constant, or the caller's tensor.
  std::vector<int64_t> shape;   ///< Static (the partitioner took nothing else).
  DType dtype = DType::Float32;
  SlotKind kind = SlotKind::Activation;
  std::vector<Binding> bindings;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
};

/// One unit of work: a primitive with its arguments, or a loop of the
/// delegate's own (gather, broadcast copy) that reads slot pointers when run.
struct Step {
  dnnl::primitive primitive;
  std::unordered_map<int, dnnl::memory> args;
  dnnl::memory::desc scratchpad;      ///< Empty when the primitive needs none.
  std::function<Error()> run;         ///< Set for loops; primitive is then empty.
  std::string what;                   ///< "instruction 3 (conv)" for errors.
};

struct Delegate {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  int threads = 1;
  std::unique_ptr<std::byte[]> arena;  ///< Sized arena_size + 64 for alignment.
  std::vector<SlotState> slots;
  std::vector<Step> steps;
  std::vector<int32_t> inputs, outputs;     ///< Slot indices, signature order.
  std::vector<dnnl::memory> staging;        ///< Per input: where a strided input is packed.
  std::vector<bool> output_bound;           ///< Per output: slot rebound to the caller's tensor.
  dnnl::memory scratch;                     ///< Shared by every step (user scratchpad mode).
  /// Attributes every primitive is created with: user scratchpad, so that
  /// no primitive allocates when it runs.
  dnnl::primitive_attr attr() const {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }
  /// A memory object over slot `slot` (+ `offset` bytes) described by `md`,
  /// registered so that binding the slot moves it.
  dnnl::memory bind(int32_t slot, const dnnl::memory::desc& md, size_t offset = 0);
  /// Points every memory over `slot` at `ptr`.
  void rebind(int32_t slot, std::byte* ptr);
  /// Appends a primitive step, taking its scratchpad size from `pd`.
  void add(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args,
           std::string what);
};

/// dims for oneDNN: a scalar is [1] (oneDNN has no rank 0).
dnnl::memory::dims dnnl_dims(const std::vector<int64_t>& shape);
/// Row-major strides of `dims`.
dnnl::memory::dims plain_strides(const dnnl::memory::dims& dims);
/// A plain (row-major) f32 descriptor.
dnnl::memory::desc plain_md(const std::vector<int64_t>& shape);

/// Appends the steps of one instruction (runtime_ops.cpp). Throws
/// dnnl::error or returns an Error with a detail set.
Error build_instruction(Delegate& d, const Program& program, const Instruction& in, size_t index);
/// The gather family: take, index with one integer index (runtime_gather.cpp).
Error build_gather(Delegate& d, const Instruction& in, size_t index);
/// out = x broadcast to out's shape (numpy rules), a loop step.
void add_broadcast_copy(Delegate& d, int32_t x, int32_t out, std::string what);

}  // namespace edgec::runtime::onednn
