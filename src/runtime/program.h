// The runtime's view of a program file: loaded (mmap), validated once, then
// shared read-only by any number of Methods (one per concurrent execution).
//
// Loading validates in layers (docs/architecture.md "Backends"): header -> sizes and alignment ->
// identifier -> flatbuffers Verifier -> semantic checks of every index,
// offset, size, dtype and shape with overflow-checked arithmetic. A corrupt
// or truncated file is an Error with a detail naming what was wrong; it never
// crashes and never reads outside the file. A delegate payload that is
// itself a program table (the `reference` backend's) goes through the same
// layers after the header: it is as untrusted as the file.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/attrs.h"
#include "base/error.h"
#include "base/target.h"
#include "kernels/registry.h"
#include "runtime/backend.h"

namespace edgec::runtime {

/// One dimension of a declared type.
struct DimInfo {
  enum class Kind : uint8_t { Static, Symbolic, Dynamic };
  Kind kind = Kind::Static;
  int64_t value = 0;  ///< Static size, or the upper bound (-1: unbounded symbol).
  int symbol = -1;    ///< Index into Program::symbols() for symbolic dims.
};

struct TypeInfo {
  DType dtype = DType::Float32;
  std::vector<DimInfo> dims;
  /// "f32[2, batch]" for messages.
  std::string str(std::span<const std::string> symbols) const;
};

/// Argument: a region's placeholder, bound by its control-flow instruction
/// to a value (a view, or the instruction's own storage) while it runs.
enum class SlotKind : uint8_t { UserInput, Constant, State, Activation, Argument };

struct Slot {
  std::string name;
  TypeInfo type;
  SlotKind kind = SlotKind::Activation;
  uint64_t offset = 0;    ///< Activations: arena offset.
  uint64_t capacity = 0;  ///< Activations: reserved bytes.
  const std::byte* data = nullptr;  ///< Constants and state: the mapped bytes.
  std::string key;                  ///< Constants and state: the named-data key.
};

/// Why one backend did not take the call an instruction runs (for inspect).
struct Refusal {
  std::string backend;
  std::string reason;
};

struct Region;

/// What an instruction runs.
enum class Control : uint8_t {
  None,  ///< a kernel or a delegate
  Cond,  ///< regions[0] or regions[1], as inputs[0] says; inputs[1..] are the captures
  Loop,  ///< regions[0] while the iteration is below inputs[0] and the condition holds
};

struct Instruction {
  std::string op;             ///< Kernel name; empty for a delegate call; "cond" or "loop".
  KernelFn kernel = nullptr;  ///< Null for a delegate call.
  int32_t delegate = -1;      ///< Index into Program::delegates() for a delegate call.
  /// Value slot indices, in storage the Program owns (one array for every
  /// instruction's: two vectors each cost a 10^6-node chain 80 MB more).
  std::span<const int32_t> inputs, outputs;
  Attrs attrs;
  std::vector<Refusal> refusals;  ///< Sorted by backend, then reason.
  Control control = Control::None;
  std::vector<Region> regions;  ///< A control-flow instruction's (docs/semantics.md §8).
  int32_t carried = 0;          ///< Loop: how many operands after the first two are carried.
  int32_t loop_index = -1;      ///< Loop: its index among the program's loops (a Method's scratch).
  bool is_delegate_call() const { return delegate >= 0; }
};

/// A control-flow instruction's region: instructions run in order, its
/// placeholders (Argument slots) and the slots of the values it returns.
struct Region {
  std::vector<Instruction> instructions;
  std::span<const int32_t> inputs, outputs;
};

/// One delegate of the file: the backend that runs it and its payload.
struct DelegateInfo {
  std::string backend_id;
  const Backend* backend = nullptr;  ///< Resolved and available at load.
  std::span<const std::byte> payload;  ///< Inside the file's data segment.
  std::vector<std::string> operators;  ///< Kernel names of its calls, graph order.
  std::vector<std::string> constants;  ///< Named-data keys it reads.
};

/// The file's named data, by key (what delegates resolve their slots against).
class NamedDataTable final : public NamedDataMap {
 public:
  /// The entry for `key`, or nullptr.
  const NamedDataEntry* find(std::string_view key) const override {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : &it->second;
  }
  /// Number of entries (each target once, docs/semantics.md §6).
  size_t size() const { return entries_.size(); }
  /// Every entry, by key.
  const std::map<std::string, NamedDataEntry, std::less<>>& entries() const { return entries_; }
  /// Adds `e`; false (and no change) when its key is already present.
  bool add(NamedDataEntry e) {
    std::string key = e.key;
    return entries_.emplace(std::move(key), std::move(e)).second;
  }

 private:
  std::map<std::string, NamedDataEntry, std::less<>> entries_;
};

struct IoSlot {
  std::string name;
  int32_t slot = -1;
};

class Program {
 public:
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  /// Maps `path` and validates it. Errors: AccessFailed (cannot open/map),
  /// InvalidProgram (corrupt, truncated, inconsistent), NotFound (an operator
  /// with no kernel in this runtime), DelegateMissing (a delegate whose
  /// backend is not linked in or not available here; the detail names the
  /// id). Payloads are validated when a Method initializes its delegates.
  /// `backends`: those delegates may name (by default every backend linked
  /// into this runtime, runtime/registry.h).
  static Result<std::unique_ptr<Program>> load(const std::string& path, BackendList backends = linked_backends());
  /// Validates a program held in memory (8-byte aligned; 64 for zero-copy
  /// tensors); `bytes` must outlive the Program. Errors as load().
  static Result<std::unique_ptr<Program>> load_from_bytes(std::span<const std::byte> bytes,
                                                          BackendList backends = linked_backends());
  /// Validates a delegate payload that is a bare program table (no header,
  /// no named data, no delegates), resolving its constant and state slots
  /// by key in `named_data`. `payload` and the named data must outlive the
  /// Program. Errors: InvalidProgram (corrupt or inconsistent), NotFound (an
  /// operator with no kernel, or a slot whose key has no data: the detail
  /// names the slot and the key).
  static Result<std::unique_ptr<Program>> load_payload(std::span<const std::byte> payload,
                                                       const NamedDataMap& named_data);

  std::span<const Slot> slots() const { return slots_; }
  std::span<const Instruction> instructions() const { return instructions_; }
  std::span<const IoSlot> inputs() const { return inputs_; }
  std::span<const IoSlot> outputs() const { return outputs_; }
  std::span<const std::string> symbols() const { return symbols_; }
  uint64_t arena_size() const { return arena_size_; }
  /// The machine the file was compiled for (edgec compile --target). A
  /// file for another target runs here when this runtime has its delegates
  /// (they lay out or pack their weights at init); otherwise the loader
  /// refuses it with DelegateMissing, naming both targets and the flag.
  Target target() const { return target_; }
  /// Loop instructions, at any depth (each has a loop_index below this).
  size_t num_loops() const { return num_loops_; }
  uint64_t file_size() const { return bytes_.size(); }
  /// The file's bytes (mapped, or those given to load_from_bytes).
  std::span<const std::byte> bytes() const { return bytes_; }
  /// The delegates, by index (Instruction::delegate).
  std::span<const DelegateInfo> delegates() const { return delegates_; }
  /// The file's named data (empty for a payload, which resolves against its
  /// file's).
  const NamedDataTable& named_data() const { return named_data_; }

 private:
  Program() = default;
  Error parse();
  Error parse_payload(const NamedDataMap& named);
  // The layers after the header, shared by files and payloads: identifier,
  // flatbuffers Verifier, then semantic checks. A file (`payload_named`
  // null) reads its named data and delegates from `data`, its data segment;
  // a payload has neither and resolves its slots in `payload_named`.
  Error parse_table(std::span<const std::byte> table, std::span<const std::byte> data,
                    const NamedDataMap* payload_named);
  // parse_table's steps, over what they share (program.cpp).
  struct TableReader;

  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::span<const std::byte> bytes_;
  std::vector<Slot> slots_;
  std::vector<Instruction> instructions_;
  std::vector<int32_t> operands_;  // Every instruction's inputs and outputs.
  std::vector<IoSlot> inputs_, outputs_;
  std::vector<std::string> symbols_;
  uint64_t arena_size_ = 0;
  Target target_ = kHostTarget;
  size_t num_loops_ = 0;
  NamedDataTable named_data_;
  std::vector<DelegateInfo> delegates_;
  BackendList backends_;  // What delegates resolve against (none for a payload).
};

}  // namespace edgec::runtime
