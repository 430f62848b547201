// The xnnpack delegate's execution state, shared by runtime.cpp (init,
// layouts, planning, execute) and the builders (runtime_ops.cpp). XNNPACK's
// operator API binds an operator to its input and output pointers when it
// is set up, so everything is made once at init and set up once, over
// memory that never moves: the delegate's planned buffers and constants it
// laid out. execute copies the caller's inputs in (or converts them to
// NHWC), runs the operators and copies the outputs out: it never
// allocates.
//
// Layout: the program is NCHW (ONNX's); XNNPACK's convolutions, pooling and
// resize are NHWC. A value may be held plain (row-major, the IR's layout),
// in NHWC (a rank-4 value's N, H, W, C order), or both: a step that needs
// the other form gets a conversion made where it is first needed, so
// consecutive NHWC steps hand their activations on without one, and only
// the delegate's edges, or a step that needs NCHW, convert. A rank-3 value
// (a 1-D convolution's N, C, L) is held channels-last the same way, as
// N, L, C: "NHWC" below means channels last, whatever the rank.
//
// float16: a handle runs its f16 steps natively (XNNPACK's f16 operators)
// only where the chosen instruction set has float16 arithmetic
// (kernel_isa_has_f16_arithmetic) and XNNPACK creates them; otherwise the
// whole handle holds its f16 values in f32 (f16_as_f32): constants are
// widened at init, the caller's f16 inputs are widened as they enter and
// the outputs narrowed as they leave, and every step in between is an f32
// one. All or nothing per handle, so no f16 step ever meets an f32 one.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "runtime/buffer_plan.h"
#include "runtime/delegate.h"
#include "runtime/f16_edges.h"
#include "runtime/program.h"

namespace edgec::runtime::xnnpack {

enum class Layout : uint8_t { Plain, Nhwc };

/// Where one form of a value is: a planned buffer, memory that never moves
/// (a mapped constant, or one init laid out), or the caller's input tensor
/// of slot `input` (whose pointer changes at every execute: own loops may
/// read it, XNNPACK operators never do).
struct Place {
  int32_t buffer = -1;
  const std::byte* fixed = nullptr;
  int32_t input = -1;
  bool present() const { return buffer >= 0 || fixed || input >= 0; }
  bool stable() const { return buffer >= 0 || fixed; }
};

struct SlotState {
  std::vector<int64_t> shape;  ///< Static (the partitioner took nothing else).
  DType dtype = DType::Float32;       ///< What the delegate holds it in.
  DType edge_dtype = DType::Float32;  ///< The program's (and the caller's): f16 where dtype is f32 in f16_as_f32.
  SlotKind kind = SlotKind::Activation;
  /// A delegate input: the caller's data for this run; a constant: its
  /// mapped bytes (what weights are packed from).
  const std::byte* data = nullptr;
  Place plain, nhwc;                 ///< The forms the value is held in (one or both).
  Place edge;                        ///< f16_as_f32 outputs: the value narrowed to f16, plain.
  size_t bytes = 0;                  ///< Of the whole value as held (set with the shape, at init).
  size_t nbytes() const { return bytes; }
  /// Of the whole value in the program's dtype (what the caller passes).
  size_t edge_nbytes() const { return bytes / dtype_size(dtype) * dtype_size(edge_dtype); }
  bool widened() const { return edge_dtype != dtype; }
  int64_t numel() const { return static_cast<int64_t>(bytes / dtype_size(dtype)); }
};

/// One unit of work: an XNNPACK operator, set up once after the buffers
/// are placed, or a loop of the delegate's own (a layout conversion, a
/// copy), which reads its pointers when it runs.
struct Step {
  xnn_operator_t op = nullptr;            ///< Owned; deleted with the delegate.
  std::function<xnn_status()> setup;      ///< For op, once the buffers are placed.
  std::function<void()> loop;             ///< Set for loops; op is then null.
  std::string what;                       ///< "instruction 3 (conv)" for errors.
  std::string name;                       ///< "conv+clamp" for the profile.
};

/// The delegate's execution state (runtime/delegate.h).
struct Delegate final : DelegateHandle {
  Delegate() = default;
  Delegate(const Delegate&) = delete;
  Delegate& operator=(const Delegate&) = delete;
  ~Delegate() override;
  size_t num_inputs() const override { return inputs.size(); }
  size_t num_outputs() const override { return outputs.size(); }
  Error run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) override;
  std::vector<std::string> step_names() const override;

  pthreadpool_t pool = nullptr;  ///< Sized by init's thread count; null for one thread.
  int threads = 1;
  bool f16_as_f32 = false;       ///< f16 values held and computed in f32 (runtime_state.h's header).
  std::vector<SlotState> slots;
  std::vector<Step> steps;
  std::vector<PlannedBuffer> buffers;
  std::byte* base = nullptr;                       ///< Every planned buffer (in block).
  std::unique_ptr<std::byte[]> block;
  std::vector<std::unique_ptr<std::byte[]>> owned;  ///< Constants laid out at init.
  std::vector<int32_t> inputs, outputs;            ///< Slot indices, signature order.
  std::vector<std::unique_ptr<std::byte[]>> staging;  ///< Per input: where a strided input is packed.

  // Build-time analysis and memory (cleared after init).
  std::vector<std::unique_ptr<std::byte[]>> widened;  ///< f16 constants in f32, until XNNPACK has packed them.
  std::vector<int32_t> readers;     ///< Per slot: instructions reading it (counted once each).
  std::vector<int32_t> reader;      ///< Per slot: the last instruction reading it.
  std::vector<bool> is_output;      ///< Per slot: a delegate output.
  std::vector<bool> fused;          ///< Per instruction: built as part of an earlier one.
  std::vector<int32_t> touched;     ///< Buffers used by the instruction being built.

  /// The address of `p` (buffers placed; an input's for this run).
  std::byte* at(const Place& p) const {
    if (p.buffer >= 0) return base + buffers[static_cast<size_t>(p.buffer)].offset;
    if (p.fixed) return const_cast<std::byte*>(p.fixed);
    return const_cast<std::byte*>(slots[static_cast<size_t>(p.input)].data);
  }

  /// `slot` held plain; `stable`: at an address that never moves (a copy
  /// of a delegate input is made for it once). Adds the conversion or copy
  /// step where the value is not held so yet.
  Place plain(int32_t slot, bool stable = true);
  /// `slot` (rank 3 or 4) held in NHWC (NLC) at an address that never moves.
  Place nhwc(int32_t slot);
  /// Whether `slot` is held in NHWC and not plain: the form a layout-free
  /// step (elementwise) keeps.
  bool in_nhwc(int32_t slot) const;
  /// Makes `slot` the output of the step being built, in `layout`.
  Place define(int32_t slot, Layout layout);
  /// Memory init fills and keeps (constants laid out for XNNPACK), with
  /// the XNN_EXTRA_BYTES XNNPACK may read past an operand.
  std::byte* own(size_t bytes);
  /// Makes `view` share `base`'s plain form (a reshape).
  void alias(int32_t view, int32_t base);
  /// Appends an operator step: `status` is its create call's, `setup` sets
  /// it up on the placed buffers. Throws XnnpackRefused when create failed.
  void add_op(xnn_status status, xnn_operator_t op, const char* create, std::function<xnn_status(xnn_operator_t)> setup,
              std::string what, std::string name);
  /// Appends a loop step.
  void add_loop(std::function<void()> loop, std::string what, std::string name);
  /// A buffer read or written by the instruction being built.
  void touch(const Place& p) {
    if (p.buffer >= 0) touched.push_back(p.buffer);
  }
  /// After an instruction (group) is built: the buffers it touched are
  /// live over its steps from `first_step` on.
  void finish_instruction(size_t first_step);
};

/// A payload whose instructions do not fit their slots: thrown by the
/// builders, reported by init as InvalidProgram.
struct InvalidPayload : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// XNNPACK refused to create an operator the partitioner took: reported by
/// init as NotSupported, naming the create call and its status (init first
/// retries a handle refused f16 operators in f16_as_f32).
struct XnnpackRefused : std::runtime_error {
  XnnpackRefused(const std::string& what, xnn_status s) : std::runtime_error(what), status(s) {}
  xnn_status status;
};

inline void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidPayload(what);
}

/// What a builder sees: the delegate, the program and the instruction.
struct Ctx {
  Delegate& d;
  const Program& program;
  size_t index;
  const Instruction& in() const { return program.instructions()[index]; }
  const Instruction& at(int32_t i) const { return program.instructions()[static_cast<size_t>(i)]; }
  int32_t input(size_t i) const {
    require(i < in().inputs.size(), "has fewer operands than its operator takes");
    return in().inputs[i];
  }
  int32_t output(size_t i = 0) const {
    require(i < in().outputs.size(), "has fewer results than its operator gives");
    return in().outputs[i];
  }
  const SlotState& slot(int32_t s) const { return d.slots[static_cast<size_t>(s)]; }
  const std::vector<int64_t>& shape(int32_t s) const { return slot(s).shape; }
  bool is_constant(int32_t s) const { return slot(s).kind == SlotKind::Constant; }
  /// "instruction 3 (conv)" for step descriptions.
  std::string what() const { return "instruction " + std::to_string(index) + " (" + in().op + ")"; }
};

// f16 held in f32 (runtime_f16.cpp), for a handle in f16_as_f32.
/// What the profile's name of a step computing f16 values in f32 ends with.
inline constexpr const char* kAsF32Suffix = kF16AsF32Suffix;  // runtime/f16_edges.h, shared with onednn
/// The f16 constants (and state) widened into `d.widened`, their data
/// pointing there.
void widen_constants(Delegate& d);
/// Steps that widen each f16 input from its staging copy (run fills it)
/// into the f32 buffer the steps read: before the first instruction's.
void add_input_widening(Delegate& d);
/// Steps that narrow each f16 output into its f16 buffer (SlotState::edge),
/// which run copies out: after the last instruction's.
void add_output_narrowing(Delegate& d);

/// Appends the steps of the instruction `c.index` and of the later ones it
/// fuses (runtime_ops.cpp), with its operator table row's builder.
Error build_instruction(Ctx& c);

// The builders the operator table names (runtime_ops.cpp).
Error build_conv(Ctx& c);
Error build_conv_transpose(Ctx& c);
Error build_matmul(Ctx& c);
Error build_pool(Ctx& c);
Error build_mean(Ctx& c);
Error build_adaptive_pool(Ctx& c);
Error build_resize(Ctx& c);
Error build_softmax(Ctx& c);
Error build_unary(Ctx& c);
Error build_binary(Ctx& c);
Error build_concat(Ctx& c);
Error build_view(Ctx& c);
Error build_clone(Ctx& c);
// The integer ones (runtime_quant.cpp).
Error build_qlinear_conv(Ctx& c);
Error build_qlinear_matmul(Ctx& c);

}  // namespace edgec::runtime::xnnpack
