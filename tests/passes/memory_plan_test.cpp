// memory_plan on graphs where many values are alive at once (issue 14: a
// concat of 10^5 values made greedy-by-size planning quadratic). Past its
// budget of overlapping lifetimes the pass plans in time order; either
// way no two values alive at the same call may share a byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "ir/program.h"
#include "ir/verifier.h"
#include "compiler/pass_registry.h"

namespace edgec {
namespace {

struct Lifetime {
  size_t start, end;
};

// Every pair of values whose lifetimes (call positions, from the defining
// call to the last reader, or past the end for an output) meet must have
// disjoint blocks in the plan, and every block must lie inside the arena.
void expect_valid_plan(const Program& p) {
  const auto calls = p.graph.calls();
  std::map<const Node*, size_t> pos;
  for (size_t i = 0; i < calls.size(); ++i) pos[calls[i]] = i;
  struct Placed {
    std::string name;
    Lifetime life;
    PlannedValue at;
  };
  std::vector<Placed> placed;
  for (const Node* n : calls) {
    const Value* v = n->result();
    size_t last = pos.at(n);
    for (const Use& u : v->uses()) last = std::max(last, u.user->is_output() ? calls.size() : pos.at(u.user));
    ASSERT_TRUE(p.memory_plan.values.count(v->name())) << v->name();
    placed.push_back({v->name(), {pos.at(n), last}, p.memory_plan.values.at(v->name())});
  }
  for (const Placed& a : placed) ASSERT_LE(a.at.offset + a.at.size, p.memory_plan.arena_size) << a.name;
  for (size_t i = 0; i < placed.size(); ++i)
    for (size_t j = i + 1; j < placed.size(); ++j) {
      const Placed &a = placed[i], &b = placed[j];
      const bool together = a.life.start <= b.life.end && b.life.start <= a.life.end;
      const bool overlap = a.at.offset < b.at.offset + b.at.size && b.at.offset < a.at.offset + a.at.size;
      ASSERT_FALSE(together && overlap) << a.name << " [" << a.at.offset << ", +" << a.at.size << ") and " << b.name
                                        << " [" << b.at.offset << ", +" << b.at.size << ") are alive together";
    }
}

TensorType f32(std::vector<int64_t> shape) { return TensorType::of(DType::Float32, std::move(shape)); }

Value* call(Program& p, const std::string& op, std::vector<Value*> inputs, TensorType t,
            std::vector<OperandGroup> groups = {}) {
  CallSpec s;
  s.op = op;
  s.inputs = std::move(inputs);
  s.groups = std::move(groups);
  s.result_types = {std::move(t)};
  return p.graph.create_call(std::move(s))->result();
}

void plan(Program& p) {
  find_pass("memory_plan")->create("")->run(p);
  EXPECT_TRUE(verify(p).empty());
}

// N values alive together until one concat reads them all: far past the
// budget, so planned in time order. Nothing is alive but them at the
// concat, so the arena is exactly their blocks plus the concat's.
TEST(MemoryPlan, ConcatOfManyValuesIsPlannedInTimeOrder) {
  constexpr int kValues = 3000;
  Program p;
  p.dialect = "edge";
  Value* x = p.graph.add_placeholder("x", f32({4}))->result();
  p.inputs.push_back(InputSpec{InputKind::UserInput, "x", "x", false});
  std::vector<Value*> parts;
  for (int i = 0; i < kValues; ++i) parts.push_back(call(p, "edge.relu.default", {x}, f32({4})));
  Value* y = call(p, "edge.concat.default", parts, f32({4 * kValues}), {OperandGroup{true, kValues}});
  p.graph.set_outputs({y});
  p.outputs.push_back(OutputSpec{OutputKind::UserOutput, y->name(), "y"});
  plan(p);
  expect_valid_plan(p);
  EXPECT_EQ(p.memory_plan.arena_size, uint64_t{64} * kValues + 4 * kValues * 4);
}

// A random graph whose values live for random spans, dense enough to pass
// the budget: the time-order plan is valid whatever the lifetimes.
TEST(MemoryPlan, RandomLifetimesPastTheBudgetNeverShareMemory) {
  std::mt19937 rng(14);
  Program p;
  p.dialect = "edge";
  Value* x = p.graph.add_placeholder("x", f32({4}))->result();
  p.inputs.push_back(InputSpec{InputKind::UserInput, "x", "x", false});
  std::vector<Value*> values = {x};
  for (int i = 0; i < 2500; ++i) {
    Value* a = values[rng() % values.size()];
    Value* b = values[values.size() - 1 - rng() % std::min<size_t>(values.size(), 8)];
    const int64_t n = 1 + static_cast<int64_t>(rng() % 64);
    Value* s = call(p, "edge.add.Tensor", {a, b}, a->type());
    // A few reshaped copies of various sizes keep the block sizes mixed.
    values.push_back(n % 3 == 0 ? call(p, "edge.mul.Tensor", {s, s}, s->type()) : s);
  }
  std::vector<Value*> outs(values.end() - 16, values.end());
  p.graph.set_outputs(outs);
  for (Value* v : outs) p.outputs.push_back(OutputSpec{OutputKind::UserOutput, v->name(), v->name()});
  plan(p);
  expect_valid_plan(p);
}

}  // namespace
}  // namespace edgec
