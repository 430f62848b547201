// The reference partitioner: takes every call whose edge operator is in the
// operator set given as options ("matmul+add"), or every core operator when
// none is given. Options are checked against the operator table up front so
// that a typo fails the compile instead of silently taking nothing.
#include <set>

#include "backends/reference/compiler.h"
#include "base/diagnostic.h"
#include "ir/operator.h"

namespace edgec {
namespace {

class ReferencePartitioner final : public Partitioner {
 public:
  explicit ReferencePartitioner(std::set<std::string> ops) : ops_(std::move(ops)) {
    for (const auto& op : ops_) op_list_ += (op_list_.empty() ? "" : ", ") + op;
  }

  const std::string& backend() const override { return reference_backend_compiler().id(); }

  std::optional<std::string> refuse(const Program&, const Node& call) const override {
    const auto name = split_op_name(call.op());
    const OpInfo* op = op_of(call);
    if (!name || !op || !op->core) return "operator " + call.op() + " has no portable kernel";
    if (!ops_.empty() && !ops_.count(name->name))
      return "operator " + name->name + " is not in the operator set (" + op_list_ + ")";
    return std::nullopt;
  }

 private:
  std::set<std::string> ops_;  // empty: every core operator
  std::string op_list_;        // for refusal reasons, sorted
};

}  // namespace

ReferenceCompiler::ReferenceCompiler()
    : BackendCompiler("reference",
                      "runs partitions on the portable kernels (tests the lowering); options: operator set, e.g. add+matmul") {}

std::unique_ptr<Partitioner> ReferenceCompiler::make_partitioner(const std::string& options) const {
  std::set<std::string> ops;
  size_t start = 0;
  while (!options.empty() && start <= options.size()) {
    const size_t end = std::min(options.find('+', start), options.size());
    const std::string name = options.substr(start, end - start);
    if (name.empty())
      throw CompileError("reference: empty operator name in options '" + options + "' (expected e.g. add+matmul)");
    const OpInfo* op = find_op_by_name(name);
    if (!op) throw CompileError("reference: unknown operator '" + name + "' in options '" + options + "'");
    if (!op->core)
      throw CompileError("reference: operator '" + name + "' in options '" + options +
                         "' is not a core operator (it is decomposed before partitioning)");
    ops.insert(name);
    start = end + 1;
  }
  return std::make_unique<ReferencePartitioner>(std::move(ops));
}

const BackendCompiler& reference_backend_compiler() {
  static const ReferenceCompiler kCompiler;
  return kCompiler;
}

}  // namespace edgec
