// Binding npz arrays to a program's inputs by name, shared by `run` and
// `bench` so that both apply the same rules: every input present, nothing
// extra, each checked by Method::set_input.
#include <map>
#include <set>

#include "commands.h"
#include "base/diagnostic.h"

namespace edgec::cli {

[[noreturn]] void runtime_error(const std::string& what, Error err) {
  throw CompileError(what + ": " + error_detail() + " (" + error_name(err) + ")");
}

void bind_inputs(const runtime::Program& program, runtime::Method& method, const std::vector<io::NpyArray>& arrays,
                 const std::string& what) {
  std::map<std::string, const io::NpyArray*> by_name;
  for (const auto& a : arrays) by_name[a.name] = &a;
  std::set<std::string> expected;
  for (const auto& in : program.inputs()) expected.insert(in.name);
  for (const auto& [name, a] : by_name)
    if (!expected.count(name)) {
      std::string list;
      for (const auto& e : expected) list += (list.empty() ? "" : ", ") + ("'" + e + "'");
      throw CompileError(what + ": unexpected input '" + name + "'; the program's inputs are " + list);
    }
  for (size_t i = 0; i < program.inputs().size(); ++i) {
    const auto& in = program.inputs()[i];
    auto it = by_name.find(in.name);
    if (it == by_name.end()) {
      const auto& slot = program.slots()[static_cast<size_t>(in.slot)];
      throw CompileError(what + ": missing input '" + in.name + "' (" + slot.type.str(program.symbols()) + ")");
    }
    const Error err = method.set_input(i, it->second->view());
    if (err != Error::Ok) runtime_error(what, err);
  }
}

}  // namespace edgec::cli
