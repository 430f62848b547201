// The onednn payload: the delegate program as a program-file table
// (program.fbs) without tensor bytes, exactly as the reference backend's.
// Primitives depend on the machine (ISA, thread count), so they are built
// at init from this portable description rather than at compile time; the
// constants are resolved by key against the file's named data (SEMANTICS 6),
// so weights are stored once and mapped without a copy.
#include "backends/onednn/compiler.h"
#include "serialize/writer.h"

namespace edgec {

std::vector<std::byte> OnednnCompiler::preprocess(const Program& delegate) const {
  // The table writer reports a second placeholder for one target as the
  // build error SEMANTICS 6 asks for.
  return serialize_program_table(delegate, id() + ": delegate builder");
}

}  // namespace edgec
