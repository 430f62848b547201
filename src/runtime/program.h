// The runtime's view of a program file: loaded (mmap), validated once, then
// shared read-only by any number of Methods (one per concurrent execution).
//
// Loading validates in layers (STYLE 11): header -> sizes and alignment ->
// identifier -> flatbuffers Verifier -> semantic checks of every index,
// offset, size, dtype and shape with overflow-checked arithmetic. A corrupt
// or truncated file is an Error with a detail naming what was wrong; it never
// crashes and never reads outside the file.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/attrs.h"
#include "base/error.h"
#include "kernels/registry.h"

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

enum class SlotKind : uint8_t { UserInput, Constant, State, Activation };

struct Slot {
  std::string name;
  TypeInfo type;
  SlotKind kind = SlotKind::Activation;
  uint64_t offset = 0;    ///< Activations: arena offset.
  uint64_t capacity = 0;  ///< Activations: reserved bytes.
  const std::byte* data = nullptr;  ///< Constants and state: the mapped bytes.
  std::string key;                  ///< Constants and state: the named-data key.
};

struct Instruction {
  std::string op;
  KernelFn kernel = nullptr;
  std::vector<int32_t> inputs, outputs;
  Attrs attrs;
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
  /// with no kernel in this runtime), DelegateMissing.
  static Result<std::unique_ptr<Program>> load(const std::string& path);
  /// Validates a program held in memory; `bytes` must outlive the Program.
  static Result<std::unique_ptr<Program>> load_from_bytes(std::span<const std::byte> bytes);

  std::span<const Slot> slots() const { return slots_; }
  std::span<const Instruction> instructions() const { return instructions_; }
  std::span<const IoSlot> inputs() const { return inputs_; }
  std::span<const IoSlot> outputs() const { return outputs_; }
  std::span<const std::string> symbols() const { return symbols_; }
  uint64_t arena_size() const { return arena_size_; }
  uint64_t file_size() const { return bytes_.size(); }

 private:
  Program() = default;
  Error parse();

  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::span<const std::byte> bytes_;
  std::vector<Slot> slots_;
  std::vector<Instruction> instructions_;
  std::vector<IoSlot> inputs_, outputs_;
  std::vector<std::string> symbols_;
  uint64_t arena_size_ = 0;
};

}  // namespace edgec::runtime
