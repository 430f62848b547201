// The reference payload: the delegate program as a program-file table
// (program.fbs) without tensor bytes. Its constant and state slots name
// their data by target; the runtime side resolves them against the file's
// named data, so each target's bytes are stored once however many programs
// read them (docs/semantics.md §6). Reusing the writer's table keeps payload and file
// in one format, validated by one loader.
#include "backends/reference/compiler.h"
#include "serialize/writer.h"

namespace edgec {

std::vector<std::byte> ReferenceCompiler::preprocess(const Program& delegate) const {
  // The table writer gives each target one slot and reports a second
  // placeholder for it as the build error docs/semantics.md §6 asks for.
  return serialize_program_table(delegate, id() + ": delegate builder");
}

}  // namespace edgec
