#include "compiler/pass_registry.h"

#include <vector>

#include "base/diagnostic.h"
#include "passes/pass_list.h"
#include "passes/pipeline.h"

namespace edgec {
namespace {

using Create = std::unique_ptr<Pass> (*)(std::string_view);

// A pass that takes no options refuses any.
std::function<std::unique_ptr<Pass>(std::string_view)> no_options(std::string_view name, Create create) {
  return [name, create](std::string_view options) {
    if (!options.empty())
      throw CompileError("pass '" + std::string(name) + "' takes no options, got '" + std::string(options) + "'");
    return create(options);
  };
}

const std::vector<PassInfo>& registry() {
  static const std::vector<PassInfo> passes = {
      {"verify", "checks the program against docs/semantics.md §1-2 (dialect, signature, stores, types)",
       no_options("verify", create_verify_pass)},
      {"to_edge", "converts an aten program to the edge dialect, decomposing composite operators",
       no_options("to_edge", create_to_edge_pass)},
      {"constant_prop",
       "folds calls on constant values into new constant placeholders (docs/semantics.md §3); "
       "options: skip=OP+OP... adds operators to the skip set",
       create_constant_prop_pass},
      {"fuse_gelu", "turns GELU written out with erf, x * 0.5 * (1 + erf(x / sqrt(2))), into one gelu call",
       no_options("fuse_gelu", create_fuse_gelu_pass)},
      {"fuse_qdq",
       "turns dequantize_linear -> float operator -> quantize_linear into the integer operator (qlinear_conv, "
       "qlinear_matmul, ...) or the operator on the integers (docs/semantics.md, QDQ fusion)",
       no_options("fuse_qdq", create_fuse_qdq_pass)},
      {"dce", "removes calls whose results nothing reads", no_options("dce", create_dce_pass)},
      {"partition",
       "tags the calls each backend takes, in priority order (docs/semantics.md §4); options: the --backends list, "
       "e.g. reference:add+mul,reference",
       create_partition_pass},
      {"to_backend",
       "turns tagged partitions into delegate programs and call_delegate nodes, sharing constants "
       "(docs/semantics.md §4.4, §5); options: TAG+TAG... (default: every tag)",
       create_to_backend_pass},
      {"memory_plan", "places every call result in one arena, reusing memory after a value's last reader",
       no_options("memory_plan", create_memory_plan_pass)},
  };
  return passes;
}

}  // namespace

std::span<const PassInfo> all_passes() { return registry(); }

const PassInfo* find_pass(std::string_view name) {
  for (const auto& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

void run_pass_verified(Program& program, std::string_view name) {
  const PassInfo* info = find_pass(name);
  if (!info) throw CompileError("internal error: pass '" + std::string(name) + "' is not registered");
  run_pass_verified(program, name, *info->create(""));
}

}  // namespace edgec
