// What `edgec inspect --json` reports (driver.h): the signature, the
// operators, the constants with their sizes and the memory plan of a
// program; its partitions (delegates: backend, operators, constants read)
// and, for each call left on the portable kernels, why each backend
// refused it. Payloads are opaque here: it shows what the file's Delegate
// table records.
#include <map>

#include "driver/driver.h"

namespace edgec::driver {
namespace {

const char* kind_name(runtime::SlotKind k) {
  switch (k) {
    case runtime::SlotKind::UserInput: return "user_input";
    case runtime::SlotKind::Constant: return "constant";
    case runtime::SlotKind::State: return "state";
    case runtime::SlotKind::Activation: return "activation";
    case runtime::SlotKind::Argument: return "argument";
  }
  return "?";
}

}  // namespace

nlohmann::ordered_json inspect_json(const runtime::Program& p, const std::string& file) {
  const auto syms = p.symbols();
  nlohmann::ordered_json j;
  j["file"] = file;
  j["file_bytes"] = p.file_size();
  // A file compiled for another machine runs here only with delegates that
  // lay out or pack their weights at init (it loaded, so it has them).
  j["target"] = std::string(target_name(p.target()));
  if (p.target() != kHostTarget)
    j["target_note"] = "compiled for " + std::string(target_name(p.target())) + ", loaded on " +
                       std::string(target_name(kHostTarget)) +
                       ": the portable kernels and the delegates lay out or pack their weights at load";
  for (const auto& in : p.inputs())
    j["inputs"].push_back({{"name", in.name}, {"type", p.slots()[static_cast<size_t>(in.slot)].type.str(syms)}});
  for (const auto& out : p.outputs())
    j["outputs"].push_back({{"name", out.name}, {"type", p.slots()[static_cast<size_t>(out.slot)].type.str(syms)}});
  std::map<std::string, int> op_counts;
  // Operators inside control flow's regions count too: they run on the
  // portable kernels as well.
  auto count = [&](auto&& self, std::span<const runtime::Instruction> block) -> void {
    for (const auto& ins : block) {
      if (!ins.is_delegate_call()) ++op_counts[ins.op];
      for (const auto& r : ins.regions) self(self, r.instructions);
    }
  };
  count(count, p.instructions());
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
  j["delegates"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < p.delegates().size(); ++i) {
    const auto& d = p.delegates()[i];
    nlohmann::ordered_json constants = nlohmann::ordered_json::array();
    for (const auto& key : d.constants) {
      const auto* entry = p.named_data().find(key);
      constants.push_back({{"name", key}, {"bytes", entry ? nlohmann::ordered_json(entry->size) : nlohmann::ordered_json()}});
    }
    j["delegates"].push_back({{"index", i}, {"backend", d.backend_id}, {"operators", d.operators},
                              {"constants", constants}, {"payload_bytes", d.payload.size()}});
  }
  // Per instruction: where it runs and why each backend refused it.
  j["instruction_details"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < p.instructions().size(); ++i) {
    const auto& ins = p.instructions()[i];
    nlohmann::ordered_json e = {{"index", i}, {"op", ins.is_delegate_call() ? std::string("call_delegate") : ins.op}};
    if (ins.is_delegate_call()) {
      e["backend"] = p.delegates()[static_cast<size_t>(ins.delegate)].backend_id;
      e["delegate"] = ins.delegate;
    } else {
      e["backend"] = "portable";
    }
    e["refusals"] = nlohmann::ordered_json::array();
    for (const auto& r : ins.refusals) e["refusals"].push_back({{"backend", r.backend}, {"reason", r.reason}});
    j["instruction_details"].push_back(std::move(e));
  }
  return j;
}

}  // namespace edgec::driver
