// What the CLI asks of its allocator (mimalloc, when the build links it:
// EDGEC_MIMALLOC in CMakeLists.txt).
#include "commands.h"

#if EDGEC_MIMALLOC
#include <mimalloc.h>
#endif

namespace edgec::cli {

void prefer_large_pages() {
#if EDGEC_MIMALLOC
  // Only for compiling (a model of 10^5 folded constants: 2.5 s -> 2.0 s).
  // Not for run or bench: the runtime's init found huge-page faults slow
  // right after another process freed its memory, and keeps ordinary pages.
  mi_option_enable(mi_option_large_os_pages);
#endif
}

}  // namespace edgec::cli
