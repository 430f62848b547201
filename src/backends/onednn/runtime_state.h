// The onednn delegate's execution state, shared by runtime.cpp (init,
// memory planning, binding, execute) and the builders (runtime_ops.cpp,
// runtime_fuse.cpp, runtime_gather.cpp). Everything here is made once at
// init: execute only points the boundary slots' memory objects at the
// caller's tensors and runs the steps, so it never allocates.
//
// Layout: a slot's value lives either in plain row-major form (at `ptr`) or
// in the blocked layout a convolution chose (in a buffer of its own), or
// both when some consumer needs it plain (a reorder step makes the plain
// copy where the first such consumer is built). Internal values live in
// buffers the delegate plans itself from the steps that use them, so a
// reshape is a view of its input's buffer and fused intermediates take no
// memory; the delegate's inputs and outputs are the caller's tensors.
//
// float16: the delegate holds every f16 value of the program in f32
// (SlotState::widened; runtime/f16_edges.h): f16 constants are widened once
// at init, f16 inputs widened by a first step from the caller's tensor and
// f16 outputs narrowed by a last step into it. Every step between computes
// in f32, so the builders see f32 slots only, and the f16 values inside are
// kept at f32 precision: a cast between f16 and f32 is the same values (as
// ONNX Runtime computes an f16 model on such a CPU, with its Cast pairs
// removed), rounded to f16 only where a value leaves as an f16 output. (oneDNN 2.6 has no f16 convolution
// on a CPU: f16_native_convolution() asks it on the running machine.)
#pragma once

#include <climits>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/buffer_plan.h"
#include "runtime/delegate.h"
#include "runtime/program.h"

namespace edgec::runtime::onednn {

/// A oneDNN memory object at a byte offset into some storage; moving the
/// storage moves it.
struct Binding {
  dnnl::memory memory;
  size_t offset = 0;
};

/// Storage the delegate plans (runtime/buffer_plan.h; offset is into
/// Delegate::buffers_base), with the memory objects and slots over it.
struct Buffer : PlannedBuffer {
  std::vector<Binding> bindings;
  std::vector<int32_t> slots;  ///< Slots whose plain data (ptr) is this buffer.
};

/// Memory for what init makes once and execute reads (reordered, folded or
/// transformed weights, the planned activation buffers): blocks of 1 MiB
/// and more packed into 64 MiB reservations of ordinary pages (see
/// allocate() for why not huge pages), so that no page is zeroed that is
/// not used; smaller blocks share 1 MiB chunks. Freed with the handle.
class InitMemory {
 public:
  InitMemory() = default;
  InitMemory(const InitMemory&) = delete;
  InitMemory& operator=(const InitMemory&) = delete;
  ~InitMemory();
  /// `bytes` (64-byte aligned), or nullptr when the system has none or the
  /// total would pass the limit.
  std::byte* allocate(size_t bytes);
  /// The most all allocations may total (runtime::memory_limit()).
  void set_limit(uint64_t limit) { limit_ = limit; }

 private:
  uint64_t limit_ = UINT64_MAX, total_ = 0;
  struct Chunk {
    std::byte* base;
    size_t size, used;
  };
  std::vector<Chunk> chunks_;
};

/// A memory descriptor most slots never have, kept out of line: oneDNN's
/// is 696 bytes, and two in every slot made a graph of 10^6 values cost
/// 1.4 GB before it had a step.
class RareDesc {
 public:
  /// The descriptor, or a zero one when there is none.
  const dnnl::memory::desc& get() const {
    static const dnnl::memory::desc kZero;
    return md_ ? *md_ : kZero;
  }
  operator const dnnl::memory::desc&() const { return get(); }
  bool is_zero() const { return !md_; }
  dnnl::memory::dims dims() const { return get().dims(); }
  bool operator==(const dnnl::memory::desc& other) const { return get() == other; }
  /// A zero descriptor frees the one held.
  RareDesc& operator=(const dnnl::memory::desc& md) {
    if (md.is_zero()) md_.reset();
    else md_ = std::make_unique<dnnl::memory::desc>(md);
    return *this;
  }

 private:
  std::unique_ptr<dnnl::memory::desc> md_;
};

struct SlotState {
  std::byte* ptr = nullptr;    ///< Plain data: mapped constant, caller's tensor, or a planned buffer.
  std::vector<int64_t> shape;  ///< Static (the partitioner took nothing else).
  DType dtype = DType::Float32;  ///< As held: f32 for the program's f16 (widened).
  bool widened = false;          ///< The program's f16 value, held in f32 (the header says how).
  SlotKind kind = SlotKind::Activation;
  bool io = false;             ///< A delegate input or output: ptr is bound at execute.
  std::vector<Binding> bindings;  ///< Memory objects over ptr (io and constant slots).
  int32_t buffer = -1;         ///< Internal: the buffer holding the plain data.
  bool plain_ready = false;    ///< The plain data is written by a step already built (or given).
  RareDesc blocked;            ///< Non-zero: the producer wrote this layout...
  int32_t blocked_buffer = -1; ///< ...into this buffer.
  /// Copies in other layouts made for consumers (layout, buffer).
  std::vector<std::pair<dnnl::memory::desc, int32_t>> converted;
  /// Non-zero: a constant whose bytes (at ptr) are stored in this layout,
  /// not row-major: convolution weights the compiler laid out as oneDNN
  /// chose on its machine (the conv's weights_strides attributes). Only
  /// convolutions read such a slot (init checks); plain_constant() makes
  /// the row-major copy a reader needs.
  RareDesc stored;
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
};

/// One unit of work: a primitive with its arguments, or a loop of the
/// delegate's own (gather, broadcast copy, group norm) that reads slot
/// pointers when run.
struct Step {
  dnnl::primitive primitive;
  /// The same primitive created for one thread, run while the run's thread
  /// cap is below `threads` (runtime_single.cpp); empty when none could be
  /// made (then the step runs on its threads whatever the cap).
  dnnl::primitive single;
  std::unordered_map<int, dnnl::memory> args;
  size_t scratch_bytes = 0;       ///< Of the shared scratchpad it uses (0: none).
  std::function<Error()> run;     ///< Set for loops; primitive is then empty.
  int threads = 1;                ///< OpenMP threads it was built for and runs with.
  std::string what;               ///< "instruction 3 (conv)" for errors.
  std::string name;               ///< "conv+sum+relu" for the profile.
};

/// Convolution weights init reordered into another layout of the same size
/// (recorded when Delegate::record is set, for chosen_weight_layouts).
struct ReorderedWeights {
  size_t instruction = 0;  ///< The convolution (or qlinear_conv, qlinear_matmul).
  size_t operand = 1;      ///< Which of its operands the weights are.
  std::string key;         ///< Its weights' named-data key.
  dnnl::memory::desc layout;
  const std::byte* bytes = nullptr;  ///< In init_memory.
};

/// The delegate's execution state (runtime/delegate.h): what init built,
/// run by run() on the caller's tensors.
struct Delegate final : DelegateHandle {
  size_t num_inputs() const override { return inputs.size(); }
  size_t num_outputs() const override { return outputs.size(); }
  /// Binds the caller's tensors and runs the steps on the Method's threads
  /// (runtime.cpp).
  Error run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) override;
  std::vector<std::string> step_names() const override {
    std::vector<std::string> names;
    for (const Step& s : steps) names.push_back(s.name);
    return names;
  }

  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  int threads = 1;       ///< The Method's budget.
  int step_threads = 1;  ///< For the instruction being built (small ones run on one thread).
  std::vector<SlotState> slots;
  std::vector<Step> steps;
  std::vector<Buffer> buffers;
  InitMemory init_memory;                     ///< Owns buffers_base and the weights made at init.
  std::byte* buffers_base = nullptr;          ///< Every planned buffer, 64-aligned.
  std::vector<dnnl::memory> owned;            ///< Weights made at init (reordered, folded), in init_memory.
  std::vector<int32_t> inputs, outputs;       ///< Slot indices, signature order.
  std::vector<std::byte*> staging;            ///< Per input: where a strided input is packed.
  std::vector<bool> output_bound;             ///< Per output: written in the caller's tensor (else copied after; init decides).
  std::vector<const std::byte*> widen_from;   ///< Per input: the f16 data a widened input's first step reads (run binds it).
  std::vector<std::byte*> narrow_to;          ///< Per output: the f16 tensor a widened output's last step writes (run binds it).
  dnnl::memory scratch;                       ///< Shared by every step (user scratchpad mode).
  std::vector<ReorderedWeights>* record = nullptr;  ///< Set by chosen_weight_layouts only.

  // Analysis of the program, for fusion (runtime_fuse.cpp).
  std::vector<std::vector<int32_t>> consumers;  ///< Per slot: instruction indices reading it.
  std::vector<int32_t> producer;                ///< Per slot: the instruction writing it, or -1.
  std::vector<bool> is_output;                  ///< Per slot: a delegate output.
  std::vector<bool> fused;                      ///< Per instruction: built as part of an earlier one.
  std::vector<int32_t> touched;                 ///< Buffers used by the instruction being built.
  std::vector<int32_t> blocked_outputs;         ///< Delegate outputs it wrote in a blocked layout.

  /// Attributes every primitive is created with: user scratchpad, so that
  /// no primitive allocates when it runs.
  dnnl::primitive_attr attr() const {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }

  /// The plain data of `slot` viewed through `md` at `offset` bytes, for a
  /// step being built: a reorder step first makes it if the producer left
  /// the value blocked.
  dnnl::memory src(int32_t slot, const dnnl::memory::desc& md, size_t offset = 0);
  /// The plain data of `slot` (a loop step reads slots[slot].ptr).
  void need_plain(int32_t slot);
  /// `slot` in layout `md`: its own when it matches, else a reorder into a
  /// copy made once.
  dnnl::memory src_as(int32_t slot, const dnnl::memory::desc& md);
  /// The layout `slot` is in now (blocked, else plain).
  dnnl::memory::desc layout(int32_t slot) const;
  /// Makes `slot` the output of the step being built, in layout `md`
  /// (plain or blocked), in `reuse` (a buffer) when given.
  dnnl::memory dst(int32_t slot, const dnnl::memory::desc& md, int32_t reuse = -1);
  /// Plain output of a loop step (it writes slots[slot].ptr).
  void define_plain(int32_t slot);
  /// Makes a constant stored in another layout (SlotState::stored) plain:
  /// a row-major copy made now, which ptr then points at.
  void plain_constant(int32_t slot);
  /// `view` shares `base`'s plain data (a reshape): true when it could.
  bool alias(int32_t view, int32_t base);
  /// A new planned buffer of `size` bytes.
  int32_t new_buffer(size_t size);
  /// Points every memory over io slot `slot` at `ptr`.
  void rebind(int32_t slot, std::byte* ptr);
  /// Appends a primitive step, taking its scratchpad size from `pd`.
  void add(dnnl::primitive p, const dnnl::primitive_desc_base& pd, std::unordered_map<int, dnnl::memory> args,
           std::string what, std::string name);
  /// Appends a loop step; it reads `scratch_bytes` of the shared scratchpad
  /// (Delegate::scratch) when not 0.
  void add_loop(std::function<Error()> run, std::string what, std::string name, int64_t scratch_bytes = 0);
  /// After an instruction (group) is built: marks the buffers it touched
  /// live over its steps from `first_step` on, and gives a delegate output
  /// left blocked its plain copy.
  void finish_instruction(size_t first_step);

 private:
  void touch(int32_t buffer) { touched.push_back(buffer); }
  dnnl::memory over_slot(int32_t slot, const dnnl::memory::desc& md, size_t offset);
  dnnl::memory over_buffer(int32_t buffer, const dnnl::memory::desc& md, size_t offset = 0);
};

/// A payload whose instructions do not fit their slots (wrong operand
/// count, a view reaching past its tensor, sizes that disagree): thrown by
/// the builders, reported by init as InvalidProgram. A program edgec wrote
/// never has one; a corrupt or crafted file may.
struct InvalidPayload : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws InvalidPayload with `what` unless `ok`.
inline void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidPayload(what);
}

/// dims for oneDNN: a scalar is [1] (oneDNN has no rank 0).
dnnl::memory::dims dnnl_dims(const std::vector<int64_t>& shape);
/// Row-major strides of `dims`.
dnnl::memory::dims plain_strides(const dnnl::memory::dims& dims);
/// A plain (row-major) f32 descriptor.
dnnl::memory::desc plain_md(const std::vector<int64_t>& shape);
/// True when `md` lays out `st`'s bytes row-major (any dims of its count).
bool plain_like(const dnnl::memory::desc& md, const SlotState& st);
/// The plain descriptor of a slot (its dtype).
dnnl::memory::desc slot_md(const SlotState& s);

/// The layout the weights of convolution `in` are stored in, from its
/// weights_strides / weights_blocks / weights_block_dims attributes, for
/// weights of dims `wdims` (oneDNN's (g,) O, I, k...): a dense blocked f32
/// layout of exactly their size (throws InvalidPayload otherwise). With
/// `type` s8 (qlinear_conv, qlinear_matmul), weights_extra may add oneDNN's
/// compensation after them (runtime_quant.cpp).
dnnl::memory::desc stored_weights_layout(const Instruction& in, const dnnl::memory::dims& wdims,
                                         dnnl::memory::data_type type = dnnl::memory::data_type::f32);
/// oneDNN's weights dims for a convolution's weights of torch shape `w`
/// ([Cout, Cin/g, k...]) in `groups` groups: g is split off when above 1.
dnnl::memory::dims conv_weights_dims(const std::vector<int64_t>& w, int64_t groups);
/// Checks the stored weights layouts of the payload's convolutions and
/// marks their slots (SlotState::stored): constants, each read only as a
/// convolution's weights, every such convolution saying the same layout.
Error init_stored_weights(Delegate& d, const Program& p);

/// Runs a reorder now, at init, on one thread: a parallel region at load
/// costs more than it saves (ResNet-18 loaded in ~30 ms so, and in 60-230
/// ms with two threads when another process held a core).
void reorder_at_init(Delegate& d, dnnl::memory from, dnnl::memory to);

/// Holds OpenMP to one thread for its scope (primitives created or init
/// reorders run meanwhile take one), then restores the setting.
class OneThread {
 public:
  OneThread() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(saved_); }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int saved_;
};

/// `pd`'s primitive created for one thread over the same layouts (its
/// implementation when oneDNN offers it for one thread), or an empty one
/// when oneDNN offers none; raises `scratch_bytes` to the twin's
/// scratchpad (runtime_single.cpp).
dnnl::primitive single_thread_twin(const dnnl::primitive_desc_base& pd, size_t& scratch_bytes);

/// The steps that widen the f16 inputs into buffers of their own, before
/// the first instruction's (runtime.cpp).
void add_input_widening(Delegate& d);
/// The steps that narrow the f16 outputs into the caller's tensors, after
/// the last instruction's (runtime.cpp).
void add_output_narrowing(Delegate& d);
/// Whether oneDNN creates an f16 convolution on this machine with an
/// implementation other than its reference code (asked once). oneDNN 2.6
/// has none on a CPU, so the delegate holds f16 in f32 wherever it runs;
/// edgec inspect and the tests report the answer.
bool f16_native_convolution();
/// Appends the steps of instruction `index` and of the later ones it fuses
/// (runtime_ops.cpp). Throws dnnl::error or returns an Error with a detail set.
Error build_instruction(Delegate& d, const Program& program, size_t index);
/// The gather family: take, index with integer indices (runtime_gather.cpp).
Error build_gather(Delegate& d, const Instruction& in, size_t index);
/// out = x broadcast to out's shape (numpy rules), a loop step.
void add_broadcast_copy(Delegate& d, int32_t x, int32_t out, std::string what);

}  // namespace edgec::runtime::onednn
