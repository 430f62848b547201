// `verify`: runs the verifier as a pass, so a pipeline can check a program
// at any point (and `edgec opt --pass=verify` checks a hand-written one).
#include "ir/verifier.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

class VerifyPass : public Pass {
 public:
  bool run(Program& program) override {
    verify_or_throw(program);
    return false;
  }
};

}  // namespace

std::unique_ptr<Pass> create_verify_pass(std::string_view) { return std::make_unique<VerifyPass>(); }

}  // namespace edgec
