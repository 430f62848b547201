// Topological order of a graph's nodes, or the cycle that prevents one
// (node_order.h).
#include "frontends/onnx/node_order.h"

#include <functional>
#include <queue>

namespace edgec::onnx_import {

bool topological_order(int count, std::span<const NodeEdge> edges, std::span<const size_t> first,
                       std::vector<int>& order, NodeCycle& cycle) {
  // Kahn's algorithm, the smallest ready index first.
  std::vector<size_t> waiting(static_cast<size_t>(count));  // edges not yet satisfied
  std::vector<std::vector<int>> readers(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    const size_t at = static_cast<size_t>(i);
    waiting[at] = first[at + 1] - first[at];
    for (size_t e = first[at]; e < first[at + 1]; ++e) readers[static_cast<size_t>(edges[e].producer)].push_back(i);
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < count; ++i)
    if (waiting[static_cast<size_t>(i)] == 0) ready.push(i);
  order.clear();
  std::vector<bool> done(static_cast<size_t>(count), false);
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    done[static_cast<size_t>(i)] = true;
    for (int r : readers[static_cast<size_t>(i)])
      if (--waiting[static_cast<size_t>(r)] == 0) ready.push(r);
  }
  if (order.size() == static_cast<size_t>(count)) return true;

  // A cycle: from the first node left, follow what it reads from nodes
  // left (each such node reads one) until a node repeats.
  int at = 0;
  while (done[static_cast<size_t>(at)]) ++at;
  std::vector<int> walk;  // walk[k] reads via[k] from walk[k + 1]
  std::vector<std::string_view> via;
  std::vector<int> pos(static_cast<size_t>(count), -1);
  while (pos[static_cast<size_t>(at)] < 0) {
    pos[static_cast<size_t>(at)] = static_cast<int>(walk.size());
    walk.push_back(at);
    size_t e = first[static_cast<size_t>(at)];
    while (done[static_cast<size_t>(edges[e].producer)]) ++e;
    via.push_back(edges[e].value);
    at = edges[e].producer;
  }
  // The cycle is walk[pos[at]...], rotated to start at its lowest index.
  const size_t begin = static_cast<size_t>(pos[static_cast<size_t>(at)]), len = walk.size() - begin;
  size_t start = begin;
  for (size_t k = begin; k < walk.size(); ++k)
    if (walk[k] < walk[start]) start = k;
  cycle.nodes.clear();
  cycle.values.clear();
  for (size_t k = 0; k < len; ++k) {
    const size_t w = begin + (start - begin + k) % len;
    cycle.nodes.push_back(walk[w]);
    cycle.values.push_back(via[w]);
  }
  return false;
}

}  // namespace edgec::onnx_import
