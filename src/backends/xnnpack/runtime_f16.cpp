// float16 held in f32, for a handle that cannot run its f16 steps natively
// (runtime_state.h's header says when): its f16 values are f32 inside the
// delegate, so the only f16 arithmetic left is the conversion where a value
// enters (a constant at init, an input at execute) or leaves (an output).
// The conversions at execute are XNNPACK's convert operators, vectorized
// for every CPU XNNPACK runs on, set up once like the others: an input is
// copied by run into its staging buffer and widened from there, an output
// narrowed into a buffer of its own that run copies out.
#include "backends/xnnpack/runtime_state.h"
#include "runtime/f16_edges.h"

namespace edgec::runtime::xnnpack {

void widen_constants(Delegate& d) {
  for (SlotState& st : d.slots) {
    if (!st.widened() || !st.data || (st.kind != SlotKind::Constant && st.kind != SlotKind::State)) continue;
    const auto n = static_cast<size_t>(st.numel());
    auto& to = d.widened.emplace_back(new std::byte[n * sizeof(float)]);
    widen_f16(st.data, reinterpret_cast<float*>(to.get()), n);
    st.data = to.get();
  }
}

void add_input_widening(Delegate& d) {
  const size_t first = d.steps.size();
  for (size_t i = 0; i < d.inputs.size(); ++i) {
    const int32_t slot = d.inputs[i];
    SlotState& st = d.slots[static_cast<size_t>(slot)];
    if (!st.widened() || st.plain.buffer >= 0) continue;
    const Place to{static_cast<int32_t>(d.buffers.size())};
    d.buffers.push_back({st.nbytes() + XNN_EXTRA_BYTES});
    const std::byte* from = d.staging[i].get();
    const auto count = static_cast<size_t>(st.numel());
    xnn_operator_t op = nullptr;
    const xnn_status s = xnn_create_convert_nc_f16_f32(1, 1, 1, 0, &op);
    d.add_op(s, op, "xnn_create_convert_nc_f16_f32",
             [&d, count, from, to](xnn_operator_t o) {
               return xnn_setup_convert_nc_f16_f32(o, count, from, reinterpret_cast<float*>(d.at(to)), d.pool);
             },
             "widening of input slot " + std::to_string(slot), "f16 to f32 (input)");
    st.plain = to;
    d.touch(to);
  }
  d.finish_instruction(first);
}

void add_output_narrowing(Delegate& d) {
  for (int32_t slot : d.outputs) {
    SlotState& st = d.slots[static_cast<size_t>(slot)];
    if (!st.widened() || st.edge.present()) continue;  // An output listed twice is narrowed once.
    const size_t first = d.steps.size();
    const Place from = d.plain(slot);
    // A conversion to NCHW on the way out computes in f32 too.
    for (size_t k = first; k < d.steps.size(); ++k) d.steps[k].name += kAsF32Suffix;
    const Place to{static_cast<int32_t>(d.buffers.size())};
    d.buffers.push_back({st.edge_nbytes() + XNN_EXTRA_BYTES});
    const auto count = static_cast<size_t>(st.numel());
    xnn_operator_t op = nullptr;
    const xnn_status s = xnn_create_convert_nc_f32_f16(1, 1, 1, 0, &op);
    d.add_op(s, op, "xnn_create_convert_nc_f32_f16",
             [&d, count, from, to](xnn_operator_t o) {
               return xnn_setup_convert_nc_f32_f16(o, count, reinterpret_cast<const float*>(d.at(from)), d.at(to),
                                                   d.pool);
             },
             "narrowing of output slot " + std::to_string(slot), "f32 to f16 (output)");
    st.edge = to;
    d.touch(to);
    d.finish_instruction(first);
  }
}

}  // namespace edgec::runtime::xnnpack
