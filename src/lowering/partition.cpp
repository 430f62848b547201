// Partition forming (docs/semantics.md §4.3). The graph is first contracted: every
// existing partition (an earlier partitioner's tag) and every call_delegate
// becomes one node, so that a later partitioner, or a second partition run
// after to_backend, sees the same structure either way (4.2). The contracted
// graph is swept in topological order; a call the backend takes joins a
// partition of one of its producers unless a path leaves that partition and
// comes back to the call (which would make extraction create a cycle), and
// partitions meeting at a call merge when neither reaches the other through
// the outside. exits[g] holds the partitions with a path to g that leaves
// them; it is the only state, so the sweep is linear in the graph times the
// (small) number of partitions a path can leave.
#include "lowering/partition.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <unordered_map>

#include "base/diagnostic.h"

namespace edgec {
namespace {

using IdSet = std::vector<int>;  // sorted, unique

void insert_sorted(IdSet& s, int id) {
  auto it = std::lower_bound(s.begin(), s.end(), id);
  if (it == s.end() || *it != id) s.insert(it, id);
}

using IdSetPtr = std::shared_ptr<const IdSet>;

const IdSetPtr& empty_set() {
  static const IdSetPtr kEmpty = std::make_shared<const IdSet>();
  return kEmpty;
}

/// a | b, returning one of them (no copy) when it already holds the other.
IdSetPtr unite(const IdSetPtr& a, const IdSetPtr& b) {
  if (a == b || b->empty()) return a;
  if (a->empty()) return b;
  if (a->size() >= b->size() && std::includes(a->begin(), a->end(), b->begin(), b->end())) return a;
  if (b->size() > a->size() && std::includes(b->begin(), b->end(), a->begin(), a->end())) return b;
  auto out = std::make_shared<IdSet>();
  out->reserve(a->size() + b->size());
  std::set_union(a->begin(), a->end(), b->begin(), b->end(), std::back_inserter(*out));
  return out;
}

bool contains(const IdSet& s, int id) { return std::binary_search(s.begin(), s.end(), id); }

/// a | {id}, sharing a when it already holds id.
IdSetPtr with(const IdSetPtr& a, int id) {
  if (contains(*a, id)) return a;
  auto out = std::make_shared<IdSet>(*a);
  insert_sorted(*out, id);
  return out;
}

struct UnionFind {
  std::vector<int> parent;
  int make() {
    parent.push_back(static_cast<int>(parent.size()));
    return parent.back();
  }
  int find(int x) {
    while (parent[static_cast<size_t>(x)] != x) {
      parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      x = parent[static_cast<size_t>(x)];
    }
    return x;
  }
};

/// Tags of the form "<backend>:<n>": the next free n over every tag.
int next_tag_number(const std::vector<Node*>& calls) {
  int next = 0;
  for (const Node* n : calls) {
    const std::string& t = n->tag();
    const size_t colon = t.rfind(':');
    if (colon == std::string::npos || colon + 1 == t.size()) continue;
    const std::string digits = t.substr(colon + 1);
    if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit)) continue;
    next = std::max(next, std::stoi(digits) + 1);
  }
  return next;
}

/// The contracted graph: one group per existing tag, one per other call,
/// with the edges between groups that value uses make.
struct ContractedGraph {
  std::vector<Node*> calls;
  std::vector<int> group_of;         // by call index
  std::vector<size_t> first_member;  // by group: smallest call index
  std::vector<bool> candidate;       // by group: an untagged call this backend takes
  std::vector<std::vector<int>> preds, succs;  // by group: sorted, unique
  size_t num_groups() const { return first_member.size(); }
};

/// Groups `program`'s calls. Asks the partitioner about every untagged call
/// that is not a delegate call, recording its refusals on the node.
ContractedGraph group_calls(Program& program, const Partitioner& partitioner) {
  ContractedGraph cg;
  cg.calls = program.graph.calls();
  cg.group_of.assign(cg.calls.size(), -1);
  std::map<std::string, int> tag_group;
  for (size_t i = 0; i < cg.calls.size(); ++i) {
    Node* n = cg.calls[i];
    if (!n->tag().empty()) {
      auto [it, inserted] = tag_group.emplace(n->tag(), static_cast<int>(cg.first_member.size()));
      if (inserted) {
        cg.first_member.push_back(i);
        cg.candidate.push_back(false);
      }
      cg.group_of[i] = it->second;
      continue;
    }
    cg.group_of[i] = static_cast<int>(cg.first_member.size());
    cg.first_member.push_back(i);
    bool takes = false;
    if (n->is_control_flow()) {
      // A region runs on the portable kernels, called by the runtime's own
      // control flow; no delegate takes a call with regions (yet).
      n->add_refusal({partitioner.backend(), "control flow (" + n->op() +
                                                 ") runs on the portable runtime; delegates do not take regions"});
    } else if (!n->is_delegate_call()) {
      if (auto reason = partitioner.refuse(program, *n)) {
        n->add_refusal({partitioner.backend(), *reason});
      } else {
        takes = true;
      }
    }
    cg.candidate.push_back(takes);
  }
  return cg;
}

/// Edges between groups, from value uses.
void add_group_edges(ContractedGraph& cg) {
  std::unordered_map<const Node*, size_t> index;
  for (size_t i = 0; i < cg.calls.size(); ++i) index[cg.calls[i]] = i;
  cg.preds.assign(cg.num_groups(), {});
  cg.succs.assign(cg.num_groups(), {});
  for (size_t i = 0; i < cg.calls.size(); ++i) {
    const int g = cg.group_of[i];
    for (const Value* v : cg.calls[i]->inputs()) {
      auto it = index.find(v->producer());
      if (it == index.end()) continue;  // a placeholder
      const int p = cg.group_of[it->second];
      if (p == g) continue;
      cg.preds[static_cast<size_t>(g)].push_back(p);
      cg.succs[static_cast<size_t>(p)].push_back(g);
    }
  }
  for (auto* lists : {&cg.preds, &cg.succs})
    for (auto& l : *lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
}

/// Topological order of the groups, earliest first member first.
std::vector<int> topological_order(const ContractedGraph& cg) {
  const size_t num_groups = cg.num_groups();
  std::vector<size_t> indegree(num_groups);
  for (size_t g = 0; g < num_groups; ++g) indegree[g] = cg.preds[g].size();
  using Item = std::pair<size_t, int>;  // (first member, group)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (size_t g = 0; g < num_groups; ++g)
    if (indegree[g] == 0) ready.push({cg.first_member[g], static_cast<int>(g)});
  std::vector<int> order;
  while (!ready.empty()) {
    const int g = ready.top().second;
    ready.pop();
    order.push_back(g);
    for (int s : cg.succs[static_cast<size_t>(g)])
      if (--indegree[static_cast<size_t>(s)] == 0) ready.push({cg.first_member[static_cast<size_t>(s)], s});
  }
  if (order.size() != num_groups)
    throw CompileError("partition: the existing partitions form a cycle (a tagged partition is not convex)");
  return order;
}

/// The sweep. Exit sets are shared between a node and its producer when
/// nothing is added (inside a partition, along a chain), so a long graph
/// with many partitions costs O(calls + partitions^2), not O(calls *
/// partitions). Sets hold partition ids as they were when added; merged
/// partitions are recognized through their aliases.
class Sweep {
 public:
  explicit Sweep(const ContractedGraph& cg)
      : cg_(cg), part_(cg.num_groups(), -1), exits_(cg.num_groups(), empty_set()) {}

  /// Visits group `g`, whose predecessors have all been visited.
  void visit(int g) {
    const auto& ps = cg_.preds[static_cast<size_t>(g)];
    IdSetPtr forbidden = empty_set();
    for (int p : ps) forbidden = unite(forbidden, exits_[static_cast<size_t>(p)]);
    if (cg_.candidate[static_cast<size_t>(g)]) part_[static_cast<size_t>(g)] = choose_partition(ps, forbidden);
    const int mine = partition_of(g);
    IdSetPtr e = forbidden;
    for (int p : ps) {
      const int q = part_[static_cast<size_t>(p)];
      if (q >= 0 && uf_.find(q) != mine) e = with(e, uf_.find(q));
    }
    if (mine >= 0) partition_exits_[static_cast<size_t>(mine)] = unite(partition_exits_[static_cast<size_t>(mine)], e);
    exits_[static_cast<size_t>(g)] = std::move(e);
  }

  /// The partition group `g` ended in (by its root id), or -1.
  int partition_of(int g) { return part_[static_cast<size_t>(g)] >= 0 ? uf_.find(part_[static_cast<size_t>(g)]) : -1; }

 private:
  // Whether `set` holds partition `root` under any of its ids: by walking
  // the smaller of the two, so that merging many partitions at one wide
  // call (a concat of 10^5 values) is not quadratic.
  bool holds(const IdSetPtr& set, int root) {
    const auto& ids = aliases_[static_cast<size_t>(root)];
    if (set->size() <= ids.size()) {
      for (int a : *set)
        if (uf_.find(a) == root) return true;
      return false;
    }
    for (int a : ids)
      if (contains(*set, a)) return true;
    return false;
  }

  /// The partition a candidate with predecessors `ps` joins: its
  /// producers' partitions that no path leaves and re-enters, merged where
  /// neither reaches the other; a new one if there are none.
  int choose_partition(const std::vector<int>& ps, const IdSetPtr& forbidden) {
    IdSet allowed;
    for (int p : ps) {
      const int q = part_[static_cast<size_t>(p)];
      if (q >= 0 && !holds(forbidden, uf_.find(q))) allowed.push_back(uf_.find(q));
    }
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    int chosen = -1;
    for (int q : allowed) {
      if (chosen < 0) {
        chosen = q;
        continue;
      }
      if (holds(partition_exits_[static_cast<size_t>(chosen)], q) ||
          holds(partition_exits_[static_cast<size_t>(q)], chosen))
        continue;
      merge(q, chosen);
    }
    if (chosen < 0) {
      chosen = uf_.make();
      aliases_.push_back({chosen});
      partition_exits_.push_back(empty_set());
    }
    return chosen;
  }

  /// Merges partition root `q` into root `into_root`.
  void merge(int q, int into_root) {
    uf_.parent[static_cast<size_t>(q)] = into_root;
    // The smaller list goes into the larger (which one ends up as
    // into_root's does not matter: it is a set of ids).
    auto& into = aliases_[static_cast<size_t>(into_root)];
    auto& from = aliases_[static_cast<size_t>(q)];
    if (from.size() > into.size()) into.swap(from);
    into.insert(into.end(), from.begin(), from.end());
    from.clear();
    partition_exits_[static_cast<size_t>(into_root)] =
        unite(partition_exits_[static_cast<size_t>(into_root)], partition_exits_[static_cast<size_t>(q)]);
  }

  const ContractedGraph& cg_;
  UnionFind uf_;
  std::vector<std::vector<int>> aliases_;  // by root: every id merged into it
  std::vector<int> part_;                  // by group: its partition id, or -1
  std::vector<IdSetPtr> exits_;            // by group
  std::vector<IdSetPtr> partition_exits_;  // by partition id: union of its members' exits
};

/// Tags the calls of each partition, numbered in graph order of each
/// partition's first call. Returns the number of partitions.
size_t tag_partitions(const ContractedGraph& cg, Sweep& sweep, const std::string& backend) {
  int next = next_tag_number(cg.calls);
  std::map<int, std::string> tag_of;
  for (size_t i = 0; i < cg.calls.size(); ++i) {
    const int q = sweep.partition_of(cg.group_of[i]);
    if (q < 0) continue;
    auto [it, inserted] = tag_of.emplace(q, "");
    if (inserted) it->second = backend + ":" + std::to_string(next++);
    cg.calls[i]->set_tag(it->second);
  }
  return tag_of.size();
}

/// One partitioner's pass over the contracted graph. Returns partitions formed.
size_t run_partitioner(Program& program, const Partitioner& partitioner) {
  ContractedGraph cg = group_calls(program, partitioner);
  add_group_edges(cg);
  const std::vector<int> order = topological_order(cg);
  Sweep sweep(cg);
  for (int g : order) sweep.visit(g);
  return tag_partitions(cg, sweep, partitioner.backend());
}

}  // namespace

std::string tag_backend(const std::string& tag) { return tag.substr(0, tag.find(':')); }

size_t partition_program(Program& program, const std::vector<std::unique_ptr<Partitioner>>& partitioners) {
  size_t formed = 0;
  for (const auto& p : partitioners) formed += run_partitioner(program, *p);
  return formed;
}

}  // namespace edgec
