// The `reference` backend's runtime side: the payload is a program table
// (preprocess.cpp), validated by the same loader as a file, and run by a
// Method of its own on the portable kernels. The handle owns that Program
// and Method, so each owning Method gets its own arena for the delegate.
#include "backends/reference/runtime.h"

#include <new>

#include "runtime/delegate.h"
#include "runtime/method.h"

namespace edgec::runtime {
namespace {

class Handle final : public DelegateHandle {
 public:
  Handle(std::unique_ptr<Program> program, std::unique_ptr<Method> method)
      : program_(std::move(program)), method_(std::move(method)) {}
  size_t num_inputs() const override { return method_->num_inputs(); }
  size_t num_outputs() const override { return method_->num_outputs(); }

  Error run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) override {
    Method& m = *method_;
    // Every call binds afresh: symbolic sizes may differ from the last call.
    m.reset_inputs();
    for (size_t i = 0; i < inputs.size(); ++i) EDGEC_TRY(m.set_input(i, *inputs[i]));
    EDGEC_TRY(m.execute());
    // A delegate may return its input as is, a strided view: copied.
    for (size_t i = 0; i < outputs.size(); ++i) EDGEC_TRY(copy_to_output(m.output(i), *outputs[i], i));
    return Error::Ok;
  }

 private:
  std::unique_ptr<Program> program_;
  std::unique_ptr<Method> method_;
};

class ReferenceBackend final : public DelegateBackend {
 public:
  std::string_view id() const override { return "reference"; }
  bool is_available() const override { return true; }

  Result<void*> init(std::span<const std::byte> payload, const NamedDataMap& named_data,
                     int num_threads) const override {
    auto program = Program::load_payload(payload, named_data);
    if (!program.ok()) return program.error();
    auto method = Method::create(**program, num_threads);
    if (!method.ok()) return method.error();
    auto* handle = new (std::nothrow) Handle(std::move(*program), std::move(*method));
    if (!handle) return fail(Error::OutOfMemory, "cannot allocate a reference delegate handle");
    return static_cast<DelegateHandle*>(handle);
  }
};

}  // namespace

const Backend& reference_backend() {
  static const ReferenceBackend kBackend;
  return kBackend;
}

}  // namespace edgec::runtime
