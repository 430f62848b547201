// The xnnpack payload: the delegate program as a program-file table
// (program.fbs) without tensor bytes, exactly as the reference backend's.
// XNNPACK's operators depend on the machine (its kernels, the thread
// count), and packing the weights is XNNPACK's own work at create, so they
// are made at init from this portable description; the constants are
// resolved by key against the file's named data (docs/semantics.md §6), so
// weights are stored once and packed from the mapped file.
#include "backends/xnnpack/compiler.h"
#include "serialize/writer.h"

namespace edgec {

std::vector<std::byte> xnnpack_payload(const Program& delegate) {
  return serialize_program_table(delegate, "xnnpack: delegate builder");
}

}  // namespace edgec
