// The order in which a graph's nodes are imported (importer.cpp,
// import_order): topological, and among the nodes ready at a time the
// file's, so that a sorted graph keeps its own order; or, when the nodes
// read each other's outputs in a circle, that cycle, for the message.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace edgec::onnx_import {

/// A node reads `value` from node `producer`.
struct NodeEdge {
  int producer;
  std::string_view value;
};

/// A cycle, from its node of lowest index: nodes[k] reads values[k] from
/// nodes[(k + 1) % size].
struct NodeCycle {
  std::vector<int> nodes;
  std::vector<std::string_view> values;
};

/// Sorts `count` nodes whose reads are `edges`, node by node (node i's are
/// edges[first[i], first[i + 1])): fills `order` and returns true, or
/// fills `cycle` and returns false.
bool topological_order(int count, std::span<const NodeEdge> edges, std::span<const size_t> first,
                       std::vector<int>& order, NodeCycle& cycle);

}  // namespace edgec::onnx_import
