#include "lowering/pipeline.h"

#include <map>
#include <set>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/verifier.h"
#include "lowering/backend.h"
#include "lowering/partition.h"
#include "lowering/to_backend.h"

namespace edgec {
namespace {

class PartitionPass : public Pass {
 public:
  explicit PartitionPass(std::string_view list) : partitioners_(make_partitioners(std::string(list))) {}
  bool run(Program& program) override { return partition_program(program, partitioners_) > 0; }

 private:
  std::vector<std::unique_ptr<Partitioner>> partitioners_;
};

class ToBackendPass : public Pass {
 public:
  explicit ToBackendPass(std::string_view options) {
    size_t start = 0;
    const std::string s(options);
    while (!s.empty() && start <= s.size()) {
      const size_t plus = s.find('+', start);
      tags_.insert(s.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
  }
  bool run(Program& program) override { return to_backend(program, tags_) > 0; }

 private:
  std::set<std::string> tags_;
};

const std::vector<PassInfo>& registry() {
  static const std::vector<PassInfo> passes = {
      {"partition",
       "tags the calls each backend takes, in priority order (SEMANTICS 4); options: the --backends list, e.g. "
       "reference:add+mul,reference",
       [](std::string_view o) -> std::unique_ptr<Pass> { return std::make_unique<PartitionPass>(o); }},
      {"to_backend",
       "turns tagged partitions into delegate programs and call_delegate nodes, sharing constants "
       "(SEMANTICS 4.4, 5); options: TAG+TAG... (default: every tag)",
       [](std::string_view o) -> std::unique_ptr<Pass> { return std::make_unique<ToBackendPass>(o); }},
  };
  return passes;
}

}  // namespace

std::span<const PassInfo> lowering_passes() { return registry(); }

const PassInfo* find_any_pass(std::string_view name) {
  if (const PassInfo* p = find_pass(name)) return p;
  for (const auto& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

void prepare_delegate_constants(Program& program) {
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

void compile_program(Program& program, const LowerOptions& options, const std::string& backends) {
  optimize_program(program, options);
  const auto partitioners = make_partitioners(backends);
  if (!partitioners.empty()) {
    try {
      partition_program(program, partitioners);
      to_backend(program);
    } catch (const CompileError& e) {
      throw CompileError(std::string("lowering to backends: ") + e.what());
    }
  }
  run_pass_verified(program, "memory_plan");
  prepare_delegate_constants(program);
}

}  // namespace edgec
