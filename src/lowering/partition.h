// Partitioning (docs/semantics.md §4): partitioners, in priority order, tag the calls
// their backend takes; the calls a backend takes are grouped into connected
// partitions that are acyclic with respect to the rest of the graph and to
// every other partition, each with a unique tag. Refused calls record each
// backend's reason.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lowering/backend.h"

namespace edgec {

/// The backend a tag belongs to: the text before its first ':'
/// ("reference:3" -> "reference"), or the whole tag.
std::string tag_backend(const std::string& tag);

/// Runs `partitioners` in order over the untagged calls of `program` (a
/// later one only sees calls no earlier one took) and tags every partition
/// "<backend>:<n>" with n the next number no tag of the program uses. Calls
/// a partitioner refuses get its reason (Node::refusals). Returns the number
/// of partitions formed. Changes nothing but tags and refusals.
size_t partition_program(Program& program, const std::vector<std::unique_ptr<Partitioner>>& partitioners);

}  // namespace edgec
