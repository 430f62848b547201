// Binding inputs to a program's inputs by name (driver.h), shared by
// `edgec run`, `edgec bench` and the Python module so that all apply the
// same rules: every input present, nothing extra, each checked by
// Method::set_input. numpy has no bfloat16: a u16 array is taken as the
// bits of a bf16 input (as .npy files and ONNX's test data store them).
#include <map>
#include <set>

#include "base/diagnostic.h"
#include "driver/driver.h"

namespace edgec::driver {

[[noreturn]] void runtime_error(const std::string& what, Error err) {
  throw RuntimeFailure(what + ": " + error_detail() + " (" + error_name(err) + ")", err);
}

void bind_inputs(const runtime::Program& program, runtime::Method& method, std::span<const NamedTensor> inputs,
                 const std::string& what) {
  std::map<std::string_view, const Tensor*> by_name;
  for (const auto& a : inputs) by_name[a.name] = &a.tensor;
  std::set<std::string_view> expected;
  for (const auto& in : program.inputs()) expected.insert(in.name);
  for (const auto& [name, a] : by_name)
    if (!expected.count(name)) {
      std::string list;
      for (const auto& e : expected) list += (list.empty() ? "" : ", ") + ("'" + std::string(e) + "'");
      throw InputError(what + ": unexpected input '" + std::string(name) + "'; the program's inputs are " + list,
                       Error::NotFound);
    }
  for (size_t i = 0; i < program.inputs().size(); ++i) {
    const auto& in = program.inputs()[i];
    auto it = by_name.find(in.name);
    if (it == by_name.end()) {
      const auto& slot = program.slots()[static_cast<size_t>(in.slot)];
      throw InputError(what + ": missing input '" + in.name + "' (" + slot.type.str(program.symbols()) + ")",
                       Error::NotFound);
    }
    Tensor given = *it->second;
    if (given.dtype == DType::UInt16 &&
        program.slots()[static_cast<size_t>(in.slot)].type.dtype == DType::BFloat16)
      given.dtype = DType::BFloat16;
    const Error err = method.set_input(i, given);
    if (err != Error::Ok) {
      method.reset_inputs();
      throw InputError(what + ": " + error_detail() + " (" + error_name(err) + ")", err);
    }
  }
}

}  // namespace edgec::driver
