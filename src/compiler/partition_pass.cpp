// `partition=LIST`: tags the calls each backend of LIST takes, in priority
// order (docs/semantics.md §4), for `edgec opt`; compile_program calls
// partition_program itself.
#include "compiler/backends.h"
#include "lowering/partition.h"
#include "passes/pass.h"

namespace edgec {
namespace {

class PartitionPass : public Pass {
 public:
  explicit PartitionPass(std::string_view list) : partitioners_(make_partitioners(std::string(list))) {}
  bool run(Program& program) override { return partition_program(program, partitioners_) > 0; }

 private:
  std::vector<std::unique_ptr<Partitioner>> partitioners_;
};

}  // namespace

std::unique_ptr<Pass> create_partition_pass(std::string_view options) {
  return std::make_unique<PartitionPass>(options);
}

}  // namespace edgec
