// `to_backend[=TAG+TAG...]`: turns tagged partitions into delegate programs
// and call_delegate nodes (docs/semantics.md §4.4, §5), for `edgec opt`;
// compile_program calls to_backend itself.
#include <set>

#include "lowering/to_backend.h"
#include "passes/pass.h"

namespace edgec {
namespace {

class ToBackendPass : public Pass {
 public:
  explicit ToBackendPass(std::string_view options) {
    std::string_view rest = options;
    while (!rest.empty()) {
      const size_t plus = rest.find('+');
      tags_.insert(std::string(rest.substr(0, plus)));
      if (plus == std::string_view::npos) break;
      rest = rest.substr(plus + 1);
    }
  }
  bool run(Program& program) override { return to_backend(program, tags_) > 0; }

 private:
  std::set<std::string> tags_;
};

}  // namespace

std::unique_ptr<Pass> create_to_backend_pass(std::string_view options) {
  return std::make_unique<ToBackendPass>(options);
}

}  // namespace edgec
