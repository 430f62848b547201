// Memory planning inside a delegate: a delegate that keeps its intermediate
// values in buffers of its own (rather than the arena the compiler planned,
// which knows nothing of the delegate's layouts, fusions and copies) gives
// each buffer the steps it is live over, and place_buffers lays them out in
// one block. Shared by the onednn and xnnpack delegates.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace edgec::runtime {

/// Storage a delegate plans: live from the first step that uses it to the
/// last, placed by first fit over the buffers live at the same time.
struct PlannedBuffer {
  size_t size = 0;
  int first = INT_MAX, last = -1;  ///< Step indices; last < 0: never used (takes no memory).
  size_t offset = 0;               ///< Into the delegate's block, once planned.
};

/// Makes `b` live over steps `first` to `last` as well.
inline void extend_life(PlannedBuffer& b, int first, int last) {
  b.first = first < b.first ? first : b.first;
  b.last = last > b.last ? last : b.last;
}

/// After one instruction is built: the buffers it `touched` (indices into
/// `buffers`) are live over its steps, from `first_step` to the last of
/// `step_count` (at least `first_step`, for one that added none: a view);
/// clears `touched`.
template <typename B>
void mark_touched_live(std::vector<B>& buffers, std::vector<int32_t>& touched, size_t first_step, size_t step_count) {
  const int first = static_cast<int>(first_step);
  const int last = step_count > first_step ? static_cast<int>(step_count) - 1 : first;
  for (int32_t b : touched) extend_life(buffers[static_cast<size_t>(b)], first, last);
  touched.clear();
}

/// Gives every buffer used by some step (last >= 0) its offset: first fit,
/// 64-byte aligned, among the buffers live at the same steps, in order of
/// first use (n log n in the buffers). Returns the bytes they span together.
size_t place_buffers(std::span<PlannedBuffer* const> buffers);

/// The same over a delegate's own buffer type (derived from PlannedBuffer).
template <typename B>
size_t place_buffers(std::vector<B>& buffers) {
  std::vector<PlannedBuffer*> all;
  all.reserve(buffers.size());
  for (B& b : buffers) all.push_back(&b);
  return place_buffers(std::span<PlannedBuffer* const>(all));
}

}  // namespace edgec::runtime
