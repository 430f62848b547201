// memory_plan: places every activation (each call result) in one arena so
// that values alive at the same time never overlap, reusing memory once a
// value's last reader has run.
//
// Lifetimes are intervals of call positions: from the defining call to the
// last reader (graph outputs live to the end). Values are placed largest
// first at the lowest 64-byte-aligned offset that does not collide with an
// already placed value whose lifetime intersects (greedy by size, which is
// close to optimal on inference graphs and deterministic: ties break on
// position). Data-dependent values reserve their upper bound; a symbolic
// dimension without a bound cannot be planned and is an error naming it.
// Delegate programs are planned the same way, each with its own arena.
//
// Finding the placed blocks whose lifetimes meet a value's is a query on an
// index of lifetimes (PlacedBlocks), not a scan of every placed block: the
// scan made planning quadratic (12 s for a chain of 100,000 calls). Still,
// each placement looks at every block alive beside it, so a graph where
// many values are alive together (a concat of 100,000 values) is quadratic
// however they are indexed. The pass counts those pairs first (n log n) and,
// past a budget of kMostOverlapsPerValue per value, plans in time order
// instead: a best-fit free list that takes each value at its definition and
// gives its block back after its last reader (n log n; a little more memory
// than greedy by size on such graphs, the same on every model we have).
#include <algorithm>
#include <bit>
#include <set>
#include <unordered_map>

#include "base/diagnostic.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

constexpr uint64_t kAlign = 64;
// Greedy by size visits every pair of values alive at once; past this many
// pairs per value (plus a constant for small graphs) it is not worth it.
constexpr uint64_t kMostOverlapsPerValue = 64;
constexpr uint64_t kOverlapsAlwaysAllowed = uint64_t{1} << 20;

struct Interval {
  const Value* value;  // Null for a control-flow call's block for its regions.
  size_t start, end;  // inclusive call positions
  uint64_t size;
};

uint64_t planned_size(const Value* v) {
  auto n = v->type().max_numel();
  std::string symbols;
  for (const Dim& d : v->type().dims)
    if (!d.upper_bound()) symbols += (symbols.empty() ? "" : ", ") + d.symbol.str();
  if (!symbols.empty())
    throw CompileError("%" + v->name() + " has type " + v->type().str() + " with unbounded symbolic dimension(s) " +
                       symbols + "; fix or bound each (edgec compile --dim NAME=SIZE or --max-dim NAME=MAX, or every dim of an "
                       "input with --shape / --max-shape INPUT=D0xD1x...)");
  // max_numel is nullopt past 2^63 elements; the bytes (aligned) must fit too.
  uint64_t bytes = 0;
  if (!n || __builtin_mul_overflow(static_cast<uint64_t>(*n), dtype_size(v->type().dtype), &bytes) ||
      bytes > UINT64_MAX - kAlign)
    throw CompileError("%" + v->name() + " has type " + v->type().str() +
                       ", whose size in bytes overflows 64 bits; it cannot be planned");
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

/// Placed blocks by lifetime start, with a max-tree over the starts of the
/// latest end, so that the blocks alive during [s, e] (start <= e and
/// end >= s) are found in O((k + 1) log n) for k of them.
class PlacedBlocks {
 public:
  explicit PlacedBlocks(size_t positions) {
    while (leaves_ < positions) leaves_ *= 2;
    end_plus_one_.assign(2 * leaves_, 0);  // 0: no block below
    by_start_.resize(leaves_);
  }

  void add(const Interval& iv, uint64_t offset) {
    by_start_[iv.start].push_back({iv.end, offset, offset + iv.size});
    for (size_t i = iv.start + leaves_; i >= 1; i /= 2) end_plus_one_[i] = std::max(end_plus_one_[i], iv.end + 1);
  }

  /// Appends [lo, hi) of every block alive at some position of [s, e].
  void collect(size_t s, size_t e, std::vector<std::pair<uint64_t, uint64_t>>& out) const {
    // Iterative descent: the tree is only log2(n) deep, but no recursion
    // is needed either.
    std::vector<std::pair<size_t, size_t>> stack = {{1, 0}};  // (node, first leaf)
    while (!stack.empty()) {
      const auto [node, first] = stack.back();
      stack.pop_back();
      if (first > e || end_plus_one_[node] <= s) continue;
      if (node >= leaves_) {
        for (const Block& b : by_start_[first])
          if (b.end >= s) out.emplace_back(b.lo, b.hi);
        continue;
      }
      const size_t half = leaves_ >> (std::bit_width(node) - 1) >> 1;  // leaves under each child
      stack.push_back({2 * node + 1, first + half});
      stack.push_back({2 * node, first});
    }
  }

 private:
  struct Block {
    size_t end;
    uint64_t lo, hi;
  };
  size_t leaves_ = 1;
  std::vector<size_t> end_plus_one_;  ///< Per tree node: 1 + the latest end below it.
  std::vector<std::vector<Block>> by_start_;
};

// The number of pairs of intervals that share a position: all pairs but
// those where one ends before the other starts.
uint64_t overlapping_pairs(const std::vector<Interval>& intervals) {
  std::vector<size_t> ends;
  ends.reserve(intervals.size());
  for (const Interval& iv : intervals) ends.push_back(iv.end);
  std::sort(ends.begin(), ends.end());
  const uint64_t n = intervals.size();
  uint64_t disjoint = 0;
  for (const Interval& iv : intervals)  // intervals ending before iv starts
    disjoint += static_cast<uint64_t>(std::lower_bound(ends.begin(), ends.end(), iv.start) - ends.begin());
  return n * (n - 1) / 2 - disjoint;
}

// Greedy by size: each value, largest first, at the lowest offset free
// during its whole lifetime.
// What an interval is, for messages.
std::string what(const Interval& iv) {
  return iv.value ? "%" + iv.value->name() + " of type " + iv.value->type().str() : std::string("a control-flow call's regions");
}

// Records where interval `i` went.
void place(const std::vector<Interval>& intervals, size_t i, uint64_t offset, MemoryPlan& plan,
           std::vector<uint64_t>& offsets) {
  offsets[i] = offset;
  if (intervals[i].value) plan.values[intervals[i].value->name()] = PlannedValue{offset, intervals[i].size};
}

void plan_by_size(const std::vector<Interval>& intervals, size_t positions, MemoryPlan& plan,
                  std::vector<uint64_t>& offsets) {
  std::vector<size_t> order(intervals.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (intervals[a].size != intervals[b].size) return intervals[a].size > intervals[b].size;
    return intervals[a].start < intervals[b].start;
  });
  PlacedBlocks placed(positions);
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (size_t idx : order) {
    const Interval& iv = intervals[idx];
    // Collect the blocks alive at the same time, sorted by offset, and take
    // the first gap that fits.
    busy.clear();
    placed.collect(iv.start, iv.end, busy);
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0, end = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + iv.size <= lo && offset + iv.size >= offset) break;
      offset = std::max(offset, hi);
    }
    // Huge declared shapes (a ConstantOfShape of 2^62 bytes, several alive
    // at once) must not wrap the arena around 2^64.
    if (__builtin_add_overflow(offset, iv.size, &end))
      throw CompileError(what(iv) + " does not fit: the memory plan would need more than 2^64 bytes");
    if (iv.size > 0) placed.add(iv, offset);
    place(intervals, idx, offset, plan, offsets);
    plan.arena_size = std::max(plan.arena_size, end);
  }
}

/// Free gaps of the arena for plan_in_time_order: by offset (to merge
/// neighbours) and by size (best fit). The tail past the highest block is
/// one gap that never runs out.
class FreeList {
 public:
  FreeList() { insert(0, kTail); }

  /// The offset of a block of `size` bytes: the smallest gap that fits,
  /// lowest offset among equal ones.
  uint64_t take(uint64_t size) {
    auto it = by_size_.lower_bound({size, 0});
    const auto [gap, offset] = *it;  // the tail always fits
    erase(offset);
    if (gap != size) insert(offset + size, gap == kTail ? kTail : gap - size);
    return offset;
  }

  void give_back(uint64_t offset, uint64_t size) {
    uint64_t lo = offset, len = size;
    auto next = by_offset_.lower_bound(offset);
    if (next != by_offset_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == lo) {
        lo = prev->first;
        len += prev->second;
        erase(prev->first);
      }
    }
    next = by_offset_.lower_bound(offset);
    if (next != by_offset_.end() && next->first == offset + size) {
      len = next->second == kTail ? kTail : len + next->second;
      erase(next->first);
    }
    insert(lo, len);
  }

 private:
  static constexpr uint64_t kTail = UINT64_MAX;
  void insert(uint64_t offset, uint64_t len) {
    by_offset_.emplace(offset, len);
    by_size_.insert({len, offset});
  }
  void erase(uint64_t offset) {
    auto it = by_offset_.find(offset);
    by_size_.erase({it->second, offset});
    by_offset_.erase(it);
  }
  std::map<uint64_t, uint64_t> by_offset_;     // offset -> length
  std::set<std::pair<uint64_t, uint64_t>> by_size_;  // (length, offset)
};

// In time order: at each call, its results take blocks (while its inputs
// still hold theirs), then the values it read last give theirs back.
void plan_in_time_order(const std::vector<Interval>& intervals, size_t positions, MemoryPlan& plan,
                        std::vector<uint64_t>& block_offsets) {
  std::vector<std::vector<size_t>> defined(positions + 1), last_read(positions + 1);
  for (size_t i = 0; i < intervals.size(); ++i) {
    defined[intervals[i].start].push_back(i);
    last_read[intervals[i].end].push_back(i);
  }
  FreeList free;
  std::vector<uint64_t> offsets(intervals.size(), 0);
  for (size_t p = 0; p <= positions; ++p) {
    for (size_t i : defined[p]) {
      const Interval& iv = intervals[i];
      if (iv.size > 0) offsets[i] = free.take(iv.size);
      uint64_t end = 0;
      if (__builtin_add_overflow(offsets[i], iv.size, &end))
        throw CompileError(what(iv) + " does not fit: the memory plan would need more than 2^64 bytes");
      place(intervals, i, offsets[i], plan, block_offsets);
      plan.arena_size = std::max(plan.arena_size, end);
    }
    for (size_t i : last_read[p])
      if (intervals[i].size > 0) free.give_back(offsets[i], intervals[i].size);
  }
}

class MemoryPlanPass : public Pass {
 public:
  bool run(Program& program) override {
    // Each delegate program gets its own plan (a backend that runs it on the
    // portable kernels, like `reference`, uses it; others may ignore it).
    bool changed = false;
    for (Delegate& d : program.delegates)
      if (d.program) changed |= run(*d.program);
    return plan(program) || changed;
  }

 private:
  bool plan(Program& program) {
    MemoryPlan plan = plan_graph(program.graph);
    const bool changed = !(plan.values == program.memory_plan.values && plan.arena_size == program.memory_plan.arena_size);
    program.memory_plan = std::move(plan);
    return changed;
  }

  // One graph's plan, offsets from 0. A control-flow call's regions are
  // planned first, each on its own; the call then reserves a block as
  // large as the largest of them for the time it runs (its position only),
  // and the regions' values are placed inside that block: every branch's
  // and the body's memory is planned, and none outlives its call.
  static MemoryPlan plan_graph(const Graph& g) {
    const auto calls = g.calls();
    std::unordered_map<const Node*, size_t> pos;
    for (size_t i = 0; i < calls.size(); ++i) pos[calls[i]] = i;
    const size_t end_of_program = calls.size();

    std::vector<Interval> intervals;
    std::vector<std::pair<size_t, MemoryPlan>> region_plans;  // (interval index, the regions' values)
    for (const Node* n : calls) {
      for (size_t r = 0; r < n->num_results(); ++r) {
        const Value* v = n->result(r);
        size_t last = pos.at(n);
        for (const Use& u : v->uses()) last = std::max(last, u.user->is_output() ? end_of_program : pos.at(u.user));
        intervals.push_back({v, pos.at(n), last, planned_size(v)});
      }
      if (n->num_regions() == 0) continue;
      MemoryPlan inner;
      for (size_t r = 0; r < n->num_regions(); ++r) {
        MemoryPlan p = plan_graph(n->region(r));
        inner.arena_size = std::max(inner.arena_size, p.arena_size);
        inner.values.merge(p.values);
      }
      region_plans.emplace_back(intervals.size(), std::move(inner));
      intervals.push_back({nullptr, pos.at(n), pos.at(n), region_plans.back().second.arena_size});
    }
    MemoryPlan plan;
    std::vector<uint64_t> offsets(intervals.size(), 0);
    const uint64_t budget = kOverlapsAlwaysAllowed + kMostOverlapsPerValue * intervals.size();
    if (overlapping_pairs(intervals) <= budget) {
      plan_by_size(intervals, end_of_program, plan, offsets);
    } else {
      plan_in_time_order(intervals, end_of_program, plan, offsets);
    }
    // Each region block's values move into it.
    for (auto& [index, inner] : region_plans)
      for (auto& [name, pv] : inner.values) plan.values[name] = PlannedValue{offsets[index] + pv.offset, pv.size};
    return plan;
  }
};

}  // namespace

std::unique_ptr<Pass> create_memory_plan_pass(std::string_view) { return std::make_unique<MemoryPlanPass>(); }

}  // namespace edgec
