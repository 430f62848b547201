// to_backend (docs/semantics.md §4.4, 5): each tagged partition becomes a delegate
// program plus a call_delegate node in the owning program, with every shared
// constant handled once (one pass over all tags, one validation).
#pragma once

#include <set>
#include <string>

#include "ir/program.h"

namespace edgec {

/// Lowers the partitions whose tags are in `tags` (every tag when empty).
/// Afterwards the owning program and every delegate verify (5.7); delegates
/// are numbered in the graph order of their call_delegate nodes, so the
/// result does not depend on tag names or on how the tags were split over
/// several calls. Returns the number of delegates created. Throws
/// CompileError (a tag naming no call, a partition that is not convex).
size_t to_backend(Program& program, const std::set<std::string>& tags = {});

}  // namespace edgec
