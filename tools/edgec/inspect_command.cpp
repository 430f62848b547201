// `edgec inspect FILE.edgec [--json]`: the signature, the operators, the
// constants with their sizes and the memory plan of a program file; its
// partitions (delegates: backend, operators, constants read) and, for each
// call left on the portable kernels, why each backend refused it. Payloads
// are opaque to inspect: it shows what the file's Delegate table records.
#include <algorithm>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "base/diagnostic.h"
#include "runtime/program.h"

namespace edgec::cli {
namespace {

struct InspectOptions {
  std::string program;
  bool json = false;
};

void run_inspect(const InspectOptions& o) {
  auto loaded = runtime::Program::load(o.program);
  if (!loaded.ok()) throw CompileError("cannot load " + o.program + ": " + error_detail());
  const runtime::Program& p = **loaded;
  const nlohmann::ordered_json j = driver::inspect_json(p, o.program);
  // Every operator on the portable kernels, control flow's regions included.
  std::map<std::string, int> op_counts;
  size_t portable = 0;
  for (const auto& [op, n] : j["operators"].items()) portable += static_cast<size_t>(op_counts[op] = n.get<int>());
  const uint64_t constant_bytes = j["constant_bytes"].get<uint64_t>();
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << o.program << ": " << p.file_size() << " bytes\ntarget: " << j["target"].get<std::string>();
  if (j.contains("target_note")) std::cout << " (" << j["target_note"].get<std::string>() << ")";
  std::cout << "\n\ninputs:\n";
  for (const auto& in : j["inputs"]) std::cout << "  " << in["name"].get<std::string>() << ": " << in["type"].get<std::string>() << "\n";
  std::cout << "outputs:\n";
  for (const auto& out : j["outputs"]) std::cout << "  " << out["name"].get<std::string>() << ": " << out["type"].get<std::string>() << "\n";
  std::cout << "\noperators (" << portable << " instructions, portable kernels):\n";
  for (const auto& [op, n] : op_counts) std::cout << "  " << op << " x" << n << "\n";
  if (!p.delegates().empty()) {
    std::cout << "\ndelegates (" << p.delegates().size() << "):\n";
    for (const auto& d : j["delegates"]) {
      // Operators once each, in first-use order, with a count when repeated.
      std::vector<std::pair<std::string, int>> ops;
      for (const auto& op : d["operators"]) {
        auto it = std::find_if(ops.begin(), ops.end(), [&](const auto& e) { return e.first == op.get<std::string>(); });
        if (it == ops.end()) ops.emplace_back(op.get<std::string>(), 1);
        else ++it->second;
      }
      std::string op_list, constant_list;
      for (const auto& [op, n] : ops) op_list += (op_list.empty() ? "" : ", ") + op + (n > 1 ? " x" + std::to_string(n) : "");
      // A whole-model delegate reads hundreds of constants: past a few, the
      // text gives their count and size (--json lists every one); one with
      // no data is always named.
      constexpr size_t kListed = 6;
      uint64_t total = 0;
      size_t listed = 0;
      for (const auto& c : d["constants"]) {
        if (!c["bytes"].is_null()) total += c["bytes"].get<uint64_t>();
        if (listed++ >= kListed && !c["bytes"].is_null()) continue;
        constant_list += (constant_list.empty() ? "" : ", ") + c["name"].get<std::string>() + " (" +
                         (c["bytes"].is_null() ? std::string("no data") : std::to_string(c["bytes"].get<uint64_t>()) + " bytes") + ")";
      }
      if (d["constants"].size() > kListed)
        constant_list += " and " + std::to_string(d["constants"].size() - kListed) + " more (" +
                         std::to_string(d["constants"].size()) + " constants, " + std::to_string(total) + " bytes in all)";
      std::cout << "  delegate " << d["index"].get<size_t>() << ": backend " << d["backend"].get<std::string>() << ", operators "
                << (op_list.empty() ? "none" : op_list) << ", constants " << (constant_list.empty() ? "none" : constant_list)
                << ", payload " << d["payload_bytes"].get<uint64_t>() << " bytes\n";
    }
  }
  bool any_refusal = false;
  for (const auto& e : j["instruction_details"]) any_refusal |= !e["refusals"].empty();
  if (any_refusal) {
    std::cout << "\nrefused calls (on the portable kernels):\n";
    for (const auto& e : j["instruction_details"])
      for (const auto& r : e["refusals"])
        std::cout << "  instruction " << e["index"].get<size_t>() << " (" << e["op"].get<std::string>() << "): "
                  << r["backend"].get<std::string>() << ": " << r["reason"].get<std::string>() << "\n";
  }
  std::cout << "\nconstants (" << j["constants"].size() << ", " << constant_bytes << " bytes):\n";
  for (const auto& c : j["constants"])
    std::cout << "  " << c["name"].get<std::string>() << " (" << c["kind"].get<std::string>() << "): " << c["type"].get<std::string>()
              << ", " << c["bytes"].get<uint64_t>() << " bytes\n";
  std::cout << "\nmemory plan: " << p.arena_size() << " bytes\n";
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto [cmd, opts] =
      add_command(app, "inspect", "show a program file's signature, operators, constants and memory plan", run_inspect);
  add_program_argument(*cmd, opts->program);
  cmd->add_flag("--json", opts->json, "print the same as JSON");
}

}  // namespace edgec::cli
