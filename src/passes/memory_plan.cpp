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
#include <algorithm>

#include "ir/diagnostic.h"
#include "passes/pass_list.h"

namespace edgec {
namespace {

constexpr uint64_t kAlign = 64;

struct Interval {
  const Value* value;
  size_t start, end;  // inclusive call positions
  uint64_t size;
};

uint64_t planned_size(const Value* v) {
  auto n = v->type().max_numel();
  if (!n) {
    std::string symbols;
    for (const Dim& d : v->type().dims)
      if (!d.upper_bound()) symbols += (symbols.empty() ? "" : ", ") + d.symbol;
    throw CompileError("%" + v->name() + " has type " + v->type().str() + " with unbounded symbolic dimension(s) " +
                       symbols + "; fix or bound each (edgec compile --dim NAME=SIZE or --max-dim NAME=MAX)");
  }
  const uint64_t bytes = static_cast<uint64_t>(*n) * dtype_size(v->type().dtype);
  return (bytes + kAlign - 1) / kAlign * kAlign;
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
    const auto calls = program.graph.calls();
    std::map<const Node*, size_t> pos;
    for (size_t i = 0; i < calls.size(); ++i) pos[calls[i]] = i;
    const size_t end_of_program = calls.size();

    std::vector<Interval> intervals;
    for (const Node* n : calls) {
      for (size_t r = 0; r < n->num_results(); ++r) {
        const Value* v = n->result(r);
        size_t last = pos.at(n);
        for (const Use& u : v->uses()) last = std::max(last, u.user->is_output() ? end_of_program : pos.at(u.user));
        intervals.push_back({v, pos.at(n), last, planned_size(v)});
      }
    }
    std::vector<size_t> order(intervals.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (intervals[a].size != intervals[b].size) return intervals[a].size > intervals[b].size;
      return intervals[a].start < intervals[b].start;
    });

    MemoryPlan plan;
    std::vector<std::pair<const Interval*, uint64_t>> placed;
    for (size_t idx : order) {
      const Interval& iv = intervals[idx];
      // Collect the blocks alive at the same time, sorted by offset, and take
      // the first gap that fits.
      std::vector<std::pair<uint64_t, uint64_t>> busy;
      for (const auto& [other, offset] : placed)
        if (other->start <= iv.end && iv.start <= other->end && other->size > 0)
          busy.emplace_back(offset, offset + other->size);
      std::sort(busy.begin(), busy.end());
      uint64_t offset = 0;
      for (const auto& [lo, hi] : busy) {
        if (offset + iv.size <= lo) break;
        offset = std::max(offset, hi);
      }
      placed.emplace_back(&iv, offset);
      plan.values[iv.value->name()] = PlannedValue{offset, iv.size};
      plan.arena_size = std::max(plan.arena_size, offset + iv.size);
    }
    const bool changed = !(plan.values == program.memory_plan.values && plan.arena_size == program.memory_plan.arena_size);
    program.memory_plan = std::move(plan);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> create_memory_plan_pass(std::string_view) { return std::make_unique<MemoryPlanPass>(); }

}  // namespace edgec
