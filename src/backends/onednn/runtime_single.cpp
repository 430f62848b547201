// One-thread twins of the delegate's multi-threaded primitives (runtime_state.h,
// Step::single): what a step runs while the run's thread cap is below the
// threads it was built for (base/thread_cap.h). Most of oneDNN's CPU
// primitives split their work for the thread count they were created with
// and fork that many threads whatever the caller's setting: convolutions
// and products, but also the jit reorder, pooling, batch and layer
// normalization, softmax and concat (found by counting the forks of runs
// held to one thread over the benchmark's models). So holding a run to one
// thread needs primitives created for one, made here for every kind the
// delegate builds.
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/onednn/runtime_state.h"

namespace edgec::runtime::onednn {
namespace {

int count(const_dnnl_primitive_desc_t pd, dnnl_query_t what) {
  int n = 0;
  if (dnnl_primitive_desc_query(pd, what, 0, static_cast<void*>(&n)) != dnnl_success) return 0;
  return n;
}

// Whether two primitive descriptors read and write the same layouts, every
// source, weights and destination of them. (Some kinds answer a query of
// any index, so the indices stop at the primitive's count of inputs or
// outputs.)
bool same_layouts(const_dnnl_primitive_desc_t a, const_dnnl_primitive_desc_t b) {
  const int inputs = count(a, dnnl_query_num_of_inputs_s32), outputs = count(a, dnnl_query_num_of_outputs_s32);
  for (dnnl_query_t q : {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md})
    for (int i = 0; i < std::max(q == dnnl_query_dst_md ? outputs : inputs, 1); ++i) {
      const dnnl_memory_desc_t* ma = dnnl_primitive_desc_query_md(a, q, i);
      const dnnl_memory_desc_t* mb = dnnl_primitive_desc_query_md(b, q, i);
      if ((ma == nullptr) != (mb == nullptr)) return false;
      if (!ma) break;
      if (!dnnl_memory_desc_equal(ma, mb)) return false;
    }
  return true;
}

const char* impl_name(const_dnnl_primitive_desc_t pd) {
  const char* name = nullptr;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, static_cast<void*>(&name)) != dnnl_success) return "";
  return name ? name : "";
}

// The primitive of `pd`, raising scratch_bytes to its scratchpad; empty when
// it cannot be made.
dnnl::primitive create_twin(const_dnnl_primitive_desc_t pd, size_t& scratch_bytes) {
  dnnl_primitive_t p = nullptr;
  if (dnnl_primitive_create(&p, pd) != dnnl_success) return {};
  const dnnl_memory_desc_t* scratch = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  if (scratch) scratch_bytes = std::max(scratch_bytes, dnnl_memory_desc_get_size(scratch));
  return dnnl::primitive(p);
}

// A twin made from a primitive descriptor created anew for one thread: kept
// when it reads and writes the same layouts (so it binds the step's
// memories), which a new descriptor of a reorder or concat between the
// same memory descriptors does.
dnnl::primitive twin_of(const_dnnl_primitive_desc_t original, dnnl_primitive_desc_t made, size_t& scratch_bytes) {
  dnnl::primitive twin;
  if (same_layouts(original, made)) twin = create_twin(made, scratch_bytes);
  dnnl_primitive_desc_destroy(made);
  return twin;
}

// A reorder has no operation descriptor to iterate over: the twin is the
// reorder between the same memory descriptors.
dnnl::primitive reorder_twin(const_dnnl_primitive_desc_t original, size_t& scratch_bytes) {
  const dnnl_memory_desc_t* src = dnnl_primitive_desc_query_md(original, dnnl_query_src_md, 0);
  const dnnl_memory_desc_t* dst = dnnl_primitive_desc_query_md(original, dnnl_query_dst_md, 0);
  const_dnnl_primitive_attr_t attr = nullptr;
  dnnl_engine_t src_engine = nullptr, dst_engine = nullptr;
  if (!src || !dst || dnnl_primitive_desc_get_attr(original, &attr) != dnnl_success ||
      dnnl_primitive_desc_query(original, dnnl_query_reorder_src_engine, 0, static_cast<void*>(&src_engine)) !=
          dnnl_success ||
      dnnl_primitive_desc_query(original, dnnl_query_reorder_dst_engine, 0, static_cast<void*>(&dst_engine)) !=
          dnnl_success)
    return {};
  OneThread one;
  dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_reorder_primitive_desc_create(&pd, src, src_engine, dst, dst_engine, attr) != dnnl_success) return {};
  return twin_of(original, pd, scratch_bytes);
}

// A concat has none either: the same sources into the same destination,
// along the one dimension where the sources' sizes add up to the
// destination's.
dnnl::primitive concat_twin(const_dnnl_primitive_desc_t original, size_t& scratch_bytes) {
  const dnnl_memory_desc_t* dst = dnnl_primitive_desc_query_md(original, dnnl_query_dst_md, 0);
  const_dnnl_primitive_attr_t attr = nullptr;
  dnnl_engine_t engine = nullptr;
  if (!dst || dnnl_primitive_desc_get_attr(original, &attr) != dnnl_success ||
      dnnl_primitive_desc_query(original, dnnl_query_engine, 0, static_cast<void*>(&engine)) != dnnl_success)
    return {};
  std::vector<dnnl_memory_desc_t> srcs;
  for (int i = 0; i < count(original, dnnl_query_num_of_inputs_s32); ++i) {
    const dnnl_memory_desc_t* s = dnnl_primitive_desc_query_md(original, dnnl_query_src_md, i);
    if (!s) break;
    if (s->ndims != dst->ndims) return {};
    srcs.push_back(*s);
  }
  if (srcs.empty()) return {};
  int axis = 0;
  for (int k = 0; k < dst->ndims; ++k) {
    dnnl_dim_t total = 0;
    for (const dnnl_memory_desc_t& s : srcs) total += s.dims[k];
    if (srcs.size() > 1 && total == dst->dims[k] && srcs[0].dims[k] != dst->dims[k]) axis = k;
  }
  OneThread one;
  dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_concat_primitive_desc_create(&pd, dst, static_cast<int>(srcs.size()), axis, srcs.data(), attr, engine) !=
      dnnl_success)
    return {};
  return twin_of(original, pd, scratch_bytes);
}

bool reference_code(const std::string& impl) { return impl.rfind("ref", 0) == 0; }

// The twin from oneDNN's implementations of `op` created for one thread: the
// same implementation over the same layouts, so that it reads and writes
// exactly the memories the step binds; failing that (oneDNN may offer
// another for one thread), the first over the same layouts, unless that is
// oneDNN's reference code where the step's is not: then none, and the step
// runs on its own threads. (oneDNN 2.6 blocks a 1x1 int8 convolution's
// weights by 48 for two threads and by 64 for one, and only its reference
// code takes the first layout at one thread: MobileNetV2's 96 -> 576 one ran
// 600 ms so, against well under 1 ms.)
dnnl::primitive iterate_twin(const_dnnl_primitive_desc_t original, const_dnnl_op_desc_t op,
                             const_dnnl_primitive_attr_t attr, dnnl_engine_t engine, size_t& scratch_bytes) {
  OneThread one;
  dnnl::primitive twin;
  dnnl_primitive_desc_iterator_t it = nullptr;
  if (dnnl_primitive_desc_iterator_create(&it, op, attr, engine, nullptr) != dnnl_success) return {};
  const std::string want = impl_name(original);
  dnnl_primitive_desc_t fallback = nullptr;
  do {
    dnnl_primitive_desc_t candidate = dnnl_primitive_desc_iterator_fetch(it);
    if (!candidate) break;
    if (!same_layouts(original, candidate) || (reference_code(impl_name(candidate)) && !reference_code(want))) {
      dnnl_primitive_desc_destroy(candidate);
    } else if (want == impl_name(candidate)) {
      twin = create_twin(candidate, scratch_bytes);
      dnnl_primitive_desc_destroy(candidate);
      break;
    } else if (!fallback) {
      fallback = candidate;
    } else {
      dnnl_primitive_desc_destroy(candidate);
    }
  } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
  dnnl_primitive_desc_iterator_destroy(it);
  if (!twin && fallback) twin = create_twin(fallback, scratch_bytes);
  if (fallback) dnnl_primitive_desc_destroy(fallback);
  return twin;
}

// `op` (a convolution's, inner product's or matmul's descriptor) with the
// layouts `original` chose in place of any it left to oneDNN, and its twin.
template <typename OpDesc>
dnnl::primitive pinned_twin(const_dnnl_primitive_desc_t original, OpDesc op, const_dnnl_primitive_attr_t attr,
                            dnnl_engine_t engine, size_t& scratch_bytes) {
  const auto pin = [&](dnnl_memory_desc_t& md, dnnl_query_t what, int index) {
    if (const dnnl_memory_desc_t* chosen = dnnl_primitive_desc_query_md(original, what, index)) md = *chosen;
  };
  pin(op.src_desc, dnnl_query_src_md, 0);
  pin(op.weights_desc, dnnl_query_weights_md, 0);
  if (op.bias_desc.ndims > 0) pin(op.bias_desc, dnnl_query_weights_md, 1);
  pin(op.dst_desc, dnnl_query_dst_md, 0);
  return iterate_twin(original, &op, attr, engine, scratch_bytes);
}

}  // namespace

dnnl::primitive single_thread_twin(const dnnl::primitive_desc_base& pd, size_t& scratch_bytes) {
  const_dnnl_primitive_desc_t original = pd.get();
  dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
  if (dnnl_primitive_desc_query(original, dnnl_query_primitive_kind, 0, static_cast<void*>(&kind)) != dnnl_success)
    return {};
  if (kind == dnnl_reorder) return reorder_twin(original, scratch_bytes);
  if (kind == dnnl_concat) return concat_twin(original, scratch_bytes);
  const_dnnl_op_desc_t op = nullptr;
  const_dnnl_primitive_attr_t attr = nullptr;
  dnnl_engine_t engine = nullptr;
  if (dnnl_primitive_desc_query(original, dnnl_query_op_d, 0, static_cast<void*>(&op)) != dnnl_success || !op ||
      dnnl_primitive_desc_get_attr(original, &attr) != dnnl_success ||
      dnnl_primitive_desc_query(original, dnnl_query_engine, 0, static_cast<void*>(&engine)) != dnnl_success)
    return {};
  dnnl::primitive twin = iterate_twin(original, op, attr, engine, scratch_bytes);
  if (twin) return twin;
  // With one thread oneDNN may choose other layouts for what the step left
  // to it (`any`: a convolution's weights Acdb16a rather than Acdb32a):
  // the same operation again with every layout the step uses written out.
  switch (kind) {
    case dnnl_convolution:
    case dnnl_deconvolution:
      return pinned_twin(original, *static_cast<const dnnl_convolution_desc_t*>(op), attr, engine, scratch_bytes);
    case dnnl_inner_product:
      return pinned_twin(original, *static_cast<const dnnl_inner_product_desc_t*>(op), attr, engine, scratch_bytes);
    case dnnl_matmul:
      return pinned_twin(original, *static_cast<const dnnl_matmul_desc_t*>(op), attr, engine, scratch_bytes);
    default:
      return {};
  }
}

}  // namespace edgec::runtime::onednn
