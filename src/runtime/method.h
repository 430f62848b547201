// A Method is one execution state of a loaded Program: its own arena and
// tensors, so several threads can each run their own Method of one Program.
// execute() neither allocates nor throws.
#pragma once

#include <memory>
#include <vector>

#include "runtime/program.h"

namespace edgec::runtime {

class Method {
 public:
  /// Allocates the arena and per-instruction tensor tables. Errors:
  /// OutOfMemory.
  static Result<std::unique_ptr<Method>> create(const Program& program, int num_threads = 1);

  /// Binds input `index` to `tensor` (not copied: it must stay valid through
  /// execute). Checks dtype, rank and every size against the declared type:
  /// static sizes must match, bounded dims must fit, and a symbol must have
  /// one size across all inputs. Errors: InvalidArgument, InvalidType,
  /// InvalidShape (the detail names the input and both shapes).
  Error set_input(size_t index, const Tensor& tensor);

  /// Runs every instruction. Errors: InvalidArgument (an unbound input), or
  /// whatever a kernel reports (the detail names the instruction).
  Error execute();

  /// Output `index` after execute(); valid until the next execute().
  const Tensor& output(size_t index) const;
  size_t num_outputs() const { return program_.outputs().size(); }

 private:
  explicit Method(const Program& p) : program_(p) {}

  const Program& program_;
  KernelContext ctx_;
  std::unique_ptr<std::byte[]> arena_;
  std::vector<Tensor> values_;
  std::vector<bool> bound_;
  std::vector<int64_t> symbol_values_;
  std::vector<std::vector<Tensor>> in_tables_, out_tables_;
};

}  // namespace edgec::runtime
