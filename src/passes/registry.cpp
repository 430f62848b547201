#include <vector>

#include "ir/diagnostic.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

std::unique_ptr<Pass> no_options(std::string_view name, std::string_view options,
                                 std::unique_ptr<Pass> (*create)(std::string_view)) {
  if (!options.empty())
    throw CompileError("pass '" + std::string(name) + "' takes no options, got '" + std::string(options) + "'");
  return create(options);
}

const std::vector<PassInfo>& registry() {
  static const std::vector<PassInfo> passes = {
      {"verify", "checks the program against SEMANTICS §1-2 (dialect, signature, stores, types)",
       [](std::string_view o) { return no_options("verify", o, create_verify_pass); }},
      {"to_edge", "converts an aten program to the edge dialect, decomposing composite operators",
       [](std::string_view o) { return no_options("to_edge", o, create_to_edge_pass); }},
      {"constant_prop",
       "folds calls on constant values into new constant placeholders (SEMANTICS 3); "
       "options: skip=OP+OP... adds operators to the skip set",
       create_constant_prop_pass},
      {"dce", "removes calls whose results nothing reads",
       [](std::string_view o) { return no_options("dce", o, create_dce_pass); }},
      {"memory_plan", "places every call result in one arena, reusing memory after a value's last reader",
       [](std::string_view o) { return no_options("memory_plan", o, create_memory_plan_pass); }},
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

}  // namespace edgec
