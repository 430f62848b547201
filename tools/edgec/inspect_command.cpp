// `edgec inspect FILE.edgec [--json]`: the signature, the operators, the
// constants with their sizes and the memory plan of a program file.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ir/diagnostic.h"
#include "runtime/program.h"

namespace edgec::cli {
namespace {

struct InspectOptions {
  std::string program;
  bool json = false;
};

const char* kind_name(runtime::SlotKind k) {
  switch (k) {
    case runtime::SlotKind::UserInput: return "user_input";
    case runtime::SlotKind::Constant: return "constant";
    case runtime::SlotKind::State: return "state";
    case runtime::SlotKind::Activation: return "activation";
  }
  return "?";
}

void run_inspect(const InspectOptions& o) {
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) throw CompileError("cannot load " + o.program + ": " + error_detail());
  const runtime::Program& p = **loaded;
  const auto syms = p.symbols();
  nlohmann::ordered_json j;
  j["file"] = o.program;
  j["file_bytes"] = p.file_size();
  for (const auto& in : p.inputs())
    j["inputs"].push_back({{"name", in.name}, {"type", p.slots()[static_cast<size_t>(in.slot)].type.str(syms)}});
  for (const auto& out : p.outputs())
    j["outputs"].push_back({{"name", out.name}, {"type", p.slots()[static_cast<size_t>(out.slot)].type.str(syms)}});
  std::map<std::string, int> op_counts;
  for (const auto& ins : p.instructions()) ++op_counts[ins.op];
  j["operators"] = nlohmann::ordered_json::object();
  for (const auto& [op, n] : op_counts) j["operators"][op] = n;
  j["instructions"] = p.instructions().size();
  uint64_t constant_bytes = 0;
  j["constants"] = nlohmann::ordered_json::array();
  for (const auto& s : p.slots()) {
    if (s.kind != runtime::SlotKind::Constant && s.kind != runtime::SlotKind::State) continue;
    uint64_t bytes = dtype_size(s.type.dtype);
    for (const auto& d : s.type.dims) bytes *= static_cast<uint64_t>(d.value);
    constant_bytes += bytes;
    j["constants"].push_back({{"name", s.key}, {"kind", kind_name(s.kind)}, {"type", s.type.str(syms)}, {"bytes", bytes}});
  }
  j["constant_bytes"] = constant_bytes;
  j["memory_plan_bytes"] = p.arena_size();
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << o.program << ": " << p.file_size() << " bytes\n\ninputs:\n";
  for (const auto& in : j["inputs"]) std::cout << "  " << in["name"].get<std::string>() << ": " << in["type"].get<std::string>() << "\n";
  std::cout << "outputs:\n";
  for (const auto& out : j["outputs"]) std::cout << "  " << out["name"].get<std::string>() << ": " << out["type"].get<std::string>() << "\n";
  std::cout << "\noperators (" << p.instructions().size() << " instructions, portable kernels):\n";
  for (const auto& [op, n] : op_counts) std::cout << "  " << op << " x" << n << "\n";
  std::cout << "\nconstants (" << j["constants"].size() << ", " << constant_bytes << " bytes):\n";
  for (const auto& c : j["constants"])
    std::cout << "  " << c["name"].get<std::string>() << " (" << c["kind"].get<std::string>() << "): " << c["type"].get<std::string>()
              << ", " << c["bytes"].get<uint64_t>() << " bytes\n";
  std::cout << "\nmemory plan: " << p.arena_size() << " bytes\n";
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto opts = std::make_shared<InspectOptions>();
  CLI::App* cmd = app.add_subcommand("inspect", "show a program file's signature, operators, constants and memory plan");
  cmd->add_option("program", opts->program, "the .edgec file")->required();
  cmd->add_flag("--json", opts->json, "print the same as JSON");
  cmd->callback([opts] { run_inspect(*opts); });
}

}  // namespace edgec::cli
