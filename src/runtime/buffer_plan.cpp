// Where a delegate's planned buffers go (place_buffers, buffer_plan.h):
// first fit, buffer by buffer in order of first use, among the buffers
// still live when it starts.
//
// The live buffers are kept in offset order in a treap (a search tree by
// offset, a heap by a random priority) whose every node knows the largest
// free gap before any buffer of its subtree, so that the lowest gap a
// buffer fits in is one walk down: n log n in the buffers. Scanning the
// live buffers instead made the plan quadratic when many are live at once
// (a Sum of 10,000 values held 10,000: 6 s at load, 97% of it here).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>

#include "runtime/buffer_plan.h"

namespace edgec::runtime {
namespace {

constexpr size_t align64(size_t v) { return (v + 63) / 64 * 64; }

class LiveBuffers {
 public:
  explicit LiveBuffers(size_t capacity) { nodes_.reserve(capacity); }

  /// The lowest offset where `size` bytes fit between the live buffers, or
  /// the end of the last one.
  size_t first_fit(size_t size) const {
    for (int32_t n = root_; n >= 0;) {
      const Node& x = nodes_[static_cast<size_t>(n)];
      if (x.left >= 0 && node(x.left).max_gap >= size) {
        n = x.left;
      } else if (x.gap >= size) {
        return x.offset - x.gap;
      } else {
        n = x.right;
      }
    }
    return root_ < 0 ? 0 : node(last(root_)).end;
  }

  /// Adds a buffer at [offset, end), which overlaps no live one.
  void insert(size_t offset, size_t end) {
    int32_t before = -1, after = -1;
    split(root_, offset, before, after);
    const size_t previous_end = before < 0 ? 0 : node(last(before)).end;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    nodes_.push_back({offset, end, offset - previous_end, offset - previous_end, state_, -1, -1});
    const auto added = static_cast<int32_t>(nodes_.size() - 1);
    if (after >= 0) set_first_gap(after, node(first(after)).offset - end);
    root_ = merge(merge(before, added), after);
  }

  /// Removes the live buffer at `offset`.
  void erase(size_t offset) {
    int32_t before = -1, rest = -1, removed = -1, after = -1;
    split(root_, offset, before, rest);
    split(rest, offset + 1, removed, after);
    const size_t previous_end = before < 0 ? 0 : node(last(before)).end;
    if (after >= 0) set_first_gap(after, node(first(after)).offset - previous_end);
    root_ = merge(before, after);
  }

 private:
  struct Node {
    size_t offset, end;
    size_t gap;      ///< Free bytes between the previous live buffer (or 0) and this one.
    size_t max_gap;  ///< The largest gap in this subtree.
    uint32_t priority;
    int32_t left, right;
  };

  Node& node(int32_t n) { return nodes_[static_cast<size_t>(n)]; }
  const Node& node(int32_t n) const { return nodes_[static_cast<size_t>(n)]; }

  void update(int32_t n) {
    Node& x = node(n);
    x.max_gap = x.gap;
    if (x.left >= 0) x.max_gap = std::max(x.max_gap, node(x.left).max_gap);
    if (x.right >= 0) x.max_gap = std::max(x.max_gap, node(x.right).max_gap);
  }

  int32_t first(int32_t n) const {
    while (node(n).left >= 0) n = node(n).left;
    return n;
  }
  int32_t last(int32_t n) const {
    while (node(n).right >= 0) n = node(n).right;
    return n;
  }

  // The subtree `t` as the nodes below `key` and the rest.
  void split(int32_t t, size_t key, int32_t& below, int32_t& rest) {
    if (t < 0) {
      below = rest = -1;
      return;
    }
    if (node(t).offset < key) {
      split(node(t).right, key, node(t).right, rest);
      below = t;
    } else {
      split(node(t).left, key, below, node(t).left);
      rest = t;
    }
    update(t);
  }

  // Two subtrees, every offset of `a` below every offset of `b`, as one.
  int32_t merge(int32_t a, int32_t b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (node(a).priority > node(b).priority) {
      const int32_t right = merge(node(a).right, b);
      node(a).right = right;
      update(a);
      return a;
    }
    const int32_t left = merge(a, node(b).left);
    node(b).left = left;
    update(b);
    return b;
  }

  // Sets the gap of the lowest buffer of subtree `n`.
  void set_first_gap(int32_t n, size_t gap) {
    if (node(n).left >= 0) set_first_gap(node(n).left, gap);
    else node(n).gap = gap;
    update(n);
  }

  std::vector<Node> nodes_;
  int32_t root_ = -1;
  uint32_t state_ = 2463534242u;  // xorshift32: priorities only shape the tree, never the plan.
};

}  // namespace

size_t place_buffers(std::span<PlannedBuffer* const> buffers) {
  std::vector<PlannedBuffer*> order;
  order.reserve(buffers.size());
  for (PlannedBuffer* b : buffers)
    if (b->last >= 0) order.push_back(b);  // A buffer never used takes no memory.
  std::stable_sort(order.begin(), order.end(),
                   [](const PlannedBuffer* a, const PlannedBuffer* b) { return a->first < b->first; });
  LiveBuffers live(order.size());
  // The live buffers by their last step, soonest first: one that died
  // before a buffer starts is dead for every later one too.
  using Expiry = std::pair<int, size_t>;  // (last step, offset)
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiring;
  size_t total = 0;
  for (PlannedBuffer* buffer : order) {
    PlannedBuffer& b = *buffer;
    while (!expiring.empty() && expiring.top().first < b.first) {
      live.erase(expiring.top().second);
      expiring.pop();
    }
    const size_t size = align64(b.size);
    b.offset = live.first_fit(size);
    total = std::max(total, b.offset + size);
    if (size == 0) continue;  // Overlaps nothing.
    live.insert(b.offset, b.offset + size);
    expiring.emplace(b.last, b.offset);
  }
  return total;
}

}  // namespace edgec::runtime
