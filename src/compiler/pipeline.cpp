#include "compiler/pipeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "base/memory_limit.h"
#include "base/diagnostic.h"
#include "ir/verifier.h"
#include "compiler/backends.h"
#include "lowering/partition.h"
#include "lowering/to_backend.h"
#include "passes/pass_list.h"
#include "serialize/writer.h"

namespace edgec {

void prepare_delegate_constants(Program& program) {
  if (program.delegates.empty()) return;
  std::map<std::string, int> readers;  // target -> programs reading it
  auto count = [&](const Program& p) {
    for (const InputSpec& spec : p.inputs)
      if (spec.kind != InputKind::UserInput) ++readers[spec.target];
  };
  count(program);
  for (const Delegate& d : program.delegates)
    if (d.program) count(*d.program);
  std::set<std::string> shared;
  for (const auto& [target, n] : readers)
    if (n > 1) shared.insert(target);
  for (size_t i = 0; i < program.delegates.size(); ++i) {
    Delegate& d = program.delegates[i];
    const BackendCompiler* compiler = find_backend_compiler(d.backend);
    if (!compiler || !d.program) continue;  // serialize reports it
    compiler->prepare_constants(*d.program, shared);
    try {
      verify_or_throw(*d.program);
    } catch (const CompileError& e) {
      throw CompileError("delegate " + std::to_string(i) + " (" + d.backend +
                         ") after storing constants in its layout: " + e.what());
    }
  }
}

namespace {

// What the runtime refuses at load (Method::create: an arena past the
// memory limit) is refused here, when the program is made, and so is a user
// input no tensor within the limit can hold: a graph input of 2^40 floats
// compiled and was refused only at run. Outputs are planned values (in the
// arena), inputs, or stored data that exists.
void check_memory_limit(const Program& program) {
  const uint64_t limit = memory_limit();
  const std::string over = " bytes, more than the memory limit of " + std::to_string(limit) +
                           " bytes (set EDGEC_MEMORY_LIMIT to change it)";
  auto check = [&](const std::string& what, const std::string& arg) {
    const Value* v = program.graph.find_value(arg);
    if (!v) return;  // the verifier reports it
    const TensorType& t = v->type();
    if (t.size_overflows())
      throw CompileError(what + " has type " + t.str() + ", whose size in bytes does not fit in int64");
    if (const auto bytes = t.max_nbytes(); bytes && static_cast<uint64_t>(*bytes) > limit)
      throw CompileError(what + " has type " + t.str() + ": " + std::to_string(*bytes) + over);
  };
  for (const InputSpec& in : program.inputs)
    if (in.kind == InputKind::UserInput) check("input '" + (in.target.empty() ? in.arg : in.target) + "'", in.arg);
  const MemoryPlan& plan = program.memory_plan;
  if (plan.arena_size > limit) {
    // The largest, the first by name among equals (the plan is a hash map).
    auto largest = std::max_element(plan.values.begin(), plan.values.end(), [](const auto& a, const auto& b) {
      return a.second.size < b.second.size || (a.second.size == b.second.size && a.first > b.first);
    });
    std::string detail;
    if (largest != plan.values.end()) {
      const Value* v = program.graph.find_value(largest->first);
      detail = "; the largest value in it is %" + largest->first + (v ? " of type " + v->type().str() : "") + ", " +
               std::to_string(largest->second.size) + " bytes";
    }
    throw CompileError("the planned arena of " + std::to_string(plan.arena_size) +
                       " bytes exceeds the memory limit of " + std::to_string(limit) +
                       " bytes (set EDGEC_MEMORY_LIMIT to change it)" + detail);
  }
}

}  // namespace

void compile_program(Program& program, const LowerOptions& options, const std::string& backends) {
  program.target = options.target;
  optimize_program(program, options);
  const auto partitioners = make_partitioners(backends, options.target);
  if (!partitioners.empty()) {
    try {
      partition_program(program, partitioners);
      to_backend(program);
    } catch (const CompileError& e) {
      throw CompileError(std::string("lowering to backends: ") + e.what());
    }
  }
  run_pass_verified(program, "memory_plan", *create_memory_plan_pass(""));
  check_memory_limit(program);
  prepare_delegate_constants(program);
}

std::vector<std::byte> serialize_program(const Program& program) {
  return write_program_file(program, preprocess_delegate);
}

}  // namespace edgec
