// Binding npz arrays to a program's inputs by name, for `run` and `bench`:
// the driver's rules (every input present, nothing extra, each checked by
// Method::set_input), shared with the Python module.
#include "commands.h"

namespace edgec::cli {

void bind_inputs(const runtime::Program& program, runtime::Method& method, const std::vector<io::NpyArray>& arrays,
                 const std::string& what) {
  std::vector<driver::NamedTensor> inputs;
  inputs.reserve(arrays.size());
  for (const auto& a : arrays) inputs.push_back({a.name, a.view()});
  driver::bind_inputs(program, method, inputs, what);
}

}  // namespace edgec::cli
