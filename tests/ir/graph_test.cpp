// The IR editing API keeps use lists right: create, replace all uses,
// set_input, insert before/after, erase.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "base/diagnostic.h"
#include "ir/program.h"
#include "ir/text.h"
#include "ir/verifier.h"

namespace edgec {
namespace {

TensorType f32(std::vector<int64_t> shape) { return TensorType::of(DType::Float32, shape); }

bool uses_contain(const Value* v, const Node* user, int index) {
  const auto& u = v->uses();
  return std::find(u.begin(), u.end(), Use{const_cast<Node*>(user), index}) != u.end();
}

CallSpec call(const std::string& op, std::vector<Value*> inputs, TensorType type, std::string name = "") {
  CallSpec s;
  s.op = op;
  s.inputs = std::move(inputs);
  s.result_types = {std::move(type)};
  if (!name.empty()) s.result_names = {name};
  return s;
}

class GraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    x = g.add_placeholder("x", f32({2}))->result();
    y = g.add_placeholder("y", f32({2}))->result();
    add = g.create_call(call("aten.add.Tensor", {x, y}, f32({2}), "sum"));
    out = g.set_outputs({add->result()});
  }
  Graph g;
  Value* x = nullptr;
  Value* y = nullptr;
  Node* add = nullptr;
  Node* out = nullptr;
};

TEST_F(GraphTest, CreateRecordsUses) {
  ASSERT_EQ(x->uses().size(), 1u);
  EXPECT_TRUE(uses_contain(x, add, 0));
  EXPECT_TRUE(uses_contain(y, add, 1));
  EXPECT_TRUE(uses_contain(add->result(), out, 0));
  EXPECT_EQ(add->result()->producer(), add);
  EXPECT_EQ(g.nodes().back(), out);
}

TEST_F(GraphTest, SameValueTwiceHasTwoUses) {
  Node* sq = g.create_call(call("aten.mul.Tensor", {x, x}, f32({2})));
  EXPECT_TRUE(uses_contain(x, sq, 0));
  EXPECT_TRUE(uses_contain(x, sq, 1));
  EXPECT_EQ(x->uses().size(), 3u);
}

TEST_F(GraphTest, ReplaceAllUsesMovesEveryUse) {
  Node* sq = g.create_call(call("aten.mul.Tensor", {x, x}, f32({2})));
  x->replace_all_uses_with(y);
  EXPECT_TRUE(x->uses().empty());
  EXPECT_EQ(y->uses().size(), 4u);  // its own use in add, plus x's three
  EXPECT_EQ(sq->input(0), y);
  EXPECT_EQ(sq->input(1), y);
  EXPECT_EQ(add->input(0), y);
}

TEST_F(GraphTest, SetInputUpdatesBothUseLists) {
  add->set_input(1, x);
  EXPECT_TRUE(y->uses().empty());
  EXPECT_TRUE(uses_contain(x, add, 1));
}

TEST_F(GraphTest, InsertBeforeAndAfterKeepOrder) {
  Node* before = g.create_call(call("aten.sin.default", {x}, f32({2}), "s1"), add);
  Node* after = g.create_call_after(call("aten.sin.default", {add->result()}, f32({2}), "s2"), add);
  auto nodes = g.nodes();
  auto pos = [&](Node* n) { return std::find(nodes.begin(), nodes.end(), n) - nodes.begin(); };
  EXPECT_EQ(pos(before) + 1, pos(add));
  EXPECT_EQ(pos(add) + 1, pos(after));
  EXPECT_EQ(pos(after) + 1, pos(out));
}

TEST_F(GraphTest, PlaceholdersAppendAfterPlaceholders) {
  Node* z = g.add_placeholder("z", f32({2}));
  auto ph = g.placeholders();
  ASSERT_EQ(ph.size(), 3u);
  EXPECT_EQ(ph[2], z);
  EXPECT_EQ(g.nodes()[2], z);
}

TEST_F(GraphTest, EraseRefusesNodesWithUsers) {
  EXPECT_THROW(g.erase(add), CompileError);
}

TEST_F(GraphTest, EraseRemovesUsesOfInputs) {
  Node* dead = g.create_call(call("aten.sin.default", {x}, f32({2}), "dead"));
  ASSERT_EQ(x->uses().size(), 2u);
  g.erase(dead);
  EXPECT_EQ(x->uses().size(), 1u);
  EXPECT_EQ(g.find_value("dead"), nullptr);
  // The name is free again.
  EXPECT_EQ(g.unique_name("dead"), "dead");
}

TEST_F(GraphTest, UniqueNamesNeverCollide) {
  Value* second = g.add_placeholder("x", f32({2}))->result();
  EXPECT_NE(second->name(), "x");
  EXPECT_EQ(g.find_value(second->name()), second);
  EXPECT_EQ(g.find_value("x"), x);
  const std::string fresh = g.unique_name("x");
  EXPECT_EQ(g.find_value(fresh), nullptr);
}

TEST_F(GraphTest, SetOutputsReplacesOutputUses) {
  g.set_outputs({x, y});
  EXPECT_FALSE(add->result()->has_uses());
  EXPECT_TRUE(uses_contain(x, out, 0));
  EXPECT_TRUE(uses_contain(y, out, 1));
}

TEST(ProgramTest, EditedProgramVerifiesAndRoundTrips) {
  Program p;
  p.dialect = "aten";
  Value* x = p.graph.add_placeholder("x", f32({2}))->result();
  Value* w = p.graph.add_placeholder("w", f32({2}))->result();
  p.inputs = {{InputKind::UserInput, "x", "x"}, {InputKind::Constant, "w", "w"}};
  p.constants["w"] = TensorData{f32({2}), std::make_shared<std::vector<std::byte>>(8)};
  Node* s = p.graph.create_call(call("aten.sin.default", {x}, f32({2}), "s"));
  Node* m = p.graph.create_call(call("aten.mul.Tensor", {s->result(), w}, f32({2}), "m"));
  p.graph.set_outputs({m->result()});
  p.outputs = {{OutputKind::UserOutput, "m", "y"}};
  EXPECT_TRUE(verify(p).empty());
  // Rewire: read x directly and drop the sin.
  s->result()->replace_all_uses_with(x);
  p.graph.erase(s);
  EXPECT_TRUE(verify(p).empty());
  const std::string text = print_program(p);
  EXPECT_EQ(print_program(*parse_program(text, "t.ir")), text);
  EXPECT_NE(text.find("%m = aten.mul.Tensor(%x, %w) : f32[2]"), std::string::npos) << text;
}

}  // namespace
}  // namespace edgec

namespace edgec {
namespace {

// Where add_placeholder puts a placeholder, recomputed by walking: after
// the leading run of placeholders.
size_t expected_placeholder_slot(const Graph& g) {
  size_t i = 0;
  for (const Node* n : g.nodes()) {
    if (!n->is_placeholder()) break;
    ++i;
  }
  return i;
}

size_t index_of(const Graph& g, const Node* node) {
  const auto nodes = g.nodes();
  return static_cast<size_t>(std::find(nodes.begin(), nodes.end(), node) - nodes.begin());
}

// Regression (issue 14): add_placeholder walked the placeholders from the
// front each time (constant folding of K constants was O(K^2)); it now
// keeps the end of the leading run across inserts, erases and moves. Every
// edit that can move that end, then a placeholder lands where a walk says.
TEST(GraphPlaceholders, LandAfterTheLeadingRunWhateverTheEdits) {
  Graph g;
  Value* x = g.add_placeholder("x", f32({2}))->result();
  std::vector<Node*> calls;
  auto check = [&](const char* after) {
    const size_t want = expected_placeholder_slot(g);
    Node* ph = g.add_placeholder("p", f32({2}));
    EXPECT_EQ(index_of(g, ph), want) << "after " << after;
  };
  check("one placeholder");
  for (int i = 0; i < 3; ++i) calls.push_back(g.create_call(call("aten.relu.default", {x}, f32({2}))));
  g.set_outputs({calls.back()->result()});
  check("calls and the output");
  g.erase(calls[0]);  // the node right after the run
  calls.erase(calls.begin());
  check("erasing the first call");
  g.move_before(calls[1], calls[0]);  // a call moved to the front of the calls
  check("moving a call before the first call");
  Node* first_ph = g.nodes()[0];
  g.move_before(calls[0], first_ph);  // a call moved in front of every placeholder
  check("moving a call before the placeholders");
  Node* out = g.output_node();
  g.move_to_end(calls[0]);
  check("moving that call to the end");
  g.move_before(calls[0], out);
  check("moving it back before the output");
  Node* c = g.create_call(call("aten.relu.default", {x}, f32({2})), g.nodes()[1]);  // inside the run
  check("creating a call inside the run");
  g.erase(c);
  check("erasing it");
  g.erase(g.add_placeholder("q", f32({2})));
  check("erasing the last placeholder");
  for (int i = 0; i < 100; ++i) g.add_placeholder("r", f32({2}));
  check("many placeholders");
}

}  // namespace
}  // namespace edgec

namespace edgec {
namespace {

// Every use of `v` points back at it, once each, and the count matches.
void expect_consistent_uses(const Value* v, size_t want) {
  ASSERT_EQ(v->uses().size(), want);
  std::set<std::pair<const Node*, int>> seen;
  for (const Use& u : v->uses()) {
    EXPECT_EQ(u.user->input(static_cast<size_t>(u.input_index)), v);
    EXPECT_TRUE(seen.insert({u.user, u.input_index}).second) << "a use listed twice";
  }
}

// Regression (issue 14): a use left its value's list by a linear search,
// so erasing or rewiring the 10^5 readers of one value was quadratic. Uses
// now leave by swapping with the last; the lists stay exact through
// erases in every order, rewiring, and a reader reading the value twice.
TEST(GraphUses, StayExactThroughSwapRemoval) {
  Graph g;
  Value* x = g.add_placeholder("x", f32({2}))->result();
  Value* y = g.add_placeholder("y", f32({2}))->result();
  std::vector<Node*> readers;
  for (int i = 0; i < 300; ++i)
    readers.push_back(g.create_call(call(i % 3 ? "aten.relu.default" : "aten.add.Tensor",
                                         i % 3 ? std::vector<Value*>{x} : std::vector<Value*>{x, x}, f32({2}))));
  expect_consistent_uses(x, 400);
  // Erase from the front, from the back and from the middle.
  size_t left = 400;
  for (size_t k : {size_t{0}, size_t{299}, size_t{150}, size_t{1}, size_t{298}}) {
    left -= k % 3 ? 1 : 2;
    g.erase(readers[k]);
    readers[k] = nullptr;
    expect_consistent_uses(x, left);
  }
  // Rewire every other reader's first input to y, then all of x's to y.
  size_t moved = 0;
  for (size_t k = 0; k < readers.size(); k += 2)
    if (readers[k]) {
      readers[k]->set_input(0, y);
      ++moved;
    }
  expect_consistent_uses(x, left - moved);
  expect_consistent_uses(y, moved);
  x->replace_all_uses_with(y);
  expect_consistent_uses(x, 0);
  expect_consistent_uses(y, left);
}

}  // namespace
}  // namespace edgec
