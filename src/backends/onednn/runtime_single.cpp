// One-thread twins of the delegate's multi-threaded primitives (runtime_state.h,
// Step::single): what a step runs while the run's thread cap is below the
// threads it was built for (base/thread_cap.h). oneDNN's convolutions and
// products split their work for the thread count they were created with and
// fork that many threads whatever the caller's setting, so holding a run to
// one thread needs primitives created for one.
#include <omp.h>

#include <cstring>

#include "backends/onednn/runtime_state.h"

namespace edgec::runtime::onednn {
namespace {

// Whether two primitive descriptors read and write the same layouts.
bool same_layouts(const_dnnl_primitive_desc_t a, const_dnnl_primitive_desc_t b) {
  for (dnnl_query_t q : {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md}) {
    const dnnl_memory_desc_t* ma = dnnl_primitive_desc_query_md(a, q, 0);
    const dnnl_memory_desc_t* mb = dnnl_primitive_desc_query_md(b, q, 0);
    if ((ma == nullptr) != (mb == nullptr)) return false;
    if (ma && !dnnl_memory_desc_equal(ma, mb)) return false;
  }
  return true;
}

const char* impl_name(const_dnnl_primitive_desc_t pd) {
  const char* name = nullptr;
  if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, static_cast<void*>(&name)) != dnnl_success) return "";
  return name ? name : "";
}

}  // namespace

dnnl::primitive single_thread_twin(const dnnl::primitive_desc_base& pd, size_t& scratch_bytes) {
  const_dnnl_primitive_desc_t original = pd.get();
  dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
  if (dnnl_primitive_desc_query(original, dnnl_query_primitive_kind, 0, static_cast<void*>(&kind)) != dnnl_success)
    return {};
  // The kinds that size their work split at creation; the others split at
  // execution by the caller's thread setting, which execute caps.
  if (kind != dnnl_convolution && kind != dnnl_deconvolution && kind != dnnl_matmul && kind != dnnl_inner_product)
    return {};
  const_dnnl_op_desc_t op = nullptr;
  const_dnnl_primitive_attr_t attr = nullptr;
  dnnl_engine_t engine = nullptr;
  if (dnnl_primitive_desc_query(original, dnnl_query_op_d, 0, static_cast<void*>(&op)) != dnnl_success || !op ||
      dnnl_primitive_desc_get_attr(original, &attr) != dnnl_success ||
      dnnl_primitive_desc_query(original, dnnl_query_engine, 0, static_cast<void*>(&engine)) != dnnl_success)
    return {};
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  dnnl::primitive twin;
  dnnl_primitive_desc_iterator_t it = nullptr;
  if (dnnl_primitive_desc_iterator_create(&it, op, attr, engine, nullptr) == dnnl_success) {
    // The same implementation over the same layouts, so that the twin reads
    // and writes exactly the memories the step binds.
    const std::string want = impl_name(original);
    do {
      dnnl_primitive_desc_t candidate = dnnl_primitive_desc_iterator_fetch(it);
      if (!candidate) break;
      if (want == impl_name(candidate) && same_layouts(original, candidate)) {
        dnnl_primitive_t p = nullptr;
        if (dnnl_primitive_create(&p, candidate) == dnnl_success) {
          twin = dnnl::primitive(p);
          const dnnl_memory_desc_t* scratch = dnnl_primitive_desc_query_md(candidate, dnnl_query_scratchpad_md, 0);
          if (scratch) scratch_bytes = std::max(scratch_bytes, dnnl_memory_desc_get_size(scratch));
        }
        dnnl_primitive_desc_destroy(candidate);
        break;
      }
      dnnl_primitive_desc_destroy(candidate);
    } while (dnnl_primitive_desc_iterator_next(it) == dnnl_success);
    dnnl_primitive_desc_iterator_destroy(it);
  }
  omp_set_num_threads(saved);
  return twin;
}

}  // namespace edgec::runtime::onednn
