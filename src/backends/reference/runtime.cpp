// The `reference` backend's runtime side: the payload is a program table
// (preprocess.cpp), validated by the same loader as a file, and run by a
// Method of its own on the portable kernels. The handle owns that Program
// and Method, so each owning Method gets its own arena for the delegate.
#include "backends/reference/runtime.h"

#include <cstring>
#include <new>

#include "runtime/method.h"

namespace edgec::runtime {
namespace {

struct Handle {
  std::unique_ptr<Program> program;
  std::unique_ptr<Method> method;
};

// Copies `src` (possibly strided: a delegate may return its input as is)
// into `dst`, the caller's contiguous output, resizing it to src's shape
// within its planned capacity.
Error copy_output(const Tensor& src, Tensor& dst, size_t index) {
  if (src.dtype != dst.dtype || src.rank != dst.rank)
    return fail(Error::InvalidType, "output " + std::to_string(index) + ": the delegate produced " + std::string(dtype_name(src.dtype)) +
                                        shape_string(src.shape()) + ", the caller expects " + std::string(dtype_name(dst.dtype)) +
                                        " of rank " + std::to_string(dst.rank));
  EDGEC_TRY(dst.resize(src.shape()));
  const size_t esz = dtype_size(src.dtype);
  const int64_t n = src.numel();
  if (n == 0) return Error::Ok;
  if (src.is_contiguous()) {
    std::memcpy(dst.data, src.data, static_cast<size_t>(n) * esz);
    return Error::Ok;
  }
  std::array<int64_t, kMaxRank> idx{};
  auto* out = static_cast<std::byte*>(dst.data);
  const auto* in = static_cast<const std::byte*>(src.data);
  for (int64_t e = 0; e < n; ++e) {
    int64_t offset = 0;
    for (int d = 0; d < src.rank; ++d) offset += idx[d] * src.strides[d];
    std::memcpy(out + static_cast<size_t>(e) * esz, in + offset * static_cast<int64_t>(esz), esz);
    for (int d = src.rank - 1; d >= 0; --d) {
      if (++idx[d] < src.sizes[d]) break;
      idx[d] = 0;
    }
  }
  return Error::Ok;
}

class ReferenceBackend final : public Backend {
 public:
  std::string_view id() const override { return "reference"; }
  bool is_available() const override { return true; }

  Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                     int num_threads) const override {
    auto program = Program::load_payload(payload, named_data);
    if (!program.ok()) return program.error();
    auto method = Method::create(**program, num_threads);
    if (!method.ok()) return method.error();
    auto* handle = new (std::nothrow) Handle{std::move(*program), std::move(*method)};
    if (!handle) return fail(Error::OutOfMemory, "cannot allocate a reference delegate handle");
    return static_cast<void*>(handle);
  }

  Error execute(void* raw, std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) const override {
    if (!raw) return fail(Error::DelegateInvalidHandle, "the reference delegate has no handle");
    Method& m = *static_cast<Handle*>(raw)->method;
    if (inputs.size() != m.num_inputs() || outputs.size() != m.num_outputs())
      return fail(Error::InvalidArgument, "the reference delegate takes " + std::to_string(m.num_inputs()) + " input(s) and " +
                                              std::to_string(m.num_outputs()) + " output(s), got " +
                                              std::to_string(inputs.size()) + " and " + std::to_string(outputs.size()));
    // Every call binds afresh: symbolic sizes may differ from the last call.
    m.reset_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) EDGEC_TRY(m.set_input(i, *inputs[i]));
    EDGEC_TRY(m.execute());
    for (size_t i = 0; i < outputs.size(); ++i) EDGEC_TRY(copy_output(m.output(i), *outputs[i], i));
    return Error::Ok;
  }

  void destroy(void* raw) const override { delete static_cast<Handle*>(raw); }
};

}  // namespace

const Backend& reference_backend() {
  static const ReferenceBackend kBackend;
  return kBackend;
}

}  // namespace edgec::runtime
